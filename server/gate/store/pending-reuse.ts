/**
 * Which pending request a held call reuses (DESIGN.md: "creates — or reuses, for the same requester
 * and canonical call while pending"): the pure half of `createOrReusePending`, shared by the SQLite
 * and PostgreSQL stores. The canonical call has its defaults applied, and a tool's defaults are
 * applied by its resolution (a rollback's omitted `to_revision` is the previous revision), so a
 * pending request is the same call when it was made with the same arguments (`requested_key`) or
 * resolved to the same call (`resolved_key`): `{name}` and `{name, to_revision: 6}` meet one request
 * while 6 is the previous revision.
 */
import type { ApprovalRequest } from '../approval-request.ts';
import type { NewApprovalRequest } from './types.ts';

/** A live pending request matched by either key, as a store read it. */
export interface PendingCandidate {
  request: ApprovalRequest;
  requestedKey: string;
  resolvedKey: string;
  /** The requester credential it is bound to. */
  credential: string;
  /** The API server URL it is bound to (null when none was configured). */
  server: string | null;
}

/** What the store does: cancel, supersede (by `by`, the reused or the new request), reuse or insert. */
export interface PendingPlan {
  /** The pending request made the same way under another token or cluster server (cancelled first). */
  cancel?: { id: string; reason: string };
  /** Pending requests of this call that end as `superseded`, each with its reason. */
  supersede: { id: string; reason: string }[];
  /** The request reused (its preview refreshed); absent: insert the new one. */
  reuse?: string;
}

/**
 * Plans `createOrReusePending` for `input` over the pending requests matching either of its keys.
 * Only a request of the same credential and cluster server is reused; the one made with the same
 * arguments under another binding is cancelled (the store keeps one pending request per requested
 * key); one of another binding matched only by its resolution is left alone. A request resolving to
 * the same call is preferred over one only spelled the same, then the newest; `supersede` names why
 * a request cannot be reused (its effect changed). Every other pending request of the call ends
 * superseded by the one that stands, so an approver sees one request per call.
 */
export function planPending(
  input: NewApprovalRequest,
  candidates: readonly PendingCandidate[],
  supersede?: (existing: ApprovalRequest) => string | undefined,
): PendingPlan {
  const { request } = input;
  const server = request.cluster?.server ?? null;
  const plan: PendingPlan = { supersede: [] };
  const bound: PendingCandidate[] = [];
  for (const candidate of candidates) {
    const sameCredential = candidate.credential === input.requesterCredential;
    if (sameCredential && candidate.server === server) bound.push(candidate);
    else if (candidate.requestedKey === input.requestedKey) {
      plan.cancel = { id: candidate.request.id, reason: otherBindingReason(request, sameCredential) };
    }
  }
  const rank = (c: PendingCandidate) => (c.resolvedKey === input.resolvedKey ? 0 : 1);
  const ordered = [...bound].sort(
    (a, b) => rank(a) - rank(b) || b.request.created_at.localeCompare(a.request.created_at),
  );
  const reasons = new Map(ordered.map((c) => [c.request.id, supersede?.(c.request)]));
  plan.reuse = ordered.find((c) => reasons.get(c.request.id) === undefined)?.request.id;
  for (const candidate of ordered) {
    const id = candidate.request.id;
    if (id === plan.reuse) continue;
    const reason = reasons.get(id) ?? `the same call as approval request ${plan.reuse} (defaults applied)`;
    plan.supersede.push({ id, reason });
  }
  return plan;
}

/** Why the pending request of another credential or cluster server is cancelled. */
function otherBindingReason(request: NewApprovalRequest['request'], sameCredential: boolean): string {
  return sameCredential
    ? `the context '${request.cluster?.context ?? ''}' now points at another cluster (${request.cluster?.server ?? 'none'})`
    : `identity '${request.requester}' now authenticates with a different token`;
}
