/**
 * The audit log on disk: `<data-dir>/audit.sqlite`, embedded SQLite through `node:sqlite`.
 *
 * Why SQLite rather than a JSON Lines file: appending needs the previous record's hash, and SQLite
 * gives that read and the insert as one transaction (`BEGIN IMMEDIATE`), so two processes on the
 * same data dir (the server and a CLI, or two servers by mistake) never fork the chain; a crash
 * leaves whole records, never a torn line; `--since` is an index range instead of a scan; and it is
 * the same engine and settings (WAL, `synchronous=NORMAL`, busy timeout) as the approval store.
 * Triggers refuse UPDATE and DELETE, so the log is append-only through SQL; whoever edits the file
 * by other means breaks the hash chain, which `verify` detects.
 *
 * Each row keeps the record's canonical JSON exactly as hashed, so `export` prints what was signed.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { SentinelError } from '../../core/index.ts';
import { createPrivateFile } from '../data-dir.ts';
import {
  GENESIS_HASH,
  verifyChain,
  type AuditEntry,
  type AuditRecord,
  type ChainReport,
  type CheckpointRef,
  type StoredRow,
} from './record.ts';
import { prepareEntry, sealRecord, type PreparedEntry } from './seal.ts';

/** File name of the audit log inside the data directory. */
export const AUDIT_FILE = 'audit.sqlite';

const SCHEMA = `
CREATE TABLE IF NOT EXISTS audit_log (
  seq  INTEGER PRIMARY KEY,
  time TEXT NOT NULL,
  hash TEXT NOT NULL,
  json TEXT NOT NULL
) STRICT;
CREATE INDEX IF NOT EXISTS audit_log_time ON audit_log (time);
CREATE TRIGGER IF NOT EXISTS audit_log_no_update BEFORE UPDATE ON audit_log
  BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
CREATE TRIGGER IF NOT EXISTS audit_log_no_delete BEFORE DELETE ON audit_log
  BEGIN SELECT RAISE(ABORT, 'the audit log is append-only'); END;
`;

export interface AuditLog {
  /** Absolute path of the SQLite file. */
  readonly file: string;
  /** Appends one record after the current last one and returns it (with `seq` and hashes). */
  append(entry: AuditEntry): AuditRecord;
  /**
   * Appends `entries` in order after the current last one, in one transaction (`BEGIN IMMEDIATE`):
   * all of them or, when it throws, none. Returns their records in the same order.
   */
  appendBatch(entries: readonly PreparedEntry[]): AuditRecord[];
  /**
   * `appendBatch` without waiting for the write lock: undefined, with nothing written, when another
   * connection holds it (SQLITE_BUSY at `BEGIN IMMEDIATE`). The caller retries later; waiting here
   * would be SQLite's busy handler sleeping in the thread (1, 2, 5, 10 ms … per try), which blocks
   * a server's event loop. Once the lock is taken, it behaves as `appendBatch`.
   */
  tryAppendBatch(entries: readonly PreparedEntry[]): AuditRecord[] | undefined;
  /**
   * Stored rows in order: the record's canonical JSON text and the `time` and `hash` columns; with
   * `since` (ISO 8601), only rows whose `time` column is at or after it.
   */
  rows(options?: { since?: string }): Iterable<Required<StoredRow>>;
  /** Stored records in order, parsed (see `rows`). */
  records(options?: { since?: string }): AuditRecord[];
  /** The last record's `seq`, `hash` and `time` as stored; undefined for an empty log. */
  head(): { seq: number; hash: string; time: string } | undefined;
  /** Recomputes the whole chain and checks it against `checkpoints` (see `verifyChain`). */
  verify(options?: { checkpoints?: readonly CheckpointRef[] }): ChainReport;
  close(): void;
}

export interface OpenAuditLogOptions {
  /**
   * Open an existing log only: throws `SentinelError('not_found')` when the file does not exist
   * (`audit export|verify` must not create an empty log and call it intact).
   */
  mustExist?: boolean;
}

const missingLog = (dataDir: string) =>
  new SentinelError(
    'not_found',
    `No audit log in ${dataDir} (no ${AUDIT_FILE}); pass the server's --data-dir.`,
    {
      field: '--data-dir',
    },
  );

/** How long a blocking statement waits for another connection's lock (SQLite's busy timeout, ms). */
const BUSY_TIMEOUT_MS = 5000;

/** SQLite's primary result code for a lock held by another connection. */
const SQLITE_BUSY = 5;
/** SQLite's primary result codes for a file that is not, or no longer, a readable database. */
const SQLITE_CORRUPT = 11;
const SQLITE_NOTADB = 26;

/**
 * `error` as a `SentinelError('conflict')` naming `file` when SQLite found the file corrupted
 * (bytes overwritten, a truncated page): evidence of tampering, not a bug; other errors as they are.
 */
function unreadable(error: unknown, file: string): unknown {
  const code = (error as { errcode?: unknown }).errcode;
  if (typeof code !== 'number' || ![SQLITE_CORRUPT, SQLITE_NOTADB].includes(code & 0xff)) return error;
  return new SentinelError(
    'conflict',
    `The audit log ${file} is unreadable (${(error as Error).message}): the file is corrupted or was tampered with.`,
    { cause: error },
  );
}

