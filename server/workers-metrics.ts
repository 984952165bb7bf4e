/**
 * The primary's half of `/metrics` under `sentinel serve --workers N`: a worker asked for
 * `/metrics` sends `metrics-request`; the primary asks every listening worker (the asker too) for
 * its registry as JSON (`metrics-collect`), and hands the asker all the answers (`metrics-parts`),
 * which it sums with prom-client's `AggregatorRegistry.aggregate` (server/metrics/cluster.ts). The
 * primary itself loads no prom-client (it loads none of the server).
 *
 * Why not prom-client's `AggregatorRegistry.clusterMetrics()` in the primary: it asks every forked
 * worker, and one still starting (a replacement) has no listener yet, so the scrape would wait out
 * its 5 s timeout and fail; here only workers that listen are asked, and one that exits meanwhile
 * is no longer waited for.
 */
import type { Worker } from 'node:cluster';

/** How long a gathering waits for the workers' answers before the scrape fails (ms). */
export const GATHER_TIMEOUT_MS = 10_000;

/** The messages of the metrics relay (members of `WorkerMessage`). */
export type MetricsMessage =
  | { sentinel: 'metrics-request'; id: number }
  | { sentinel: 'metrics-collect'; gather: number }
  | { sentinel: 'metrics-part'; gather: number; metrics: unknown[] }
  | { sentinel: 'metrics-parts'; id: number; parts?: unknown[][]; error?: string };

interface Gathering {
  asker: Worker;
  id: number;
  parts: unknown[][];
  waiting: Set<Worker>;
  timer: NodeJS.Timeout;
}

/** The primary's relay; `runWorkers` feeds it the workers' messages and exits. */
export interface MetricsRelay {
  /** `worker` listens: from now on it is asked for its metrics. */
  listening(worker: Worker): void;
  /** A relay message from `worker`. */
  receive(worker: Worker, message: MetricsMessage): void;
  /** `worker` exited: no gathering waits for it any longer. */
  exited(worker: Worker): void;
}

/** Creates the primary's relay (see the module comment). */
export function createMetricsRelay(timeoutMs: number = GATHER_TIMEOUT_MS): MetricsRelay {
  const listening = new Set<Worker>();
  const gatherings = new Map<number, Gathering>();
  let next = 0;

  const send = (worker: Worker, message: MetricsMessage) => {
    if (worker.isConnected()) worker.send(message);
  };
  const finish = (gather: number, error?: string) => {
    const gathering = gatherings.get(gather);
    if (!gathering) return;
    gatherings.delete(gather);
    clearTimeout(gathering.timer);
    send(
      gathering.asker,
      error === undefined
        ? { sentinel: 'metrics-parts', id: gathering.id, parts: gathering.parts }
        : { sentinel: 'metrics-parts', id: gathering.id, error },
    );
  };
  const settled = (gather: number, worker: Worker) => {
    const gathering = gatherings.get(gather);
    if (!gathering?.waiting.delete(worker)) return;
    if (gathering.waiting.size === 0) finish(gather);
  };

  return {
    listening: (worker) => void listening.add(worker),
    receive(worker, message) {
      if (message.sentinel === 'metrics-request') {
        const gather = next++;
        const waiting = new Set([...listening, worker].filter((w) => w.isConnected()));
        const timer = setTimeout(
          () => finish(gather, `${gatherings.get(gather)?.waiting.size ?? 0} worker(s) did not answer`),
          timeoutMs,
        );
        timer.unref();
        gatherings.set(gather, { asker: worker, id: message.id, parts: [], waiting, timer });
        for (const each of waiting) send(each, { sentinel: 'metrics-collect', gather });
      } else if (message.sentinel === 'metrics-part') {
        gatherings.get(message.gather)?.parts.push(message.metrics);
        settled(message.gather, worker);
      }
    },
    exited(worker) {
      listening.delete(worker);
      for (const [gather, gathering] of gatherings) {
        if (gathering.asker === worker) {
          gatherings.delete(gather);
          clearTimeout(gathering.timer);
        } else settled(gather, worker);
      }
    },
  };
}
