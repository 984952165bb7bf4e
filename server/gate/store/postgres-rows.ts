/**
 * Reading and writing `approval_requests` rows on PostgreSQL, through the row codec both stores
 * share (rows.ts) and the transition table's SQL (transition-sql.ts), and what the request and
 * execution halves of the PostgreSQL store share (`PostgresContext`).
 */
import type { ApprovalRequest } from '../approval-request.ts';
import type { Query } from '../../postgres/pool.ts';
import { insertSql, REQUEST_COLUMNS, requestValues, toRequest, type Row } from './rows.ts';
import { ALL, eventParams, eventStatement, type Clause } from './transition-sql.ts';
import type { RequestEvent } from './transitions.ts';
import type { NewApprovalRequest } from './types.ts';

/** What the request and execution halves of the store share. */
export interface PostgresContext {
  /** Single statements on the pool (one consistent snapshot each). */
  read: Query;
  /** Runs `fn` in one transaction holding the store's advisory lock (every state change). */
  tx<T>(fn: (query: Query) => Promise<T>): Promise<T>;
  /** This replica's owner key (its session advisory lock), recorded on the executions it begins. */
  ownerKey: number;
}

/** A request row with its executions (oldest first) as one JSON array, read in one statement. */
export const REQUEST_SELECT = `SELECT r.*, COALESCE((SELECT json_agg(e ORDER BY e.started_at, e.id) FROM executions e
  WHERE e.request_id = r.id), '[]'::json) AS executions FROM approval_requests r`;

/** A `REQUEST_SELECT` row as the request. */
export const requestOf = (row: Row): ApprovalRequest => toRequest(row, (row.executions ?? []) as Row[]);

export async function getRequest(q: Query, id: string): Promise<ApprovalRequest | undefined> {
  const [row] = await q(`${REQUEST_SELECT} WHERE r.id = ?`, [id]);
  return row ? requestOf(row) : undefined;
}

/** The request with `id`, which the caller's transaction just wrote. */
export const mustGet = async (q: Query, id: string): Promise<ApprovalRequest> => (await getRequest(q, id))!;

export async function byClientRef(q: Query, key: string): Promise<ApprovalRequest | undefined> {
  const [row] = await q(`${REQUEST_SELECT} WHERE r.client_ref_key = ?`, [key]);
  return row ? requestOf(row) : undefined;
}

const INSERT_REQUEST = insertSql('approval_requests', REQUEST_COLUMNS);

export async function insertRequest(q: Query, input: NewApprovalRequest): Promise<void> {
  await q(INSERT_REQUEST, requestValues(input));
}

/**
 * Moves every request matching `where` along `event` as the transition table says (rows whose
 * status or guard does not allow it are left alone), also setting `set`; returns the ids changed.
 */
export async function applyEvent(
  q: Query,
  event: RequestEvent,
  now: Date,
  where: Clause,
  set?: Clause,
): Promise<string[]> {
  const statement = eventStatement(event, where.sql, set?.sql);
  const rows = await q(statement.sql, eventParams(statement, now, where, set));
  return rows.map((row) => String(row.id));
}

/** Expires what is due at `now`, marked unreported until `expireDue` returns it (once, cluster-wide). */
export async function expireDue(q: Query, now: Date): Promise<void> {
  await applyEvent(q, 'expire', now, ALL, { sql: 'expiry_unreported = TRUE', params: [] });
}
