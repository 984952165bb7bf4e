/**
 * One memory-reducing garbage collection once `sentinel serve` has started (issue 17: idle RSS
 * ≤ 120 MB). Start-up allocates a lot that dies at once (module sources, schemas being built, JSON
 * Schema publication), which grows V8's young generation to its maximum (two 16 MB semi-spaces)
 * and the old generation's pages with it; V8 keeps both, and nothing in a server that then waits
 * for its first request triggers its memory reducer. A full "last resort" collection (V8's
 * `CollectAllAvailableGarbage`, the one it runs before giving up on memory) releases them: about
 * 25 MB of RSS, for one pause of ~0.1 s right after start-up. Under load the young generation grows
 * back to what the traffic needs.
 *
 * The collector is reached the way Node documents for a running process: `--expose-gc` set with
 * `v8.setFlagsFromString` and the `gc` function of a fresh context (`vm.runInNewContext`).
 */
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

type GcFunction = (options: { type: 'major'; execution: 'sync'; flavor: 'last-resort' }) => void;

/**
 * Runs the collection described above, synchronously; returns false (doing nothing) when this V8
 * does not expose the collector that way.
 */
export function releaseStartupMemory(): boolean {
  setFlagsFromString('--expose-gc');
  const gc = runInNewContext('typeof gc === "function" ? gc : undefined') as GcFunction | undefined;
  setFlagsFromString('--no-expose-gc'); // later contexts (vm) do not get it
  if (gc === undefined) return false;
  gc({ type: 'major', execution: 'sync', flavor: 'last-resort' });
  return true;
}
