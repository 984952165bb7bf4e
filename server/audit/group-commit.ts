/**
 * Group commit of audit appends: appends made while the event loop runs one turn (everything
 * before the next `setImmediate`), or while the previous batch is being written, go to the log in
 * one transaction — one `BEGIN IMMEDIATE`/`COMMIT` (SQLite) or one locked transaction (PostgreSQL)
 * for the lot instead of one each, which is most of an append's cost.
 *
 * Guarantees, the same as one transaction per append: records are chained in the order `append`
 * was called in this process; a caller's promise resolves only once the transaction holding its
 * record committed (the record is durable and other handles see it); a batch that fails rejects
 * every caller in it with the error, and none of its records is written (the transaction rolled
 * back) — nothing is lost silently. An entry that cannot be serialised rejects its own append
 * before it joins a batch, so it never fails the others.
 */
import type { AuditEntry, AuditRecord } from './record.ts';
import { prepareEntry, type PreparedEntry } from './seal.ts';

/** Writes one batch in one transaction, all or none; returns the records in the batch's order. */
export type CommitBatch = (batch: readonly PreparedEntry[]) => AuditRecord[] | Promise<AuditRecord[]>;

export interface GroupCommitOptions {
  /** Most entries in one transaction (bounds a transaction's size and a PostgreSQL statement's parameters). Default 256. */
  maxBatch?: number;
  /** Told the size of every batch committed (benchmarks and tests read it). */
  onBatch?: (size: number) => void;
}

export interface GroupCommit {
  /** Queues `entry`; resolves with its record once committed, rejects when its batch failed. */
  append(entry: AuditEntry): Promise<AuditRecord>;
  /** Resolves once every append queued so far has committed or failed. */
  settled(): Promise<void>;
}

interface Waiting {
  prepared: PreparedEntry;
  resolve: (record: AuditRecord) => void;
  reject: (error: unknown) => void;
}

/** Builds a group commit over `commit` (see the module comment). */
export function groupCommit(commit: CommitBatch, options: GroupCommitOptions = {}): GroupCommit {
  const maxBatch = options.maxBatch ?? 256;
  let queue: Waiting[] = [];
  let scheduled = false;
  let writing: Promise<void> | undefined;
  let idle: { promise: Promise<void>; resolve: () => void } | undefined;

  const schedule = () => {
    if (scheduled || writing) return;
    scheduled = true;
    setImmediate(flush);
  };

  const write = async (batch: Waiting[]): Promise<void> => {
    try {
      const records = await commit(batch.map((waiting) => waiting.prepared));
      if (records.length !== batch.length) {
        throw new Error(`audit batch of ${batch.length} committed ${records.length} records`);
      }
      options.onBatch?.(batch.length);
      batch.forEach((waiting, i) => waiting.resolve(records[i]!));
    } catch (error) {
      for (const waiting of batch) waiting.reject(error);
    }
  };

  function flush(): void {
    scheduled = false;
    const batch = queue.slice(0, maxBatch);
    queue = queue.slice(batch.length);
    writing = write(batch).finally(() => {
      writing = undefined;
      if (queue.length > 0) schedule();
      else if (idle) {
        idle.resolve();
        idle = undefined;
      }
    });
  }

  return {
    append(entry) {
      let prepared: PreparedEntry;
      try {
        prepared = prepareEntry(entry);
      } catch (error) {
        return Promise.reject(error);
      }
      return new Promise<AuditRecord>((resolve, reject) => {
        queue.push({ prepared, resolve, reject });
        schedule();
      });
    },
    settled() {
      if (queue.length === 0 && !writing) return Promise.resolve();
      if (!idle) {
        let resolve!: () => void;
        const promise = new Promise<void>((done) => (resolve = done));
        idle = { promise, resolve };
      }
      return idle.promise;
    },
  };
}
