/**
 * The request half of the SQLite `ApprovalStore`: creating, finding and deciding approval
 * requests. Every status change goes through the transition table (`apply`, sqlite-transitions.ts).
 */
import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import type { ApprovalRequest } from '../approval-request.ts';
import { BINDING_SQL, bindingParams, IDENTITY_SQL, identityParams, json, str, strOrNull } from './rows.ts';
import type { RequestReader } from './sqlite-rows.ts';
import type { Row, Transaction } from './sqlite-schema.ts';
import type { SqliteOwner } from './sqlite-owner.ts';
import { byId, type ApplyEvent, type Clause } from './sqlite-transitions.ts';
import { LIVE, reasonSet } from './transition-sql.ts';
import type { RequestEvent } from './transitions.ts';
import type { ApprovalStore, RequestMethods, NewApprovalRequest, TransitionResult } from './types.ts';
import { planPending, type PendingCandidate } from './pending-reuse.ts';

/** What the request and execution halves of the store share. */
export interface SqliteContext {
  db: DatabaseSync;
  transaction: Transaction;
  requests: RequestReader;
  apply: ApplyEvent;
  /** Expires what is due at `now` (inside a transaction); remembered until `expireDue` reports it. */
  expire(now: Date): void;
  /** Expired on the way by another method and not yet returned by `expireDue`. */
  unreported: Set<string>;
  /** This open store's process, recorded on the executions it begins (sqlite-owner.ts). */
  owner: SqliteOwner;
}

/** `createOrReusePending` inside its transaction (`planPending` decides). */
function createOrReuse(
  context: SqliteContext,
  input: NewApprovalRequest,
  now: Date,
  supersede?: (existing: ApprovalRequest) => string | undefined,
): Awaited<ReturnType<ApprovalStore['createOrReusePending']>> {
  const { db, requests, apply } = context;
  const { request } = input;
  context.expire(now);
  const rows = db
    .prepare(
      `SELECT * FROM approval_requests WHERE requester = ? AND cluster_context = ?
         AND (requested_key = ? OR resolved_key = ?) AND status = 'pending' AND expires_at > ?`,
    )
    .all(
      request.requester,
      request.cluster?.context ?? '',
      input.requestedKey,
      input.resolvedKey,
      now.toISOString(),
    ) as Row[];
  const plan = planPending(input, rows.map(candidateOf(requests)), supersede);
  if (plan.cancel) apply('cancel', now, byId(plan.cancel.id), reasonSet(plan.cancel.reason));
  const standing = plan.reuse ?? request.id;
  for (const { id, reason } of plan.supersede) {
    apply('supersede', now, byId(id), {
      sql: 'superseded_by = ?, status_reason = ?',
      params: [standing, reason],
    });
  }
  if (plan.reuse) {
    db.prepare('UPDATE approval_requests SET preview_json = ? WHERE id = ?').run(
      json(request.preview),
      plan.reuse,
    );
  } else {
    requests.insert(input);
  }
  const [superseded, ...alsoSuperseded] = plan.supersede.map(({ id }) => requests.get(id)!);
  return {
    request: requests.get(standing)!,
    reused: plan.reuse !== undefined,
    ...(superseded && { superseded }),
    ...(alsoSuperseded.length > 0 && { alsoSuperseded }),
    ...(plan.cancel && { cancelled: requests.get(plan.cancel.id)! }),
  };
}

const candidateOf =
  (requests: RequestReader) =>
  (row: Row): PendingCandidate => ({
    request: requests.toRequest(row),
    requestedKey: str(row.requested_key),
    resolvedKey: str(row.resolved_key),
    credential: str(row.requester_credential),
    server: strOrNull(row.cluster_server),
  });

/**
 * Moves request `id` along `event` (after expiring what is due), naming why it cannot: `not_found`,
 * `expired`, or `refused` (the table or its guard does not allow it from the current status).
 */
function transitionOne(
  context: SqliteContext,
  id: string,
  event: RequestEvent,
  now: Date,
  refused: 'not_pending' | 'not_approved',
  set?: Clause,
): TransitionResult {
  return context.transaction((): TransitionResult => {
    context.expire(now);
    const current = context.requests.get(id);
    if (!current) return { ok: false, reason: 'not_found' };
    if (current.status === 'expired') return { ok: false, reason: 'expired', request: current };
    if (context.apply(event, now, byId(id), set).length === 0) {
      return { ok: false, reason: refused, request: current };
    }
    return { ok: true, request: context.requests.get(id)! };
  });
}

function listRequests(context: SqliteContext, filter: Parameters<ApprovalStore['list']>[0] = {}) {
  const conditions: [column: string, value: string][] = [];
  if (filter.status) conditions.push(['status', filter.status]);
  if (filter.tool) conditions.push(['tool', filter.tool]);
  if (filter.requester) conditions.push(['requester', filter.requester]);
  if (filter.clientRef) conditions.push(['client_ref_key', filter.clientRef]);
  const where = conditions.map(([column]) => `${column} = ?`);
  const params: SQLInputValue[] = conditions.map(([, value]) => value);
  const sql = `SELECT * FROM approval_requests ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
               ORDER BY created_at DESC, id DESC LIMIT ?`;
  return (context.db.prepare(sql).all(...params, filter.limit ?? 200) as Row[]).map(
    context.requests.toRequest,
  );
}

