/**
 * The audit log as the server's writers and `sentinel audit` see it whatever the engine: every
 * method returns a promise (PostgreSQL answers asynchronously), with the same semantics as the
 * SQLite `AuditLog` (see `store.ts`). `asyncAuditLog` adapts the SQLite log; `appendSafely` writes
 * a record through either kind and reports a failure instead of throwing. Both engines group
 * appends into shared transactions (`group-commit.ts`).
 */
import type { AuditEntry, AuditRecord, ChainReport, CheckpointRef, StoredRow } from './record.ts';
import type { AuditLog } from './store.ts';
import { groupCommit, type GroupCommitOptions } from './group-commit.ts';

export interface AsyncAuditLog {
  /** Where the log is: the SQLite file's path, or the PostgreSQL URL without its password. */
  readonly location: string;
  /**
   * Appends one record after the current last one (serialised across processes) and returns it
   * once it is committed. Appends made in the same event-loop turn share one transaction
   * (`group-commit.ts`): a failed transaction rejects each of them, and writes none.
   */
  append(entry: AuditEntry): Promise<AuditRecord>;
  /** Resolves once every append made so far has committed or failed. */
  flush(): Promise<void>;
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

/**
 * The SQLite log behind the asynchronous interface, its appends grouped into shared transactions
 * (`log.appendBatch`). `close` waits for appends in flight and is idempotent.
 */
export function asyncAuditLog(log: AuditLog, options: GroupCommitOptions = {}): AsyncAuditLog {
  let open = true;
  const group = groupCommit((batch) => log.appendBatch(batch), options);
  return {
    location: log.file,
    append: (entry) => group.append(entry),
    flush: () => group.settled(),
    rows: async (options) => [...log.rows(options)],
    records: async (options) => log.records(options),
    head: async () => log.head(),
    verify: async (options) => log.verify(options),
    close: async () => {
      await group.settled();
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
