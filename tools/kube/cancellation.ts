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