/** Lookups a retry is matched by: a denial to deliver, an approved call, a window grant. */
function retryLookups(
  context: SqliteContext,
): Pick<ApprovalStore, 'claimDenial' | 'findApprovedCall' | 'findWindowGrant'> {
  const { db, requests } = context;
  const one = (row: unknown) => (row ? requests.toRequest(row as Row) : undefined);
  return {
    async claimDenial(binding, key, now) {
      return context.transaction(() => {
        const at = now.toISOString();
        const row = db
          .prepare(
            `SELECT * FROM approval_requests
             WHERE ${IDENTITY_SQL} AND (requested_key = ? OR resolved_key = ?)
               AND status = 'denied' AND denial_delivered_at IS NULL AND expires_at > ?
             ORDER BY created_at DESC LIMIT 1`,
          )
          .get(...identityParams(binding), key, key, at) as Row | undefined;
        if (!row) return undefined;
        db.prepare('UPDATE approval_requests SET denial_delivered_at = ? WHERE id = ?').run(at, str(row.id));
        return requests.toRequest(row);
      });
    },
    async findApprovedCall(binding, key, now) {
      const sql = `SELECT * FROM approval_requests
           WHERE ${BINDING_SQL} AND (requested_key = ? OR resolved_key = ?)
             AND ((status = 'approved' AND grant_expires_at > ?) OR status = 'executing')
           ORDER BY created_at DESC LIMIT 1`;
      return one(db.prepare(sql).get(...bindingParams(binding), key, key, now.toISOString()));
    },
    async findWindowGrant(binding, tool, scope, now) {
      const sql = `SELECT * FROM approval_requests
           WHERE ${BINDING_SQL} AND tool = ? AND scope = ? AND status = 'approved'
             AND grant_expires_at > ? AND json_extract(grant_json, '$.validity.window') IS NOT NULL
             AND json_extract(decision_json, '$.decision') = 'allow'
           ORDER BY grant_expires_at DESC LIMIT 1`;
      return one(db.prepare(sql).get(...bindingParams(binding), tool, scope, now.toISOString()));
    },
  };
}

/** Cancelling: a requester's live requests, or one grant whose approver no longer stands. */
function cancellations(context: SqliteContext): Pick<ApprovalStore, 'cancelForRequester' | 'cancelGrant'> {
  const { requests, apply } = context;
  return {
    async cancelForRequester(requester, keep, reason) {
      return context.transaction(() => {
        const where = {
          sql: 'requester = ? AND (? IS NULL OR requester_credential <> ?)',
          params: [requester, keep ?? null, keep ?? null],
        };
        return apply('cancel', new Date(), where, reasonSet(reason)).map((id) => requests.get(id)!);
      });
    },
    async cancelGrant(id, reason) {
      return context.transaction(() => {
        const changed = apply('cancel_grant', new Date(), byId(id), reasonSet(reason));
        return changed.length === 1 ? requests.get(id) : undefined;
      });
    },
  };
}

export function requestMethods(context: SqliteContext): RequestMethods {
  const { db, requests, transaction } = context;
  return {
    createOrReusePending: async (input, now, supersede) =>
      transaction(() => createOrReuse(context, input, now, supersede)),
    insert: async (input) =>
      transaction(() => {
        requests.insert(input);
        return requests.get(input.request.id)!;
      }),
    insertForClientRef: async (input) =>
      transaction(() => {
        const existing = requests.byClientRef(input.clientRefKey);
        if (existing) return { request: existing, created: false };
        requests.insert(input);
        return { request: requests.get(input.request.id)!, created: true };
      }),
    findByClientRef: async (key) => requests.byClientRef(key),
    get: async (id) => requests.get(id),
    list: async (filter) => listRequests(context, filter),
    decide: async (id, decision, grant, now) =>
      transitionOne(context, id, decision.decision === 'allow' ? 'approve' : 'deny', now, 'not_pending', {
        sql: 'decision_json = ?, grant_json = ?, grant_expires_at = ?',
        params: [JSON.stringify(decision), json(grant), grant?.expires_at ?? null],
      }),
    withdraw: async (id, now) => transitionOne(context, id, 'withdraw', now, 'not_pending'),
    revokeGrant: async (id, reason, now) =>
      transitionOne(context, id, 'revoke', now, 'not_approved', reasonSet(reason)),
    ...cancellations(context),
    liveRequesters: async () =>
      (
        db
          .prepare(`SELECT DISTINCT requester, requester_credential FROM approval_requests WHERE ${LIVE}`)
          .all() as Row[]
      ).map((row) => ({ requester: str(row.requester), credential: str(row.requester_credential) })),
    expireDue: async (now) =>
      transaction(() => {
        context.expire(now);
        const ids = [...context.unreported];
        context.unreported.clear();
        return ids.map((id) => requests.get(id)!);
      }),
    ...retryLookups(context),
  };
}
