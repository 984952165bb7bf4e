/**
 * Cancellation of the Kubernetes reads a tool call makes when the MCP request behind it is cancelled
 * (or times out). `withCallSignal(signal, run)` runs `run` so that every read the Kubernetes client
 * starts meanwhile — including the later pages of a list and retries — is aborted with `signal`.
 * The signal travels in an `AsyncLocalStorage`, so `KubeReader`/`KubeWriter` and their test fakes
 * keep their signatures. Writes are never aborted once sent: an aborted write may or may not have
 * reached the API server (at most once, with a known outcome, beats a cancelled change in doubt);
 * a write not yet sent when the call is cancelled is not sent.
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
