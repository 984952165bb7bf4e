/**
 * V8 heap settings of a running `sentinel serve` (issue 17: idle RSS ≤ 120 MB, peak ≤ 300 MB under
 * 200 concurrent readers).
 *
 * Start-up allocates a lot that dies at once (module sources, schemas being built, JSON Schema
 * publication), which grows V8's young generation to its maximum (two 16 MB semi-spaces) and the old
 * generation's pages with it; V8 keeps both, and nothing in a server that then waits for its first
 * request triggers its memory reducer. A full "last resort" collection (V8's
 * `CollectAllAvailableGarbage`, the one it runs before giving up on memory) releases them: about
 * 25 MB of RSS, for one pause of ~0.1 s right after start-up.
 *
 * Under load the peak is V8's heap sizing, not what the server keeps (a full collection after a
 * 200-reader flood leaves the same ~60 MB as after one call): V8 lets the old generation grow to up
 * to 4× what survived its last full collection while the mutator allocates fast, and the young
 * generation back to two 16 MB semi-spaces. `boundServeHeap` bounds both with V8's own sizing flags
 * (no heap limit: the heap still grows as far as the live data needs, so nothing can run out of
 * memory that did not before).
 *
 * The flags are set with `v8.setFlagsFromString` while running, because `sentinel serve` is started
 * by `node bin/sentinel.js`, npx or an init system, none of which passes V8 flags; the two used are
 * read by V8 each time it resizes a space. The collector is reached the way Node documents for a
 * running process: `--expose-gc` set the same way and the `gc` function of a fresh context
 * (`vm.runInNewContext`).
 */
