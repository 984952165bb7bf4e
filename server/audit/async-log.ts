/**
 * The audit log as the server's writers and `sentinel audit` see it whatever the engine: every
 * method returns a promise (PostgreSQL answers asynchronously), with the same semantics as the
 * SQLite `AuditLog` (see `store.ts`). `asyncAuditLog` adapts the SQLite log; `appendSafely` writes
 * a record through either kind and reports a failure instead of throwing.
 */
import type { AuditEntry, AuditRecord, ChainReport, CheckpointRef, StoredRow } from './record.ts';
import type { AuditLog } from './store.ts';

export interface AsyncAuditLog {
  /** Where the log is: the SQLite file's path, or the PostgreSQL URL without its password. */
  readonly location: string;
  /** Appends one record after the current last one (serialised across processes) and returns it. */
  append(entry: AuditEntry): Promise<AuditRecord>;
  /** Stored rows in order (see `AuditLog.rows`). */
  rows(options?: { since?: string }): Promise<Required<StoredRow>[]>;
  records(options?: { since?: string }): Promise<AuditRecord[]>;
  head(): Promise<{ seq: number; hash: string; time: string } | undefined>;
  verify(options?: { checkpoints?: readonly CheckpointRef[] }): Promise<ChainReport>;
  close(): Promise<void>;
}

/** What a writer needs: SQLite's synchronous `append` or PostgreSQL's asynchronous one. */
export interface AuditAppender {
  append(entry: AuditEntry): AuditRecord | Promise<AuditRecord>;
}

/** The SQLite log behind the asynchronous interface (`close` is idempotent). */
export function asyncAuditLog(log: AuditLog): AsyncAuditLog {
  let open = true;
  return {
    location: log.file,
    append: async (entry) => log.append(entry),
    rows: async (options) => [...log.rows(options)],
    records: async (options) => log.records(options),
    head: async () => log.head(),
    verify: async (options) => log.verify(options),
    close: async () => {
      if (open) log.close();
      open = false;
    },
  };
}

/**
 * Appends `entry` to `log`; a synchronous throw or a rejected promise goes to `onError` (never
 * thrown). Resolves when the record is written or the failure reported.
 */
export async function appendSafely(
  log: AuditAppender,
  entry: AuditEntry,
  onError: (error: unknown) => void,
): Promise<void> {
  try {
    await log.append(entry);
  } catch (error) {
    onError(error);
  }
}
