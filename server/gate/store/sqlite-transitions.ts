/**
 * The transition table (transitions.ts) in SQL: every status change of the SQLite store is one
 * `UPDATE … SET status = CASE …` built from the table's rows for the event, each row's guard
 * written as a condition — so a status the table does not list for the event never changes.
 */
import type { DatabaseSync, SQLInputValue, StatementSync } from 'node:sqlite';
import type { Row } from './sqlite-schema.ts';
import { TRANSITIONS, type Guard, type RequestEvent } from './transitions.ts';

/** Each guard as a condition on `approval_requests`; `?` is the transition's `now`. */
const GUARD_SQL: Record<Guard, string> = {
  unexpired: 'expires_at > ?',
  due: 'expires_at <= ?',
  grant_unexpired: 'grant_expires_at > ?',
  grant_due: 'grant_expires_at <= ?',
  unused: 'NOT EXISTS (SELECT 1 FROM executions WHERE executions.request_id = approval_requests.id)',
};

/** A piece of SQL with its parameters, in order. */
export interface Clause {
  sql: string;
  params: SQLInputValue[];
}

/** Applies table events to the requests of one database. */
export type ApplyEvent = (event: RequestEvent, now: Date, where: Clause, set?: Clause) => string[];

/** The `UPDATE` of `event`, and whether each of its guards takes `now`. */
function eventSql(event: RequestEvent, where: string, set: string | undefined) {
  const rows = TRANSITIONS.filter((transition) => transition.event === event);
  const whens = rows.map((row) => `WHEN '${row.from}' THEN '${row.to}'`).join(' ');
  const legal = rows
    .map((row) => `(status = '${row.from}'${row.guard ? ` AND ${GUARD_SQL[row.guard]}` : ''})`)
    .join(' OR ');
  const nowParams = rows.filter((row) => row.guard && GUARD_SQL[row.guard].includes('?')).length;
  return {
    sql: `UPDATE approval_requests SET status = CASE status ${whens} END${set ? `, ${set}` : ''}
          WHERE (${where}) AND (${legal}) RETURNING id`,
    nowParams,
  };
}

/**
 * Builds `applyEvent` for `db`: moves every request matching `where` along `event` as the table
 * says (rows whose status or guard does not allow it are left alone), also setting `set`'s columns,
 * and returns the ids it changed. Runs inside the caller's transaction.
 */
export function eventApplier(db: DatabaseSync): ApplyEvent {
  const statements = new Map<string, { statement: StatementSync; nowParams: number }>();
  return (event, now, where, set) => {
    const key = `${event}\u0000${where.sql}\u0000${set?.sql ?? ''}`;
    let prepared = statements.get(key);
    if (!prepared) {
      const { sql, nowParams } = eventSql(event, where.sql, set?.sql);
      prepared = { statement: db.prepare(sql), nowParams };
      statements.set(key, prepared);
    }
    const at = now.toISOString();
    const params = [
      ...(set?.params ?? []),
      ...where.params,
      ...Array.from({ length: prepared.nowParams }, () => at),
    ];
    return (prepared.statement.all(...params) as Row[]).map((row) => String(row.id));
  };
}

/** `where` for one request. */
export const byId = (id: string): Clause => ({ sql: 'id = ?', params: [id] });
