/**
 * server/serve-heap.ts: the one memory-reducing collection `sentinel serve` runs once started. It
 * reaches V8's collector without leaving it exposed, and releases the young generation start-up
 * grew (V8 shrinks new space on a last-resort collection). Sizes of V8's own heap spaces, not RSS
 * or time.
 */
import { describe, expect, it } from 'vitest';
import { getHeapSpaceStatistics } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { releaseStartupMemory } from '../../server/serve-heap.ts';

const newSpace = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')!;

describe('releaseStartupMemory', () => {
  it('runs a collection that shrinks new space, and leaves the collector unexposed', () => {
    // Garbage that grows the young generation, as start-up does.
    let kept = 0;
    for (let i = 0; i < 200_000; i += 1) kept += JSON.stringify({ i, text: `item ${i}` }).length;
    expect(kept).toBeGreaterThan(0);
    const before = newSpace().space_size;
    expect(releaseStartupMemory()).toBe(true);
    // Shrunk to V8's minimum semi-space (the test process had grown it, as start-up does).
    expect(newSpace().space_size).toBeLessThan(before);
    expect((globalThis as { gc?: unknown }).gc).toBeUndefined();
    expect(runInNewContext('typeof gc')).toBe('undefined');
  });
});
