/**
 * The transition table's SQL (transition-sql.ts) as prepared SQLite statements: every status change
 * of the SQLite store goes through `eventApplier`.
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import type { Row } from './sqlite-schema.ts';
import { eventParams, eventStatement, type Clause, type EventStatement } from './transition-sql.ts';
import type { RequestEvent } from './transitions.ts';

export { byId, type Clause } from './transition-sql.ts';

/** Applies table events to the requests of one database. */
export type ApplyEvent = (event: RequestEvent, now: Date, where: Clause, set?: Clause) => string[];

/**
 * Builds `applyEvent` for `db`: moves every request matching `where` along `event` as the table
 * says (rows whose status or guard does not allow it are left alone), also setting `set`'s columns,
 * and returns the ids it changed. Runs inside the caller's transaction.
 */
export function eventApplier(db: DatabaseSync): ApplyEvent {
  const statements = new Map<string, { prepared: StatementSync; statement: EventStatement }>();
  return (event, now, where, set) => {
    const key = `${event}\u0000${where.sql}\u0000${set?.sql ?? ''}`;
    let entry = statements.get(key);
    if (!entry) {
      const statement = eventStatement(event, where.sql, set?.sql);
      entry = { prepared: db.prepare(statement.sql), statement };
      statements.set(key, entry);
    }
    const params = eventParams(entry.statement, now, where, set) as SQLInputValue[];
    return (entry.prepared.all(...params) as Row[]).map((row) => String(row.id));
  };
}
