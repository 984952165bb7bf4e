/**
 * Records approval events (created, decided, withdrawn, expired) in the audit log.
 */
import type { Logger } from 'pino';
import type { ApprovalEventListener } from '../gate/events.ts';
import { approvalEventEntry } from './entries.ts';
import type { AuditLog } from './store.ts';

export function auditEventListener(
  log: AuditLog,
  options: { logger?: Logger; now?: () => Date; onWriteError?: (error: unknown) => void } = {},
): ApprovalEventListener {
  const now = options.now ?? (() => new Date());
  return (event) => {
    try {
      const entry = approvalEventEntry(event, now());
      if (entry) log.append(entry);
    } catch (error) {
      options.logger?.error(
        { err: error, event: event.type, approvalRequestId: event.request.id },
        'audit record not written',
      );
      options.onWriteError?.(error);
    }
  };
}
