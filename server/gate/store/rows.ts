/**
 * The row codec both approval stores share (SQLite: sqlite-*.ts; PostgreSQL: postgres-*.ts): the
 * columns of `approval_requests` and `executions` both schemas have, `approval_requests` rows ⇄
 * `ApprovalRequest` (with its executions), `executions` rows ⇄ `StoredExecution`, and the SQL that
 * matches a call's binding. Engine-neutral SQL only (`?` placeholders, `COALESCE`); the PostgreSQL
 * query helper numbers the placeholders.
 *
 * The schemas themselves are each engine's append-only migrations (sqlite-schema.ts, and
 * server/postgres/migrations/), their shared first columns declared once in ddl.ts;
 * test/server/gate/store checks that each has exactly the columns listed here.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalExecution, ApprovalRequest, ApprovalStatus } from '../approval-request.ts';
import type { BeginExecution, CallBinding, NewApprovalRequest, StoredExecution } from './types.ts';

/** A row as a driver returns it: column name → value. */
export type Row = Record<string, unknown>;

/** The columns of `approval_requests` an insert writes, in `requestValues` order. */
export const REQUEST_COLUMNS = [
  'id',
  'status',
  'requester',
  'created_by',
  'cluster_context',
  'cluster_server',
  'tool',
  'risk',
  'arguments_json',
  'requested_arguments_json',
  'reason',
  'policy_json',
  'preview_json',
  'requested_key',
  'resolved_key',
  'scope',
  'created_at',
  'expires_at',
  'decision_json',
  'grant_json',
  'grant_expires_at',
  'requester_credential',
  'client_ref_json',
  'client_ref_key',
  'upstream_json',
] as const;

/** Columns of `approval_requests` set after the insert, by a denial's delivery or a transition. */
export const REQUEST_LATER_COLUMNS = ['denial_delivered_at', 'status_reason', 'superseded_by'] as const;

/**
 * The columns of `executions` a `beginExecution` writes, in `executionValues` order. The
 * authorization column is named per engine (`authorization` is reserved in PostgreSQL's grammar).
 */
export function executionColumns(authorization: 'authorization' | 'authorized_by'): string[] {
  return [
    'id',
    'request_id',
    'requester',
    'cluster_context',
    'tool',
    'call_key',
    'arguments_json',
    authorization,
    'status',
    'idempotency_key',
    'consumed_grant',
    'effect_json',
    'started_at',
    'requester_credential',
    'cluster_server',
    'replay_key',
  ];
}

/** Columns of `executions` set when it finishes. */
export const EXECUTION_LATER_COLUMNS = ['finished_at', 'outcome', 'result_json'] as const;

/** `INSERT INTO table (columns) VALUES (?, …)`. */
export function insertSql(table: string, columns: readonly string[]): string {
  return `INSERT INTO ${table} (${columns.join(', ')}) VALUES (${columns.map(() => '?').join(', ')})`;
}

/** SQL condition matching a `CallBinding` on a table with these columns (4 parameters). */
export const BINDING_SQL = `requester = ? AND requester_credential = ? AND cluster_context = ? AND COALESCE(cluster_server, '') = ?`;
export const bindingParams = (b: CallBinding): string[] => [
  b.requester,
  b.credential,
  b.cluster,
  b.clusterServer,
];
/**
 * The same without the token: what restricts an identity (a human's denial, the upstream replay
 * window) must hold across a rotation of its token; only what it was granted is bound to the token.
 */
export const IDENTITY_SQL = `requester = ? AND cluster_context = ? AND COALESCE(cluster_server, '') = ?`;
export const identityParams = (b: CallBinding): string[] => [b.requester, b.cluster, b.clusterServer];

/** `BINDING_SQL` / `IDENTITY_SQL` with each column qualified by a table alias (`r.requester`). */
export function qualified(sql: string, alias: string): string {
  return sql.replace(/\b(requester_credential|requester|cluster_context|cluster_server)\b/g, `${alias}.$1`);
}

export const json = (value: unknown): string | null =>
  value === undefined || value === null ? null : JSON.stringify(value);
export const parse = <T>(text: unknown): T =>
  (text === null || text === undefined ? null : JSON.parse(String(text))) as T;