/**
 * Opens (creating when needed, unless `mustExist`) the audit log in `dataDir`. Throws
 * `SentinelError('not_found')` for a missing log with `mustExist`, `unavailable` when the file
 * cannot be opened, and `conflict` naming the file when SQLite finds it corrupted (at open or while
 * reading: `rows`, `records`, `head`, `verify`, appends).
 */
export function openAuditLog(dataDir: string, options: OpenAuditLogOptions = {}): AuditLog {
  const file = join(dataDir, AUDIT_FILE);
  if (options.mustExist && !existsSync(file)) throw missingLog(dataDir);
  let db: DatabaseSync;
  try {
    if (!options.mustExist) {
      mkdirSync(dataDir, { recursive: true, mode: 0o700 });
      createPrivateFile(file);
    }
    db = new DatabaseSync(file);
  } catch (error) {
    throw new SentinelError(
      'unavailable',
      `Cannot open the audit log ${file}: ${(error as Error).message}.`,
      {
        cause: error,
      },
    );
  }
  try {
    return auditLog(db, dataDir, file, options);
  } catch (error) {
    db.close();
    throw unreadable(error, file);
  }
}

/** The log over an open database (see `openAuditLog`). */
function auditLog(db: DatabaseSync, dataDir: string, file: string, options: OpenAuditLogOptions): AuditLog {
  db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
  if (options.mustExist) {
    const exists = db.prepare("SELECT 1 AS found FROM sqlite_master WHERE name = 'audit_log'").get();
    if (!exists) throw missingLog(dataDir);
  }
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec(SCHEMA);

  const last = db.prepare('SELECT seq, hash, time FROM audit_log ORDER BY seq DESC LIMIT 1');
  const insert = db.prepare('INSERT INTO audit_log (seq, time, hash, json) VALUES (?, ?, ?, ?)');
  const all = db.prepare('SELECT seq, time, hash, json FROM audit_log ORDER BY seq');
  const since = db.prepare('SELECT seq, time, hash, json FROM audit_log WHERE time >= ? ORDER BY seq');

  // Rows are read lazily, so a corrupted page surfaces mid-iteration: name the file there too.
  function* rows(options: { since?: string } = {}): Iterable<Required<StoredRow>> {
    try {
      yield* (options.since === undefined ? all.iterate() : since.iterate(options.since)) as Iterable<
        Required<StoredRow>
      >;
    } catch (error) {
      throw unreadable(error, file);
    }
  }
  const guarded =
    <A extends unknown[], R>(fn: (...args: A) => R) =>
    (...args: A): R => {
      try {
        return fn(...args);
      } catch (error) {
        throw unreadable(error, file);
      }
    };

  /**
   * `BEGIN IMMEDIATE` at once: false when another connection holds the write lock. The busy timeout
   * is set with `exec` each time: SQLite applies `PRAGMA busy_timeout = N` when the statement is
   * prepared, so a prepared one re-run would not set it again.
   */
  const beginNow = (): boolean => {
    db.exec('PRAGMA busy_timeout = 0');
    try {
      db.exec('BEGIN IMMEDIATE');
      return true;
    } catch (error) {
      if ((((error as { errcode?: unknown }).errcode as number) & 0xff) === SQLITE_BUSY) return false;
      throw error;
    } finally {
      // Statements inside the transaction (and every other one) wait as before.
      db.exec(`PRAGMA busy_timeout = ${BUSY_TIMEOUT_MS}`);
    }
  };

  // One transaction per batch: the head is read once and each record chains to the one before.
  const appendBatch = (entries: readonly PreparedEntry[]): AuditRecord[] => {
    if (entries.length === 0) return [];
    db.exec('BEGIN IMMEDIATE');
    return writeBatch(entries);
  };
  const tryAppendBatch = (entries: readonly PreparedEntry[]): AuditRecord[] | undefined => {
    if (entries.length === 0) return [];
    return beginNow() ? writeBatch(entries) : undefined;
  };
  /** The inserts and COMMIT of a batch whose transaction has begun (ROLLBACK when one throws). */
  const writeBatch = (entries: readonly PreparedEntry[]): AuditRecord[] => {
    try {
      const head = last.get() as { seq: number; hash: string } | undefined;
      let seq = head?.seq ?? 0;
      let prevHash = head?.hash ?? GENESIS_HASH;
      const records = entries.map((prepared) => {
        const { record, json } = sealRecord(prepared, (seq += 1), prevHash);
        insert.run(record.seq, record.time, record.hash, json);
        prevHash = record.hash;
        return record;
      });
      db.exec('COMMIT');
      return records;
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  };

  return {
    file,
    append: guarded((entry: AuditEntry) => appendBatch([prepareEntry(entry)])[0]!),
    appendBatch: guarded(appendBatch),
    tryAppendBatch: guarded(tryAppendBatch),
    rows,
    records: (options) => [...rows(options)].map((row) => JSON.parse(row.json) as AuditRecord),
    head: guarded(() => last.get() as { seq: number; hash: string; time: string } | undefined),
    verify: (options = {}) => verifyChain(rows(), options),
    close: () => db.close(),
  };
}
