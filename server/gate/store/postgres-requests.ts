/**
 * The request half of the PostgreSQL `ApprovalStore`: creating, finding and deciding approval
 * requests. Every status change goes through the transition table (`applyEvent`), as in the
 * SQLite store (sqlite-requests.ts).
 */
import type { ApprovalRequest } from '../approval-request.ts';
import type { Query } from '../../postgres/pool.ts';
import {
  applyEvent,
  byClientRef,
  expireDue,
  getRequest,
  insertRequest,
  mustGet,
  REQUEST_SELECT,
  requestOf,
  type PostgresContext,
} from './postgres-rows.ts';
import {
  BINDING_SQL,
  bindingParams,
  IDENTITY_SQL,
  identityParams,
  json,
  qualified,
  str,
  strOrNull,
} from './rows.ts';
import { byId, LIVE, reasonSet, type Clause } from './transition-sql.ts';
import type { RequestEvent } from './transitions.ts';
import type { ApprovalStore, RequestMethods, NewApprovalRequest, TransitionResult } from './types.ts';
import { planPending, type PendingCandidate } from './pending-reuse.ts';

/** `createOrReusePending` inside its transaction (`planPending` decides). */
async function createOrReuse(
  q: Query,
  input: NewApprovalRequest,
  now: Date,
  supersede?: (existing: ApprovalRequest) => string | undefined,
): ReturnType<ApprovalStore['createOrReusePending']> {
  const { request } = input;
  await expireDue(q, now);
  const rows = await q(
    `${REQUEST_SELECT} WHERE r.requester = ? AND r.cluster_context = ? AND (r.requested_key = ? OR r.resolved_key = ?)
       AND r.status = 'pending' AND r.expires_at > ?`,
    [
      request.requester,
      request.cluster?.context ?? '',
      input.requestedKey,
      input.resolvedKey,
      now.toISOString(),
    ],
  );
  const candidates = rows.map((row): PendingCandidate => ({
    request: requestOf(row),
    requestedKey: str(row.requested_key),
    resolvedKey: str(row.resolved_key),
    credential: str(row.requester_credential),
    server: strOrNull(row.cluster_server),
  }));
  const plan = planPending(input, candidates, supersede);
  if (plan.cancel) await applyEvent(q, 'cancel', now, byId(plan.cancel.id), reasonSet(plan.cancel.reason));
  const standing = plan.reuse ?? request.id;
  for (const { id, reason } of plan.supersede) {
    await applyEvent(q, 'supersede', now, byId(id), {
      sql: 'superseded_by = ?, status_reason = ?',
      params: [standing, reason],
    });
  }
  if (plan.reuse) {
    await q('UPDATE approval_requests SET preview_json = ? WHERE id = ?', [
      json(request.preview),
      plan.reuse,
    ]);
  } else {
    await insertRequest(q, input);
  }
  const ended = [];
  for (const { id } of plan.supersede) ended.push(await mustGet(q, id));
  const [superseded, ...alsoSuperseded] = ended;
  return {
    request: await mustGet(q, standing),
    reused: plan.reuse !== undefined,
    ...(superseded && { superseded }),
    ...(alsoSuperseded.length > 0 && { alsoSuperseded }),
    ...(plan.cancel && { cancelled: await mustGet(q, plan.cancel.id) }),
  };
}

/**
 * Moves request `id` along `event` (after expiring what is due), naming why it cannot: `not_found`,
 * `expired`, or `refused` (the table or its guard does not allow it from the current status).
 */
function transitionOne(
  context: PostgresContext,
  id: string,
  event: RequestEvent,
  now: Date,
  refused: 'not_pending' | 'not_approved',
  set?: Clause,
): Promise<TransitionResult> {
  return context.tx(async (q): Promise<TransitionResult> => {
    await expireDue(q, now);
    const current = await getRequest(q, id);
    if (!current) return { ok: false, reason: 'not_found' };
    if (current.status === 'expired') return { ok: false, reason: 'expired', request: current };
    if ((await applyEvent(q, event, now, byId(id), set)).length === 0) {
      return { ok: false, reason: refused, request: current };
    }
    return { ok: true, request: await mustGet(q, id) };
  });
}

async function listRequests(context: PostgresContext, filter: Parameters<ApprovalStore['list']>[0] = {}) {
  const conditions: [column: string, value: string][] = [];
  if (filter.status) conditions.push(['status', filter.status]);
  if (filter.tool) conditions.push(['tool', filter.tool]);
  if (filter.requester) conditions.push(['requester', filter.requester]);
  if (filter.clientRef) conditions.push(['client_ref_key', filter.clientRef]);
  const where = conditions.map(([column]) => `r.${column} = ?`);
  const rows = await context.read(
    `${REQUEST_SELECT} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
     ORDER BY r.created_at DESC, r.id DESC LIMIT ?`,
    [...conditions.map(([, value]) => value), filter.limit ?? 200],
  );
  return rows.map(requestOf);
}