import { PerformanceObserver } from 'node:perf_hooks';
import { getHeapSpaceStatistics, setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type GcFunction = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/** How far V8 may grow the heap of a running server. */
export interface ServeHeapBounds {
  /**
   * Old generation: the next full collection starts once it holds (1 + p/100) × what survived the
   * last one (V8's `--heap-growing-percent`; V8 itself picks 10–300 %, 300 under load). Whole
   * number, 1–300.
   */
  heapGrowingPercent: number;
  /**
   * Young generation: each of its two semi-spaces grows to at most this many MiB (V8's
   * `--max-semi-space-size`, default 16). A power of two, 1–16.
   */
  maxSemiSpaceMb: number;
}

/**
 * Defaults, measured with bench/serve-startup.ts and bench/readpath.ts (issue 17): a full
 * collection every ~1.5× the live heap, and semi-spaces of 4 MiB.
 */
export const SERVE_HEAP_BOUNDS: ServeHeapBounds = { heapGrowingPercent: 50, maxSemiSpaceMb: 4 };

/** V8's default `--semi-space-growth-factor`: a semi-space doubles when it grows. */
const V8_SEMI_SPACE_GROWTH_FACTOR = 2;

/** Shortest time between two collections that shrink a young generation grown past its cap, in ms. */
const SHRINK_INTERVAL_MS = 60_000;

/** Node options naming each bound: an operator who set one (NODE_OPTIONS, node flags) keeps theirs. */
const OPERATOR_FLAGS: Record<keyof ServeHeapBounds, RegExp> = {
  heapGrowingPercent: /--heap[-_]growing[-_]percent\b/,
  maxSemiSpaceMb: /--(max[-_]semi[-_]space[-_]size|semi[-_]space[-_]growth[-_]factor)\b/,
};

/** Throws `Error` naming the field and its rule when `bounds` is out of range. */
function checkBounds(bounds: ServeHeapBounds): void {
  const { heapGrowingPercent: percent, maxSemiSpaceMb: semi } = bounds;
  if (!Number.isInteger(percent) || percent < 1 || percent > 300) {
    throw new Error(`heapGrowingPercent must be a whole number from 1 to 300, got ${percent}`);
  }
  if (!Number.isInteger(semi) || semi < 1 || semi > 16 || (semi & (semi - 1)) !== 0) {
    throw new Error(`maxSemiSpaceMb must be a power of two from 1 to 16, got ${semi}`);
  }
}

/** Bytes V8 has committed to its young generation (both semi-spaces). */
function youngGenerationBytes(): number {
  return getHeapSpaceStatistics().find((space) => space.space_name === 'new_space')?.space_size ?? 0;
}

/**
 * Applies `bounds` to this process's V8 heap until the returned function is called.
 *
 * The old-generation bound is one flag, effective from the next full collection on. The young
 * generation's maximum is fixed when V8 starts, so the cap is kept by V8's growth factor instead:
 * after every collection (a `gc` performance observer) it is 1 (no growth) while the semi-spaces
 * are at the cap and V8's 2 below it, so the young generation still shrinks when V8 reduces memory
 * and grows back up to the cap under load. The observer runs after the collection, so a burst of
 * synchronous allocation (loading a large module graph) can grow it past the cap; then one
 * memory-reducing collection (as `releaseStartupMemory` runs) shrinks it, at most once a minute.
 *
 * `execArgv` and `nodeOptions` (default: this process's) are searched for the corresponding Node
 * flags; a bound the operator set there is left to them. Throws `Error` naming the field when
 * `bounds` is out of range (before changing anything).
 */
export function boundServeHeap(
  bounds: ServeHeapBounds = SERVE_HEAP_BOUNDS,
  nodeFlags = `${process.execArgv.join(' ')} ${process.env.NODE_OPTIONS ?? ''}`,
): () => void {
  checkBounds(bounds);
  if (!OPERATOR_FLAGS.heapGrowingPercent.test(nodeFlags)) {
    setFlagsFromString(`--heap-growing-percent=${bounds.heapGrowingPercent}`);
  }
  if (OPERATOR_FLAGS.maxSemiSpaceMb.test(nodeFlags)) return () => {};
  const cap = 2 * bounds.maxSemiSpaceMb * 2 ** 20;
  let atCap: boolean | undefined;
  let lastShrink = Number.NEGATIVE_INFINITY;
  const check = () => {
    const young = youngGenerationBytes();
    const full = young >= cap;
    if (full !== atCap) {
      atCap = full;
      setFlagsFromString(`--semi-space-growth-factor=${full ? 1 : V8_SEMI_SPACE_GROWTH_FACTOR}`);
    }
    // Grown past the cap in one burst (loading the Kubernetes client does, on first need): V8 only
    // shrinks the young generation when memory is reduced, never under load, so reduce it now.
    if (young > cap && performance.now() - lastShrink >= SHRINK_INTERVAL_MS) {
      lastShrink = performance.now();
      setImmediate(collectAllAvailableGarbage);
    }
  };
  const observer = new PerformanceObserver(check);
  observer.observe({ entryTypes: ['gc'] });
  check();
  return () => {
    observer.disconnect();
    if (atCap) setFlagsFromString(`--semi-space-growth-factor=${V8_SEMI_SPACE_GROWTH_FACTOR}`);
  };
}

/**
 * V8's last-resort collection (described above), synchronous; false when this V8 does not expose
 * the collector that way.
 */
function collectAllAvailableGarbage(): boolean {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('typeof gc === "function" ? gc : undefined') as GcFunction | undefined;
  setFlagsFromString('--no-expose-gc'); // later contexts (vm) do not get it
  if (gc === undefined) return false;
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  return true;
}

let unbound: (() => void) | undefined;

/**
 * Bounds the heap from now on (`boundServeHeap(bounds)` for the life of the process; a later call
 * replaces the earlier bounds), then runs the collection described above, synchronously, so the old
 * generation's next limit is computed with the bound. Returns false (only bounding) when this V8
 * does not expose the collector that way. Called once, when `sentinel serve` (a worker included)
 * has started. Throws `Error` naming the field when `bounds` is out of range.
 */
export function releaseStartupMemory(bounds: ServeHeapBounds = SERVE_HEAP_BOUNDS): boolean {
  checkBounds(bounds);
  unbound?.();
  unbound = boundServeHeap(bounds);
  return collectAllAvailableGarbage();
}
