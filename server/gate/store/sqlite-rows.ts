/**
 * Rows of the SQLite store and the records they stand for: `approval_requests` ⇄ `ApprovalRequest`
 * (with its executions), `executions` → `StoredExecution`, and the SQL that matches a binding.
 */
import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalExecution, ApprovalRequest, ApprovalStatus } from '../approval-request.ts';
import type { Row } from './sqlite-schema.ts';
import type { CallBinding, NewApprovalRequest, StoredExecution } from './types.ts';

/** SQL condition matching a `CallBinding` on a table with these columns (4 parameters). */
export const BINDING_SQL = `requester = ? AND requester_credential = ? AND cluster_context = ? AND IFNULL(cluster_server, '') = ?`;
export const bindingParams = (b: CallBinding): SQLInputValue[] => [
  b.requester,
  b.credential,
  b.cluster,
  b.clusterServer,
];
/**
 * The same without the token: what restricts an identity (a human's denial, the upstream replay
 * window) must hold across a rotation of its token; only what it was granted is bound to the token.
 */
export const IDENTITY_SQL = `requester = ? AND cluster_context = ? AND IFNULL(cluster_server, '') = ?`;
export const identityParams = (b: CallBinding): SQLInputValue[] => [b.requester, b.cluster, b.clusterServer];

export const json = (value: unknown): string | null =>
  value === undefined || value === null ? null : JSON.stringify(value);
export const parse = <T>(text: unknown): T =>
  (text === null || text === undefined ? null : JSON.parse(String(text))) as T;
export const str = (value: unknown): string => String(value);
export const strOrNull = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value);

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
    authorization: str(row.authorization) as StoredExecution['authorization'],
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

function toPublicExecution(execution: StoredExecution): ApprovalExecution {
  return {
    id: execution.id,
    status: execution.status,
    arguments: execution.arguments,
    started_at: execution.startedAt,
    finished_at: execution.finishedAt,
    outcome: execution.outcome,
  };
}

/** Reads requests (each with its executions) from `db`. */
export interface RequestReader {
  toRequest(row: Row): ApprovalRequest;
  /** The request with this id, if any. */
  get(id: string): ApprovalRequest | undefined;
  /** The request with this `clientRefKey`, if any. */
  byClientRef(key: string): ApprovalRequest | undefined;
  /** Inserts a request row (inside the caller's transaction). */
  insert(input: NewApprovalRequest): void;
}

function requestOf(row: Row, executions: ApprovalExecution[]): ApprovalRequest {
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
    executions,
    status_reason: strOrNull(row.status_reason),
    superseded_by: strOrNull(row.superseded_by),
    client_ref: parse(row.client_ref_json),
    upstream: parse(row.upstream_json),
  };
}

const INSERT_REQUEST = `INSERT INTO approval_requests (id, status, requester, created_by, cluster_context,
   cluster_server, tool, risk, arguments_json, requested_arguments_json, reason, policy_json, preview_json,
   requested_key, resolved_key, scope, created_at, expires_at, decision_json, grant_json, grant_expires_at,
   requester_credential, client_ref_json, client_ref_key, upstream_json)
 VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`;

function insertParams(input: NewApprovalRequest): SQLInputValue[] {
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

export function requestReader(db: DatabaseSync): RequestReader {
  const executionsOf = db.prepare('SELECT * FROM executions WHERE request_id = ? ORDER BY started_at, id');
  const selectRequest = db.prepare('SELECT * FROM approval_requests WHERE id = ?');
  const selectByClientRef = db.prepare('SELECT * FROM approval_requests WHERE client_ref_key = ?');
  const insertRequest = db.prepare(INSERT_REQUEST);
  const toRequest = (row: Row): ApprovalRequest =>
    requestOf(row, (executionsOf.all(str(row.id)) as Row[]).map(toExecution).map(toPublicExecution));
  const one = (row: Row | undefined) => (row ? toRequest(row) : undefined);
  return {
    toRequest,
    get: (id) => one(selectRequest.get(id) as Row | undefined),
    byClientRef: (key) => one(selectByClientRef.get(key) as Row | undefined),
    insert: (input) => void insertRequest.run(...insertParams(input)),
  };
}