/** Lookups a retry is matched by: a denial to deliver, an approved call, a window grant. */
function retryLookups(
  context: PostgresContext,
): Pick<ApprovalStore, 'claimDenial' | 'findApprovedCall' | 'findWindowGrant'> {
  const { read, tx } = context;
  return {
    claimDenial: (binding, key, now) =>
      tx(async (q) => {
        const at = now.toISOString();
        const [row] = await q(
          `${REQUEST_SELECT} WHERE ${qualified(IDENTITY_SQL, 'r')} AND (r.requested_key = ? OR r.resolved_key = ?)
             AND r.status = 'denied' AND r.denial_delivered_at IS NULL AND r.expires_at > ?
           ORDER BY r.created_at DESC LIMIT 1`,
          [...identityParams(binding), key, key, at],
        );
        if (!row) return undefined;
        await q('UPDATE approval_requests SET denial_delivered_at = ? WHERE id = ?', [at, str(row.id)]);
        return requestOf(row);
      }),
    async findApprovedCall(binding, key, now) {
      const [row] = await read(
        `${REQUEST_SELECT} WHERE ${qualified(BINDING_SQL, 'r')} AND (r.requested_key = ? OR r.resolved_key = ?)
           AND ((r.status = 'approved' AND r.grant_expires_at > ?) OR r.status = 'executing')
         ORDER BY r.created_at DESC LIMIT 1`,
        [...bindingParams(binding), key, key, now.toISOString()],
      );
      return row ? requestOf(row) : undefined;
    },
    async findWindowGrant(binding, tool, scope, now) {
      const [row] = await read(
        `${REQUEST_SELECT} WHERE ${qualified(BINDING_SQL, 'r')}
           AND r.tool = ? AND r.scope = ? AND r.status = 'approved' AND r.grant_expires_at > ?
           AND (r.grant_json::jsonb -> 'validity' -> 'window') IS NOT NULL
           AND jsonb_typeof(r.grant_json::jsonb -> 'validity' -> 'window') <> 'null'
           AND (r.decision_json::jsonb ->> 'decision') = 'allow'
         ORDER BY r.grant_expires_at DESC LIMIT 1`,
        [...bindingParams(binding), tool, scope, now.toISOString()],
      );
      return row ? requestOf(row) : undefined;
    },
  };
}

/** Cancelling: a requester's live requests, or one grant whose approver no longer stands. */
function cancellations(context: PostgresContext): Pick<ApprovalStore, 'cancelForRequester' | 'cancelGrant'> {
  return {
    cancelForRequester: (requester, keep, reason) =>
      context.tx(async (q) => {
        const where = {
          sql: 'requester = ? AND (?::text IS NULL OR requester_credential <> ?::text)',
          params: [requester, keep ?? null, keep ?? null],
        };
        const ids = await applyEvent(q, 'cancel', new Date(), where, reasonSet(reason));
        const changed = await Promise.all(ids.map((id) => mustGet(q, id)));
        return changed.sort((a, b) => a.created_at.localeCompare(b.created_at) || a.id.localeCompare(b.id));
      }),
    cancelGrant: (id, reason) =>
      context.tx(async (q) => {
        const changed = await applyEvent(q, 'cancel_grant', new Date(), byId(id), reasonSet(reason));
        return changed.length === 1 ? getRequest(q, id) : undefined;
      }),
  };
}

export function requestMethods(context: PostgresContext): RequestMethods {
  const { read, tx } = context;
  return {
    createOrReusePending: (input, now, supersede) => tx((q) => createOrReuse(q, input, now, supersede)),
    insert: (input) =>
      tx(async (q) => {
        await insertRequest(q, input);
        return mustGet(q, input.request.id);
      }),
    insertForClientRef: (input) =>
      tx(async (q) => {
        const existing = await byClientRef(q, input.clientRefKey);
        if (existing) return { request: existing, created: false };
        await insertRequest(q, input);
        return { request: await mustGet(q, input.request.id), created: true };
      }),
    findByClientRef: (key) => byClientRef(read, key),
    get: (id) => getRequest(read, id),
    list: (filter) => listRequests(context, filter),
    decide: (id, decision, grant, now) =>
      transitionOne(context, id, decision.decision === 'allow' ? 'approve' : 'deny', now, 'not_pending', {
        sql: 'decision_json = ?, grant_json = ?, grant_expires_at = ?',
        params: [JSON.stringify(decision), json(grant), grant?.expires_at ?? null],
      }),
    withdraw: (id, now) => transitionOne(context, id, 'withdraw', now, 'not_pending'),
    revokeGrant: (id, reason, now) =>
      transitionOne(context, id, 'revoke', now, 'not_approved', reasonSet(reason)),
    ...cancellations(context),
    async liveRequesters() {
      const rows = await read(
        `SELECT DISTINCT requester, requester_credential FROM approval_requests WHERE ${LIVE}`,
      );
      return rows.map((row) => ({
        requester: str(row.requester),
        credential: str(row.requester_credential),
      }));
    },
    expireDue: (now) =>
      tx(async (q) => {
        await expireDue(q, now);
        const rows = await q(
          `UPDATE approval_requests SET expiry_unreported = FALSE WHERE expiry_unreported RETURNING id, created_at`,
        );
        rows.sort(
          (a, b) => str(a.created_at).localeCompare(str(b.created_at)) || str(a.id).localeCompare(str(b.id)),
        );
        const changed: ApprovalRequest[] = [];
        for (const row of rows) changed.push(await mustGet(q, str(row.id)));
        return changed;
      }),
    ...retryLookups(context),
  };
}
