/**
 * The audit `tools/call` middleware: one record per call that reaches the middlewares, written
 * after the call finishes (so it carries the outcome and duration). It must wrap the approval gate
 * (come before it in the plugin list) to see held and denied calls.
 */
import type { Logger } from 'pino';
import type { ApprovalRequest } from '../gate/approval-request.ts';
import type { ToolCallMiddleware } from '../pipeline.ts';
import { approvalRequestIdOf, toolCallEntry } from './entries.ts';
import type { AuditAppender } from './async-log.ts';

export interface AuditMiddlewareOptions {
  /** The SQLite log or the PostgreSQL one (anything with `append`). */
  log: AuditAppender;
  logger?: Logger;
  /** Clock for the record's `time`. Default `() => new Date()`. */
  now?: () => Date;
  /**
   * Finds the approval request a result names (`_meta.approval_request_id`) when the gate's note
   * carries none (a call no gate saw). Must only read. The server wires none: the gate's note
   * (`call.notes.gate.request`) carries the request.
   */
  approval?: (id: string) => Promise<ApprovalRequest | undefined>;
  /** Called when a record could not be written (after logging it), e.g. to count it. */
  onWriteError?: (error: unknown) => void;
}

/**
 * Builds the middleware. The record is written (its transaction committed) before the call's
 * result is returned. A failure to write it is logged at error level, passed to `onWriteError`, and
 * never changes the call's result (the call already ran; failing it afterwards would misreport what
 * happened).
 */
export function createAuditMiddleware(options: AuditMiddlewareOptions): ToolCallMiddleware {
  const { log, logger, approval } = options;
  const now = options.now ?? (() => new Date());
  return async function auditLog(call, next) {
    const startedAt = now();
    const started = performance.now();
    const result = await next();
    const durationMs = performance.now() - started;
    try {
      const id = call.notes.gate?.approvalRequestId ?? approvalRequestIdOf(result);
      const request =
        call.notes.gate?.request ??
        (id !== undefined && approval ? await approval(id).catch(() => undefined) : undefined);
      await log.append(
        toolCallEntry({ call, result, startedAt, durationMs, ...(request && { approval: request }) }),
      );
    } catch (error) {
      logger?.error(
        { err: error, tool: call.tool.name, requestId: call.requestId },
        'audit record not written',
      );
      options.onWriteError?.(error);
    }
    return result;
  };
}