export const str = (value: unknown): string => String(value);
export const strOrNull = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value);

/** The values of `REQUEST_COLUMNS` for a new request. */
export function requestValues(input: NewApprovalRequest): (string | null)[] {
  const { request: r } = input;
  return [
    r.id,
    r.status,
    r.requester,
    r.created_by,
    r.cluster?.context ?? '',
    r.cluster?.server ?? null,
    r.tool,
    r.risk,
    JSON.stringify(r.arguments),
    JSON.stringify(r.requested_arguments),
    r.reason,
    JSON.stringify(r.policy),
    json(r.preview),
    input.requestedKey,
    input.resolvedKey,
    input.scope,
    r.created_at,
    r.expires_at,
    json(r.decision),
    json(r.grant),
    r.grant?.expires_at ?? null,
    input.requesterCredential,
    json(r.client_ref),
    input.clientRefKey ?? null,
    json(r.upstream),
  ];
}

/** A once grant, or the request recording an upstream approval, is consumed by the execution. */
export const consumesGrant = (input: BeginExecution): boolean =>
  input.authorization === 'once' || (input.authorization === 'upstream' && input.requestId !== undefined);

/** The values of `executionColumns` for an execution starting at `at` (ISO). */
export function executionValues(input: BeginExecution, at: string): (string | number | null)[] {
  return [
    input.id,
    input.requestId ?? null,
    input.requester,
    input.cluster,
    input.tool,
    input.callKey,
    JSON.stringify(input.arguments),
    input.authorization,
    'executing',
    input.idempotencyKey ?? null,
    consumesGrant(input) ? 1 : 0,
    json(input.effect),
    at,
    input.credential,
    input.clusterServer,
    input.replayKey ?? input.callKey,
  ];
}

/** An `executions` row as the store's record (either engine's authorization column). */
export function toExecution(row: Row): StoredExecution {
  return {
    id: str(row.id),
    requestId: strOrNull(row.request_id),
    requester: str(row.requester),
    credential: str(row.requester_credential ?? ''),
    cluster: str(row.cluster_context),
    clusterServer: str(row.cluster_server ?? ''),
    tool: str(row.tool),
    callKey: str(row.call_key),
    arguments: parse(row.arguments_json),
    authorization: str(row.authorization ?? row.authorized_by) as StoredExecution['authorization'],
    status: str(row.status) as StoredExecution['status'],
    idempotencyKey: strOrNull(row.idempotency_key),
    consumedGrant: Number(row.consumed_grant) === 1,
    effect: parse(row.effect_json),
    startedAt: str(row.started_at),
    finishedAt: strOrNull(row.finished_at),
    outcome: strOrNull(row.outcome),
    result: parse<CallToolResult | null>(row.result_json),
  };
}

/** What an approval request shows of one of its executions. */
export function toPublicExecution(execution: StoredExecution): ApprovalExecution {
  return {
    id: execution.id,
    status: execution.status,
    arguments: execution.arguments,
    started_at: execution.startedAt,
    finished_at: execution.finishedAt,
    outcome: execution.outcome,
  };
}

/** An `approval_requests` row and its `executions` rows (oldest first) as the request. */
export function toRequest(row: Row, executions: readonly Row[]): ApprovalRequest {
  const context = str(row.cluster_context);
  return {
    id: str(row.id),
    status: str(row.status) as ApprovalStatus,
    requester: str(row.requester),
    created_by: str(row.created_by),
    cluster:
      context === '' && row.cluster_server === null ? null : { context, server: str(row.cluster_server) },
    tool: str(row.tool),
    risk: str(row.risk) as ApprovalRequest['risk'],
    arguments: parse(row.arguments_json),
    requested_arguments: parse(row.requested_arguments_json),
    reason: strOrNull(row.reason),
    policy: parse(row.policy_json),
    preview: parse(row.preview_json),
    created_at: str(row.created_at),
    expires_at: str(row.expires_at),
    decision: parse(row.decision_json),
    grant: parse(row.grant_json),
    executions: executions.map(toExecution).map(toPublicExecution),
    status_reason: strOrNull(row.status_reason),
    superseded_by: strOrNull(row.superseded_by),
    client_ref: parse(row.client_ref_json),
    upstream: parse(row.upstream_json),
  };
}
