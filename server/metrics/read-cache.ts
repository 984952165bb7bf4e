/**
 * Prometheus metrics of the watch-backed read cache (tools/kube/read-cache.ts), read from its
 * `stats()` when scraped, on the server's registry (./metrics.ts):
 *
 * | metric | type | labels | what |
 * |---|---|---|---|
 * | sentinel_read_cache_hits_total | counter | — | reads answered from memory |
 * | sentinel_read_cache_misses_total | counter | — | cacheable reads that went to the API server (not synced yet, reconnecting, or bypassed after Sentinel's own write) |
 * | sentinel_read_cache_reflectors | gauge | state | reflectors running, `synced` or `unsynced` |
 * | sentinel_read_cache_relists_total | counter | — | lists again after an expired version (410 Gone) |
 * | sentinel_read_cache_watches_total | counter | — | watches the API server accepted (first ones, resumptions, after failures) |
 * | sentinel_read_cache_failures_total | counter | — | failed lists or watches, each retried with backoff |
 * | sentinel_read_cache_watch_idle_restarts_total | counter | — | watches ended after `watchIdleMs` (30 s) without an event or bookmark, then resumed (a half-open connection, or a quiet namespace) |
 *
 * All stay 0 while there is no cache (`--read-cache off`, no cluster, or before the first tool call
 * connects to the cluster).
 */
import { Counter, Gauge, type Registry } from 'prom-client';
import type { ReadCacheStats } from '../../tools/index.ts';

type Total = 'hits' | 'misses' | 'relists' | 'watches' | 'failures' | 'idleRestarts';

/** Each total's stats key, its metric name between `sentinel_read_cache_` and `_total`, and help. */
const TOTALS: [Total, string, string][] = [
  ['hits', 'hits', 'Read-cache reads answered from memory.'],
  [
    'misses',
    'misses',
    'Read-cache reads that went to the API server (cache not synced, reconnecting, or bypassed after one of Sentinel’s own writes).',
  ],
  ['relists', 'relists', 'Read-cache lists again after a watch’s resourceVersion expired (410 Gone).'],
  [
    'watches',
    'watches',
    'Read-cache watches the API server accepted (first ones, resumptions, after failures).',
  ],
  [
    'failures',
    'failures',
    'Read-cache lists or watches that failed (each retried with backoff; see the server log).',
  ],
  [
    'idleRestarts',
    'watch_idle_restarts',
    'Read-cache watches ended after watchIdleMs without an event or bookmark, then resumed from their last version (a half-open connection, or a quiet namespace).',
  ],
];

/**
 * Registers the read-cache metrics on `registry`; `stats` is the cache's `stats()`, or undefined
 * while there is none. Counters follow the cache's own totals (which never go back) when scraped.
 */
export function registerReadCacheMetrics(registry: Registry, stats: () => ReadCacheStats | undefined): void {
  for (const [key, name, help] of TOTALS) {
    let counted = 0;
    new Counter({
      name: `sentinel_read_cache_${name}_total`,
      help,
      registers: [registry],
      collect() {
        const total = stats()?.[key] ?? counted;
        if (total > counted) this.inc(total - counted);
        counted = Math.max(counted, total);
      },
    });
  }
  new Gauge({
    name: 'sentinel_read_cache_reflectors',
    help: 'Read-cache reflectors (one per resource and namespace read) running, by state: synced (answering reads) or unsynced.',
    labelNames: ['state'],
    registers: [registry],
    collect() {
      const now = stats();
      this.set({ state: 'synced' }, now?.synced ?? 0);
      this.set({ state: 'unsynced' }, now ? now.reflectors - now.synced : 0);
    },
  });
}
