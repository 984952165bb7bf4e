/**
 * server/serve-heap.ts: the heap settings of a running `sentinel serve` — the young generation kept
 * at its cap under allocation (and growing again once the bound is removed, or when the operator set
 * their own), bounds checked before anything changes, and the one memory-reducing collection run
 * once started (it reaches V8's collector without leaving it exposed, and releases the young
 * generation start-up grew). Sizes of V8's own heap spaces, not RSS or time.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { setImmediate as tick } from 'node:timers/promises';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';
import { boundServeHeap, releaseStartupMemory } from '../../server/serve-heap.ts';

const MiB = 2 ** 20;
const newSpace = () => getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')!;

/** V8's last-resort collection (as releaseStartupMemory runs it): shrinks new space to its minimum. */
function shrinkYoungGeneration(): void {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('gc') as (options: object) => void;
  setFlagsFromString('--no-expose-gc');
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
}

/**
 * Allocation with survivors, as requests in flight make (what grows V8's semi-spaces), yielding
 * between batches as a server does between requests; the largest young generation seen, in bytes.
 */
async function churn(batches = 400): Promise<number> {
  const inFlight: unknown[] = new Array(20_000);
  let largest = 0;
  for (let batch = 0; batch < batches; batch += 1) {
    for (let i = 0; i < 5_000; i += 1) {
      inFlight[(batch * 5_000 + i) % inFlight.length] = { batch, i, text: `request ${i}`, list: [i] };
    }
    await tick();
    largest = Math.max(largest, newSpace().space_size);
  }
  return largest;
}

let stop: (() => void) | undefined;
afterEach(() => {
  stop?.();
  stop = undefined;
});

describe('boundServeHeap', () => {
  it('keeps the young generation at its cap under allocation, and lets it grow once stopped', async () => {
    shrinkYoungGeneration();
    stop = boundServeHeap({ heapGrowingPercent: 50, maxSemiSpaceMb: 1 }, '');
    // Two semi-spaces of 1 MiB; at most one doubling past it before the observer runs.
    expect(await churn()).toBeLessThanOrEqual(4 * MiB);
    stop();
    stop = undefined;
    // The same allocation without the bound grows past it (V8's own maximum is 2 × 16 MiB).
    expect(await churn()).toBeGreaterThan(4 * MiB);
  });

  it('shrinks back to the cap a young generation that one synchronous burst grew past it', async () => {
    shrinkYoungGeneration();
    stop = boundServeHeap({ heapGrowingPercent: 50, maxSemiSpaceMb: 1 }, '');
    // No yield: the observer cannot run until the burst is over (as when a module graph loads).
    const inFlight: unknown[] = new Array(200_000);
    for (let i = 0; i < 3_000_000; i += 1) inFlight[i % inFlight.length] = { i, text: `item ${i}` };
    expect(newSpace().space_size).toBeGreaterThan(4 * MiB);
    // Under continued allocation (load), where V8 itself never shrinks it.
    await churn();
    expect(newSpace().space_size).toBeLessThanOrEqual(4 * MiB);
  });

  it('leaves the young generation to an operator who set its size with Node flags', async () => {
    shrinkYoungGeneration();
    stop = boundServeHeap({ heapGrowingPercent: 50, maxSemiSpaceMb: 1 }, '--max-semi-space-size=64');
    expect(await churn()).toBeGreaterThan(4 * MiB);
  });

  it('refuses bounds out of range, naming the field and the rule', () => {
    expect(() => boundServeHeap({ heapGrowingPercent: 0, maxSemiSpaceMb: 4 })).toThrow(
      'heapGrowingPercent must be a whole number from 1 to 300, got 0',
    );
    expect(() => boundServeHeap({ heapGrowingPercent: 50, maxSemiSpaceMb: 3 })).toThrow(
      'maxSemiSpaceMb must be a power of two from 1 to 16, got 3',
    );
    expect(() => releaseStartupMemory({ heapGrowingPercent: 50.5, maxSemiSpaceMb: 4 })).toThrow(
      /heapGrowingPercent/,
    );
  });
});

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

  it('bounds the young generation from then on (two semi-spaces of 4 MiB by default)', async () => {
    releaseStartupMemory();
    expect(await churn()).toBeLessThanOrEqual(2 * 2 * 4 * MiB);
  });
});
