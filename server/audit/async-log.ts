/**
 * The audit log as the server's writers and `sentinel audit` see it whatever the engine: every
 * method returns a promise (PostgreSQL answers asynchronously), with the same semantics as the
 * SQLite `AuditLog` (see `store.ts`). `asyncAuditLog` adapts the SQLite log; `appendSafely` writes
 * a record through either kind and reports a failure instead of throwing. Both engines group
 * appends into shared transactions (`group-commit.ts`).
 */
import pRetry from 'p-retry';
import { SentinelError } from '../../core/index.ts';
import type { AuditEntry, AuditRecord, ChainReport, CheckpointRef, StoredRow } from './record.ts';
import type { PreparedEntry } from './seal.ts';
import type { AuditLog } from './store.ts';
import { groupCommit, type GroupCommitOptions } from './group-commit.ts';

/** How long an append waits for another connection's write lock before it fails (ms; SQLite's busy timeout). */
const LOCK_WAIT_MS = 5000;

export interface AsyncAuditLogOptions extends GroupCommitOptions {
  /** How long a batch waits for the write lock held by another connection before it fails, ms (default 5000). */
  lockWaitMs?: number;
}

/** A batch found the write lock held by another connection (retried until `lockWaitMs`). */
class LockHeld extends SentinelError {}

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
 * (`log.tryAppendBatch`). A batch that finds the write lock held by another connection (another
 * `--workers` worker, a CLI) is retried after 1, 2, 4 … 16 ms (p-retry) while the event loop serves
 * on — appends made meanwhile queue for the next batch — and fails with
 * `SentinelError('unavailable')`, writing nothing, once the lock was held for `lockWaitMs`.
 * `close` waits for appends in flight and is idempotent.
 */
export function asyncAuditLog(log: AuditLog, options: AsyncAuditLogOptions = {}): AsyncAuditLog {
  let open = true;
  const lockWaitMs = options.lockWaitMs ?? LOCK_WAIT_MS;
  const attempt = (batch: readonly PreparedEntry[]) => {
    const records = log.tryAppendBatch(batch);
    if (records) return records;
    throw new LockHeld(
      'unavailable',
      `The audit log ${log.file} stayed locked by another process for ${lockWaitMs} ms; the record was not written.`,
    );
  };
  const group = groupCommit(
    (batch) =>
      pRetry(() => attempt(batch), {
        retries: Number.POSITIVE_INFINITY,
        minTimeout: 1,
        factor: 2,
        maxTimeout: 16,
        maxRetryTime: lockWaitMs,
        shouldRetry: ({ error }) => error instanceof LockHeld,
      }),
    options,
  );
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
