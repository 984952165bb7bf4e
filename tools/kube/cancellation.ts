/**
 * Cancellation of the Kubernetes reads a tool call makes when the MCP request behind it is cancelled
 * (or times out). `withCallSignal(signal, run)` runs `run` so that every read the Kubernetes client
 * starts meanwhile — each page of a list, each retry, and the wait between retries — is aborted
 * with `signal` and fails with `cancelled`. The signal travels in an `AsyncLocalStorage`, so
 * `KubeReader` and its test fakes keep their signatures. Writes ignore it: an aborted write may or
 * may not have reached the API server, and `defineTool` runs an execution (a call holding a writer)
 * without a call signal, so a change is never left half-made or in doubt by a cancellation.
 */
import { AsyncLocalStorage } from 'node:async_hooks';

const callSignal = new AsyncLocalStorage<AbortSignal>();

/** Runs `run` with `signal` as the cancellation of every Kubernetes request it starts. */
export function withCallSignal<T>(signal: AbortSignal, run: () => T): T {
  return callSignal.run(signal, run);
}

/** The cancellation signal of the tool call running now, if any. */
export function currentCallSignal(): AbortSignal | undefined {
  return callSignal.getStore();
}

/** The signal of one API request and how to let go of it once the request is answered. */
export interface RequestSignal {
  signal: AbortSignal;
  /** Clears the timeout and stops following the caller's signal (call when the request settled). */
  release(): void;
}

/**
 * The signal of one API request: aborted after `timeoutMs` with a `TimeoutError` DOMException (as
 * `AbortSignal.timeout` does; its timer does not keep the process alive), or with `caller`'s reason
 * when `caller` aborts first — what `AbortSignal.any([AbortSignal.timeout(ms), caller])` gives, for
 * a fraction of its cost (`any` keeps weak references to every source signal and tracks them until
 * garbage collection; this was a tenth of a read's CPU). Call `release()` when the request settles.
 */
export function requestSignal(timeoutMs: number, caller?: AbortSignal): RequestSignal {
  const controller = new AbortController();
  const timer = setTimeout(() => {
    controller.abort(new DOMException('The operation was aborted due to timeout', 'TimeoutError'));
  }, timeoutMs);
  timer.unref();
  if (!caller) return { signal: controller.signal, release: () => clearTimeout(timer) };
  if (caller.aborted) {
    clearTimeout(timer);
    controller.abort(caller.reason);
    return { signal: controller.signal, release: () => {} };
  }
  const follow = () => controller.abort(caller.reason);
  caller.addEventListener('abort', follow, { once: true });
  return {
    signal: controller.signal,
    release: () => {
      clearTimeout(timer);
      caller.removeEventListener('abort', follow);
    },
  };
}
