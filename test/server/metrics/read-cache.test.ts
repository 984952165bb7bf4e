/**
 * The read cache's Prometheus metrics (server/metrics/read-cache.ts): zero without a cache, then the
 * cache's totals as counters and its reflectors by state as a gauge, read at each scrape.
 */
import { Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { registerReadCacheMetrics } from '../../../server/metrics/read-cache.ts';
import type { ReadCacheStats } from '../../../tools/index.ts';

/** The value of `name` (with `labels`, e.g. `{state="synced"}`) in the exposition text. */
function valueOf(text: string, name: string, labels = ''): number | undefined {
  const line = text.split('\n').find((l) => l.startsWith(`${name}${labels} `));
  return line === undefined ? undefined : Number(line.split(' ')[1]);
}

const stats = (overrides: Partial<ReadCacheStats>): ReadCacheStats => ({
  namespaces: [],
  hits: 0,
  misses: 0,
  reflectors: 0,
  synced: 0,
  relists: 0,
  watches: 0,
  failures: 0,
  idleRestarts: 0,
  ...overrides,
});

describe('read cache metrics', () => {
  it('are 0 without a cache, then follow its stats at each scrape', async () => {
    const registry = new Registry();
    let current: ReadCacheStats | undefined;
    registerReadCacheMetrics(registry, () => current);

    let text = await registry.metrics();
    for (const name of ['hits', 'misses', 'relists', 'watches', 'failures', 'watch_idle_restarts'])
      expect(valueOf(text, `sentinel_read_cache_${name}_total`), name).toBe(0);
    expect(valueOf(text, 'sentinel_read_cache_reflectors', '{state="synced"}')).toBe(0);

    current = stats({
      hits: 7,
      misses: 3,
      reflectors: 4,
      synced: 3,
      relists: 1,
      watches: 5,
      failures: 2,
      idleRestarts: 4,
    });
    text = await registry.metrics();
    expect(valueOf(text, 'sentinel_read_cache_hits_total')).toBe(7);
    expect(valueOf(text, 'sentinel_read_cache_misses_total')).toBe(3);
    expect(valueOf(text, 'sentinel_read_cache_relists_total')).toBe(1);
    expect(valueOf(text, 'sentinel_read_cache_watches_total')).toBe(5);
    expect(valueOf(text, 'sentinel_read_cache_failures_total')).toBe(2);
    expect(valueOf(text, 'sentinel_read_cache_watch_idle_restarts_total')).toBe(4);
    expect(valueOf(text, 'sentinel_read_cache_reflectors', '{state="synced"}')).toBe(3);
    expect(valueOf(text, 'sentinel_read_cache_reflectors', '{state="unsynced"}')).toBe(1);

    // A later scrape adds only what happened since; a scrape without a change adds nothing.
    current = stats({ ...current, hits: 10 });
    await registry.metrics();
    text = await registry.metrics();
    expect(valueOf(text, 'sentinel_read_cache_hits_total')).toBe(10);
    expect(valueOf(text, 'sentinel_read_cache_misses_total')).toBe(3);
  });
});
