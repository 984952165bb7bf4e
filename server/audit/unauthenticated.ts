/**
 * Requests without a valid token, recorded in the audit log in aggregate: at most one
 * `unauthenticated` record per source (remote address) per window (default one minute), carrying
 * how many requests came, when the first and the last arrived, and how many per route. One record
 * per request would let any process that can reach the port grow the log without limit; an
 * authenticated caller still gets one record per `tools/call`.
 */
import type { Logger } from 'pino';
import { UNAUTHENTICATED, UNREAD_TOOL } from '../pipeline.ts';
import type { AuditEntry } from './record.ts';
import { appendSafely, type AuditAppender } from './async-log.ts';

/** Sources tracked per window; requests from further sources are counted under `OTHER_SOURCE`. */
export const MAX_SOURCES = 1000;
export const OTHER_SOURCE = '(other)';

/** One request refused for its token. */
export interface UnauthenticatedRequest {
  at: Date;
  /** Remote address (`req.socket.remoteAddress`). */
  source: string;
  /** `METHOD /first-path-segment`, e.g. `POST /mcp`. */
  route: string;
}

export interface UnauthenticatedAudit {
  /** Counts one request into its source's current window. */
  record(request: UnauthenticatedRequest): void;
  /** Writes one record per source seen since the last flush, and starts new windows. */
  flush(): void;
  /** Stops the window timer and flushes (call before closing the log). */
  close(): void;
}

interface Window {
  count: number;
  first: Date;
  last: Date;
  routes: Map<string, number>;
}

/** The aggregated entry of one source's window. */
export function unauthenticatedEntry(source: string, window: Window): AuditEntry {
  return {
    kind: 'unauthenticated',
    time: window.first.toISOString(),
    request_id: null,
    identity: UNAUTHENTICATED,
    cluster: null,
    tool: UNREAD_TOOL,
    arguments: {},
    rule: null,
    decision: null,
    approval_request_id: null,
    approver: null,
    decision_time: null,
    reason: null,
    outcome: 'rejected',
    duration_ms: null,
    error: { code: 'unauthorized', message: 'Missing, unknown or revoked bearer token.' },
    unauthenticated: {
      source,
      count: window.count,
      first: window.first.toISOString(),
      last: window.last.toISOString(),
      routes: Object.fromEntries([...window.routes].sort(([a], [b]) => (a < b ? -1 : 1))),
    },
  };
}

/**
 * Aggregates unauthenticated requests into `log` (see the module comment): windows of `windowMs`
 * (default 60 s, unref'd timer). A failed write is logged and passed to `onWriteError`, never thrown.
 */
export function createUnauthenticatedAudit(
  log: AuditAppender,
  options: { windowMs?: number; logger?: Logger; onWriteError?: (error: unknown) => void } = {},
): UnauthenticatedAudit {
  let windows = new Map<string, Window>();
  const flush = () => {
    const closing = windows;
    windows = new Map();
    for (const [source, window] of closing) {
      const failed = (error: unknown) => {
        options.logger?.error({ err: error, source }, 'audit record not written');
        options.onWriteError?.(error);
      };
      try {
        void appendSafely(log, unauthenticatedEntry(source, window), failed);
      } catch (error) {
        failed(error);
      }
    }
  };
  const timer = setInterval(flush, options.windowMs ?? 60_000);
  timer.unref();
  return {
    record({ at, source, route }) {
      const key = windows.has(source) || windows.size < MAX_SOURCES ? source : OTHER_SOURCE;
      const window = windows.get(key) ?? { count: 0, first: at, last: at, routes: new Map() };
      window.count += 1;
      window.last = at;
      window.routes.set(route, (window.routes.get(route) ?? 0) + 1);
      windows.set(key, window);
    },
    flush,
    close() {
      clearInterval(timer);
      flush();
    },
  };
}
