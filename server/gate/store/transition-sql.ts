/**
 * The transition table (transitions.ts) in SQL, for both stores: a status change is one
 * `UPDATE … SET status = CASE …` built from the table's rows for the event, each row's guard written
 * as a condition — so a status the table does not list for the event never changes. Engine-neutral
 * SQL (`?` placeholders; ISO 8601 text timestamps compare as instants in SQLite and PostgreSQL).
 */
import { statusesFor, TRANSITIONS, type Guard, type RequestEvent } from './transitions.ts';

/** Each guard as a condition on `approval_requests`; `?` is the transition's `now`. */
export const GUARD_SQL: Record<Guard, string> = {
  unexpired: 'expires_at > ?',
  due: 'expires_at <= ?',
  grant_unexpired: 'grant_expires_at > ?',
  grant_due: 'grant_expires_at <= ?',
  unused: 'NOT EXISTS (SELECT 1 FROM executions WHERE executions.request_id = approval_requests.id)',
};

/** A piece of SQL with its parameters, in order. */
export interface Clause {
  sql: string;
  params: (string | number | null)[];
}

/** `where` for one request. */
export const byId = (id: string): Clause => ({ sql: 'id = ?', params: [id] });
/** `where` for every request. */
export const ALL: Clause = { sql: '1 = 1', params: [] };

/** An event's `UPDATE` with its `RETURNING id`, and how many `now` parameters its guards take. */
export interface EventStatement {
  sql: string;
  nowParams: number;
}

/**
 * The `UPDATE` moving every request matching `where` along `event` as the table says, also setting
 * `set` (a `col = ?, …` list), returning the ids it changed. Parameters: `set`'s, `where`'s, then
 * `now` (ISO) `nowParams` times (`eventParams`).
 */
export function eventStatement(event: RequestEvent, where: string, set: string | undefined): EventStatement {
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

/** The parameters of an `eventStatement` for `now`. */
export function eventParams(
  statement: EventStatement,
  now: Date,
  where: Clause,
  set: Clause | undefined,
): (string | number | null)[] {
  const at = now.toISOString();
  return [...(set?.params ?? []), ...where.params, ...Array.from({ length: statement.nowParams }, () => at)];
}

/** The statuses a requester's revocation cancels (pending requests and approved grants), as SQL. */
export const LIVE = `status IN (${statusesFor('cancel')
  .map((status) => `'${status}'`)
  .join(', ')})`;

/** The `status_reason` a transition records. */
export const reasonSet = (reason: string): Clause => ({ sql: 'status_reason = ?', params: [reason] });
