/**
 * The SQLite store's schema and connection: pragmas (WAL journal, `synchronous=NORMAL`, a busy
 * timeout for a second process such as the CLI, foreign keys), versioned migrations tracked in
 * `PRAGMA user_version`, and the one write-transaction helper every state change runs in.
 */
import { mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import { createPrivateFile } from '../../data-dir.ts';
import { APPROVAL_REQUESTS_V1, columnDefinitions, EXECUTION_COURSE_V1 } from './ddl.ts';

export type Row = Record<string, SQLInputValue>;

/**
 * Ordered schema migrations; `PRAGMA user_version` is the number applied. Append, never edit (the
 * text of each is pinned by test/server/gate/store). Migration 0's `approval_requests` columns are
 * the ones PostgreSQL's first migration creates too (ddl.ts).
 */
export const MIGRATIONS: readonly string[] = [
  `CREATE TABLE approval_requests (
${columnDefinitions(APPROVAL_REQUESTS_V1, '     ')}
   );
   CREATE INDEX approval_requests_by_requested_key ON approval_requests (requester, cluster_context, requested_key);
   CREATE INDEX approval_requests_by_resolved_key ON approval_requests (requester, cluster_context, resolved_key);
   CREATE INDEX approval_requests_by_status ON approval_requests (status, created_at);
   CREATE UNIQUE INDEX approval_requests_one_pending
     ON approval_requests (requester, cluster_context, requested_key) WHERE status = 'pending';
   CREATE TABLE executions (
     id TEXT PRIMARY KEY,
     request_id TEXT REFERENCES approval_requests (id),
     requester TEXT NOT NULL,
     cluster_context TEXT NOT NULL,
     tool TEXT NOT NULL,
     call_key TEXT NOT NULL,
     arguments_json TEXT NOT NULL,
     authorization TEXT NOT NULL,
${columnDefinitions(EXECUTION_COURSE_V1, '     ')}
   );
   CREATE INDEX executions_by_request ON executions (request_id, started_at);
   CREATE INDEX executions_by_call ON executions (requester, cluster_context, call_key, started_at);
   CREATE INDEX executions_by_status ON executions (status);
   CREATE UNIQUE INDEX executions_idempotency ON executions (requester, tool, idempotency_key)
     WHERE idempotency_key IS NOT NULL;
   CREATE TABLE freeze (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     frozen INTEGER NOT NULL,
     reason TEXT,
     frozen_by TEXT,
     since TEXT
   );
   INSERT INTO freeze (id, frozen) VALUES (1, 0);`,
  // Bind requests and executions to the requester's token and to the cluster's API server URL;
  // record why a request was cancelled or superseded; key upstream replays by resolved effect.
  `ALTER TABLE approval_requests ADD COLUMN requester_credential TEXT NOT NULL DEFAULT '';
   ALTER TABLE approval_requests ADD COLUMN status_reason TEXT;
   ALTER TABLE approval_requests ADD COLUMN superseded_by TEXT;
   ALTER TABLE executions ADD COLUMN requester_credential TEXT NOT NULL DEFAULT '';
   ALTER TABLE executions ADD COLUMN cluster_server TEXT NOT NULL DEFAULT '';
   ALTER TABLE executions ADD COLUMN replay_key TEXT;
   CREATE INDEX executions_by_replay_key ON executions (requester, replay_key, started_at);
   CREATE INDEX approval_requests_by_requester_status ON approval_requests (requester, status);`,
];

/**
 * Columns added outside the numbered migrations, each only when missing (`PRAGMA table_info`), so
 * they apply whatever migration number another change appends: the harness tool call a request
 * answers (`client_ref`, unique by key) and the upstream approval an execution ran on.
 */
const ADDED_COLUMNS: readonly { table: string; column: string; type: string }[] = [
  { table: 'approval_requests', column: 'client_ref_json', type: 'TEXT' },
  { table: 'approval_requests', column: 'client_ref_key', type: 'TEXT' },
  { table: 'approval_requests', column: 'upstream_json', type: 'TEXT' },
  // The process that runs an execution (sqlite-owner.ts), so processes sharing the file never
  // settle each other's running calls.
  { table: 'executions', column: 'owner_key', type: 'TEXT' },
  { table: 'executions', column: 'owner_pid', type: 'INTEGER' },
  { table: 'executions', column: 'owner_stamp', type: 'TEXT' },
  { table: 'executions', column: 'reconciling', type: 'INTEGER NOT NULL DEFAULT 0' },
];
const ADDED_INDEXES = [
  `CREATE UNIQUE INDEX IF NOT EXISTS approval_requests_one_per_client_ref
     ON approval_requests (client_ref_key) WHERE client_ref_key IS NOT NULL`,
];

/** Runs `fn` in one `BEGIN IMMEDIATE` write transaction; rolls back on any throw. */
export type Transaction = <T>(fn: () => T) => T;

export function transactionOf(db: DatabaseSync): Transaction {
  return <T>(fn: () => T): T => {
    db.exec('BEGIN IMMEDIATE');
    try {
      const result = fn();
      db.exec('COMMIT');
      return result;
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  };
}

/** Opens `file` (`':memory:'` for tests) with the store's pragmas, creating its directory. */
export function openDatabase(file: string): DatabaseSync {
  if (file !== ':memory:') {
    mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
    createPrivateFile(file);
  }
  const db = new DatabaseSync(file);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('PRAGMA busy_timeout = 5000');
  db.exec('PRAGMA foreign_keys = ON');
  return db;
}

/**
 * Applies the pending migrations and the added columns. Throws (closing `db`) when the file was
 * written by a newer Sentinel (a schema version this build does not know).
 */
export function migrate(db: DatabaseSync, file: string): void {
  const transaction = transactionOf(db);
  const version = Number((db.prepare('PRAGMA user_version').get() as Row).user_version);
  if (version > MIGRATIONS.length) {
    db.close();
    throw new Error(
      `${file} has schema version ${version}, newer than this Sentinel knows (${MIGRATIONS.length}); upgrade Sentinel.`,
    );
  }
  for (let next = version; next < MIGRATIONS.length; next += 1) {
    transaction(() => {
      db.exec(MIGRATIONS[next]!);
      db.exec(`PRAGMA user_version = ${next + 1}`);
    });
  }
  transaction(() => {
    for (const { table, column, type } of ADDED_COLUMNS) {
      const columns = db.prepare(`PRAGMA table_info(${table})`).all() as Row[];
      if (!columns.some((existing) => existing.name === column)) {
        db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`);
      }
    }
    for (const index of ADDED_INDEXES) db.exec(index);
  });
}
