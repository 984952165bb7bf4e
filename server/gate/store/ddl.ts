/**
 * Schema text both approval stores share: the columns `approval_requests` had in the first schema
 * (SQLite's migration 0, PostgreSQL's `0001_approvals`) and those recording an execution's course
 * in `executions`, declared once here and written into each engine's first migration. Both engines
 * type them alike (`TEXT`, ISO 8601 timestamps as text).
 *
 * Frozen: a shipped migration is never edited (databases created by it must keep opening), so a
 * new column is a new migration of each engine, never an entry here. The tests pin each first
 * migration's text as it shipped (test/server/gate/store/fixtures, test/server/postgres/fixtures).
 */

/** One column definition: name and its SQL type and constraints, e.g. `['id', 'TEXT PRIMARY KEY']`. */
export type ColumnDefinition = readonly [name: string, definition: string];

/** `approval_requests` as the first schema of both engines created it, in table order. */
export const APPROVAL_REQUESTS_V1: readonly ColumnDefinition[] = Object.freeze([
  ['id', 'TEXT PRIMARY KEY'],
  ['status', 'TEXT NOT NULL'],
  ['requester', 'TEXT NOT NULL'],
  ['created_by', 'TEXT NOT NULL'],
  ['cluster_context', 'TEXT NOT NULL'],
  ['cluster_server', 'TEXT'],
  ['tool', 'TEXT NOT NULL'],
  ['risk', 'TEXT NOT NULL'],
  ['arguments_json', 'TEXT NOT NULL'],
  ['requested_arguments_json', 'TEXT NOT NULL'],
  ['reason', 'TEXT'],
  ['policy_json', 'TEXT NOT NULL'],
  ['preview_json', 'TEXT'],
  ['requested_key', 'TEXT NOT NULL'],
  ['resolved_key', 'TEXT NOT NULL'],
  ['scope', 'TEXT NOT NULL'],
  ['created_at', 'TEXT NOT NULL'],
  ['expires_at', 'TEXT NOT NULL'],
  ['decision_json', 'TEXT'],
  ['grant_json', 'TEXT'],
  ['grant_expires_at', 'TEXT'],
  ['denial_delivered_at', 'TEXT'],
] as const);

/**
 * The columns of `executions` that record its course, last in the table in both engines' first
 * schema: its status, idempotency key, whether it consumed a grant, the effect, when it started and
 * finished, and how (outcome and MCP result).
 */
export const EXECUTION_COURSE_V1: readonly ColumnDefinition[] = Object.freeze([
  ['status', 'TEXT NOT NULL'],
  ['idempotency_key', 'TEXT'],
  ['consumed_grant', 'INTEGER NOT NULL'],
  ['effect_json', 'TEXT'],
  ['started_at', 'TEXT NOT NULL'],
  ['finished_at', 'TEXT'],
  ['outcome', 'TEXT'],
  ['result_json', 'TEXT'],
] as const);

/**
 * The body of a `CREATE TABLE` for `columns`: one `name definition` a line, each prefixed with
 * `indent`, separated by `,` and a newline (no comma after the last, no surrounding parentheses).
 */
export function columnDefinitions(columns: readonly ColumnDefinition[], indent: string): string {
  return columns.map(([name, definition]) => `${indent}${name} ${definition}`).join(',\n');
}
