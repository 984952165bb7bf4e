/**
 * `ApprovalStore` on embedded SQLite (`node:sqlite`): one file in the data directory, WAL journal,
 * `synchronous=NORMAL` (durable at checkpoints, never corrupt), a busy timeout for a second process
 * (the CLI) touching the same file, versioned migrations tracked in `PRAGMA user_version`, and one
 * `BEGIN IMMEDIATE` transaction around every state change. Request statuses change only as the
 * transition table says (transitions.ts, applied by sqlite-transitions.ts).
 *
 * Pieces: sqlite-schema.ts (connection, migrations), rows.ts (rows ⇄ records, shared with the
 * PostgreSQL store) and sqlite-rows.ts (its statements),
 * sqlite-requests.ts (requests), sqlite-executions.ts (executions); the freeze switch is here.
 */
import { join } from 'node:path';
import type { DatabaseSync } from 'node:sqlite';
import type { FreezeState } from '../approval-request.ts';
import { strOrNull } from './rows.ts';
import { requestReader } from './sqlite-rows.ts';
import { executionMethods } from './sqlite-executions.ts';
import { requestMethods, type SqliteContext } from './sqlite-requests.ts';
import { migrate, openDatabase, transactionOf, type Row } from './sqlite-schema.ts';
import { eventApplier } from './sqlite-transitions.ts';
import { ALL } from './transition-sql.ts';
import type { ApprovalStore } from './types.ts';

/** File name of the store inside the data directory. */
export const STORE_FILE = 'sentinel.db';

function freezeMethods(context: SqliteContext): Pick<ApprovalStore, 'getFreeze' | 'setFreeze'> {
  const { db } = context;
  const getFreeze = async (): Promise<FreezeState> => {
    const row = db.prepare('SELECT * FROM freeze WHERE id = 1').get() as Row;
    return {
      frozen: Number(row.frozen) === 1,
      reason: strOrNull(row.reason),
      by: strOrNull(row.frozen_by),
      since: strOrNull(row.since),
    };
  };
  return {
    getFreeze,
    async setFreeze(frozen, reason, by, now) {
      context.transaction(() => {
        db.prepare('UPDATE freeze SET frozen = ?, reason = ?, frozen_by = ?, since = ? WHERE id = 1').run(
          frozen ? 1 : 0,
          frozen ? reason : null,
          frozen ? by : null,
          frozen ? now.toISOString() : null,
        );
      });
      return getFreeze();
    },
  };
}

function contextOf(db: DatabaseSync): SqliteContext {
  const apply = eventApplier(db);
  const unreported = new Set<string>();
  return {
    db,
    transaction: transactionOf(db),
    requests: requestReader(db),
    apply,
    unreported,
    expire(now) {
      for (const id of apply('expire', now, ALL)) unreported.add(id);
    },
  };
}

/**
 * Opens (creating if needed) the store at `<dataDir>/sentinel.db`, or at `file` when given
 * (`':memory:'` for tests). Applies pending migrations. Throws if the file was written by a newer
 * Sentinel (a schema version this build does not know).
 */
export function openSqliteStore(options: { dataDir: string } | { file: string }): ApprovalStore {
  const file = 'file' in options ? options.file : join(options.dataDir, STORE_FILE);
  const db = openDatabase(file);
  migrate(db, file);
  const context = contextOf(db);
  return {
    ...requestMethods(context),
    ...executionMethods(context),
    ...freezeMethods(context),
    async close() {
      if (db.isOpen) db.close();
    },
  };
}
