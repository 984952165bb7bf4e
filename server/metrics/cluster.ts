/**
 * `/metrics` of a `sentinel serve --workers N` worker: the counters, histograms and process
 * metrics of every worker, summed (or, for the process metrics prom-client marks so, averaged,
 * maxed or taken once) by prom-client's `AggregatorRegistry.aggregate` — the same exposition
 * Prometheus would get from one process that had served all the calls.
 */
import { AggregatorRegistry, type Registry } from 'prom-client';

/** Where the exposition text comes from: this process's registry, or all workers'. */
export type Exposition = () => Promise<string>;

/** This process's own registry (a single `sentinel serve`). */
export const localExposition =
  (registry: Registry): Exposition =>
  () =>
    registry.metrics();

/**
 * The exposition summed over the workers: `gather` resolves with each worker's registry as
 * `getMetricsAsJSON()` (server/workers.ts, `WorkerRole.metrics`). Rejects as `gather` does.
 */
export function clusterExposition(gather: () => Promise<unknown[][]>): Exposition {
  return async () => {
    const parts = await gather();
    return AggregatorRegistry.aggregate(parts as object[]).metrics();
  };
}
