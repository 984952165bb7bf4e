/**
 * Records approval events (created, decided, withdrawn, expired) and calls refused before the
 * middlewares (unknown tool, invalid arguments, not authenticated) in the audit log.
 */
import type { Logger } from 'pino';
import type { ApprovalEventListener, ExecutionSettledListener } from '../gate/events.ts';
import type { RejectedCallListener } from '../pipeline.ts';
import { approvalEventEntry, rejectedCallEntry, settledExecutionEntry } from './entries.ts';
import { appendSafely, type AuditAppender } from './async-log.ts';
import type { AuditEntry } from './record.ts';

interface ListenerOptions {
  logger?: Logger;
  now?: () => Date;
  onWriteError?: (error: unknown) => void;
}

/**
 * A listener that appends `entryOf(event, now)` to `log` without waiting for the write (no entry:
 * nothing to record). A write that fails, or an entry that cannot be built, is logged as
 * `audit record not written` with `context(event)` and passed to `onWriteError`; it never reaches
 * the caller.
 */
function appendingListener<E>(
  log: AuditAppender,
  options: ListenerOptions,
  context: (event: E) => Record<string, unknown>,
  entryOf: (event: E, now: Date) => AuditEntry | undefined,
): (event: E) => void {
  const now = options.now ?? (() => new Date());
  return (event) => {
    const failed = (error: unknown) => {
      options.logger?.error({ err: error, ...context(event) }, 'audit record not written');
      options.onWriteError?.(error);
    };
    try {
      const entry = entryOf(event, now());
      if (entry) void appendSafely(log, entry, failed);
    } catch (error) {
      failed(error);
    }
  };
}

/** Appends one record per approval event that has one; a write failure is logged and counted, never thrown. */
export function auditEventListener(log: AuditAppender, options: ListenerOptions = {}): ApprovalEventListener {
  return appendingListener(
    log,
    options,
    (event) => ({ event: event.type, approvalRequestId: event.request.id }),
    approvalEventEntry,
  );
}

/** Appends one `rejected` record per refused call; a write failure is logged and counted, never thrown. */
export function auditRejectionListener(
  log: AuditAppender,
  options: Omit<ListenerOptions, 'now'> = {},
): RejectedCallListener {
  return appendingListener(
    log,
    options,
    (rejection) => ({ tool: rejection.tool, requestId: rejection.requestId }),
    (rejection) => rejectedCallEntry(rejection),
  );
}

/** Appends one `execution` record per execution the reconciler settled; a write failure is logged. */
export function auditSettledListener(
  log: AuditAppender,
  options: ListenerOptions = {},
): ExecutionSettledListener {
  return appendingListener(
    log,
    options,
    (event) => ({ event: event.type, executionId: event.execution.id }),
    settledExecutionEntry,
  );
}
