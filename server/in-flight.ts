/**
 * Calls in flight, so a shutdown closes the stores only after every call has settled: a call
 * cancelled by the shutdown (stdin closed, connections closed) still finishes its middlewares —
 * the gate records its execution, the audit log its record — before the databases close.
 */
import type { Logger } from 'pino';
import type { ToolCallMiddleware } from './pipeline.ts';

/** How long a shutdown waits for calls in flight (ms): a Kubernetes write's own timeout, and some. */
export const SHUTDOWN_GRACE_MS = 15_000;

export interface InFlightCalls {
  /** The outermost `tools/call` middleware: counts the call until every inner middleware returned. */
  middleware: ToolCallMiddleware;
  /** Calls in flight now. */
  readonly size: number;
  /**
   * Resolves once no call is in flight, or after `timeoutMs` (default `SHUTDOWN_GRACE_MS`; then the
   * calls still running are logged at warn level). Resolves `true` when all settled.
   */
  settled(options?: { timeoutMs?: number; logger?: Logger }): Promise<boolean>;
}

/** A tracker of the calls in flight (see the module comment). */
export function trackInFlight(): InFlightCalls {
  const calls = new Set<Promise<unknown>>();
  return {
    middleware: async (_call, next) => {
      const running = next();
      calls.add(running);
      try {
        return await running;
      } finally {
        calls.delete(running);
      }
    },
    get size() {
      return calls.size;
    },
    async settled(options = {}) {
      if (calls.size === 0) return true;
      let timer: NodeJS.Timeout | undefined;
      const timedOut = new Promise<false>((resolve) => {
        timer = setTimeout(() => resolve(false), options.timeoutMs ?? SHUTDOWN_GRACE_MS);
      });
      const all = (async () => {
        while (calls.size > 0) await Promise.allSettled([...calls]);
        return true as const;
      })();
      const done = await Promise.race([all, timedOut]);
      clearTimeout(timer);
      if (!done) options.logger?.warn({ calls: calls.size }, 'shutting down with tool calls still running');
      return done;
    },
  };
}
