/**
 * V8's garbage collector in `sentinel serve --workers N` workers.
 *
 * A Node.js process collects garbage on its main thread and, in parallel and concurrently, on V8's
 * helper threads (one per core but one): under load one server keeps ~1.12 cores busy on this
 * project's 2-core bench machine, 0.12 of it those helpers (issue 17). With one worker per core the
 * helpers have no idle core left: they take CPU from the other workers and add the cost of handing
 * work between threads. V8's `--single-threaded-gc` runs the same collections on the main thread
 * only; measured on 2 cores with 2 workers (bench/readpath.ts), 2,568 RPS with it against 2,439
 * without.
 */
import { availableParallelism } from 'node:os';

/** The flag that makes each worker collect garbage on its own main thread. */
export const SINGLE_THREADED_GC_FLAG = '--single-threaded-gc';

/**
 * V8 flags an operator may have set to choose how garbage is collected; when any is present the
 * workers get the operator's flags unchanged.
 */
const OPERATOR_GC_FLAGS =
  /--(no[-_])?(single[-_]threaded([-_]gc)?|parallel[-_](scavenge|marking|compaction|pointer[-_]update)|concurrent[-_](marking|sweeping)|v8[-_]pool[-_]size)\b/;

/**
 * The `execArgv` for the workers of `--workers count`: `execArgv` (this process's by default),
 * plus `--single-threaded-gc` when there are at least as many workers as cores (`cores`, default
 * `os.availableParallelism()`). Unchanged when fewer workers leave a core to the helper threads, or
 * when the operator set a GC-threading flag in `execArgv` or `nodeOptions` (`NODE_OPTIONS`).
 */
export function workerExecArgv(
  count: number,
  options: { cores?: number; execArgv?: readonly string[]; nodeOptions?: string } = {},
): string[] {
  const execArgv = [...(options.execArgv ?? process.execArgv)];
  const cores = options.cores ?? availableParallelism();
  const operatorFlags = `${execArgv.join(' ')} ${options.nodeOptions ?? process.env.NODE_OPTIONS ?? ''}`;
  if (count < cores || OPERATOR_GC_FLAGS.test(operatorFlags)) return execArgv;
  return [...execArgv, SINGLE_THREADED_GC_FLAG];
}
