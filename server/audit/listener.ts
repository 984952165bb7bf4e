/**
 * Records approval events (created, decided, withdrawn, expired) and calls refused before the
 * middlewares (unknown tool, invalid arguments, not authenticated) in the audit log.
 */
import type { Logger } from 'pino';
import type { ApprovalEventListener, ExecutionSettledListener } from '../gate/events.ts';
import type { RejectedCallListener } from '../pipeline.ts';
import { approvalEventEntry, rejectedCallEntry, settledExecutionEntry } from './entries.ts';
import { appendSafely, type AuditAppender } from './async-log.ts';

export function auditEventListener(
  log: AuditAppender,
  options: { logger?: Logger; now?: () => Date; onWriteError?: (error: unknown) => void } = {},
): ApprovalEventListener {
  const now = options.now ?? (() => new Date());
  return (event) => {
    const failed = (error: unknown) => {
      options.logger?.error(
        { err: error, event: event.type, approvalRequestId: event.request.id },
        'audit record not written',
      );
      options.onWriteError?.(error);
    };
    try {
      const entry = approvalEventEntry(event, now());
      if (entry) void appendSafely(log, entry, failed);
    } catch (error) {
      failed(error);
    }
  };
}

/** Appends one `rejected` record per refused call; a write failure is logged and counted, never thrown. */
export function auditRejectionListener(
  log: AuditAppender,
  options: { logger?: Logger; onWriteError?: (error: unknown) => void } = {},
): RejectedCallListener {
  return (rejection) => {
    const failed = (error: unknown) => {
      options.logger?.error(
        { err: error, tool: rejection.tool, requestId: rejection.requestId },
        'audit record not written',
      );
      options.onWriteError?.(error);
    };
    try {
      void appendSafely(log, rejectedCallEntry(rejection), failed);
    } catch (error) {
      failed(error);
    }
  };
}

/** Appends one `execution` record per execution the reconciler settled; a write failure is logged. */
export function auditSettledListener(
  log: AuditAppender,
  options: { logger?: Logger; now?: () => Date; onWriteError?: (error: unknown) => void } = {},
): ExecutionSettledListener {
  const now = options.now ?? (() => new Date());
  return (event) => {
    const failed = (error: unknown) => {
      options.logger?.error(
        { err: error, event: event.type, executionId: event.execution.id },
        'audit record not written',
      );
      options.onWriteError?.(error);
    };
    try {
      void appendSafely(log, settledExecutionEntry(event, now()), failed);
    } catch (error) {
      failed(error);
    }
  };
}
