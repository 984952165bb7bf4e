/**
 * Whether the approver behind a grant still stands (issue 13, finding 4): a grant lets a call
 * through only while the identity that approved it exists and still holds the right to approve
 * that request — the `approver` or `admin` role, and a place in the rule's `approvers` (or the admin
 * fallback). Checked right before a grant is used and on every sweep.
 *
 * The approver is the identity *name* recorded in the decision, not its token: rotating the
 * approver's token (a new token, same name and roles) keeps the grants they gave.
 */
import type { Identity } from '../pipeline.ts';
import type { ApprovalPolicy, ApprovalRequest } from './approval-request.ts';

/**
 * Whether `who` may decide a request held under `policy`: `'listed'` (named in the rule's
 * `approvers` by name or `role:<role>`), `'fallback'` (only as an admin), or undefined. Either way
 * the identity must hold the `approver` or `admin` role.
 */
export function deciderRight(
  who: Pick<Identity, 'name' | 'roles'>,
  policy: Pick<ApprovalPolicy, 'approvers'>,
): 'listed' | 'fallback' | undefined {
  const admin = who.roles.includes('admin');
  if (!admin && !who.roles.includes('approver')) return undefined;
  const listed = policy.approvers.some((entry) =>
    entry.startsWith('role:')
      ? who.roles.includes(entry.slice(5) as Identity['roles'][number])
      : entry === who.name,
  );
  if (listed) return 'listed';
  return admin ? 'fallback' : undefined;
}

export type ApproverStanding =
  | { ok: true }
  /** The grant is void: `reason` names the approver and why (recorded as `status_reason`). */
  | { ok: false; reason: string }
  /** The identities cannot be read now (tokens.yaml invalid): neither use nor cancel the grant. */
  | { ok: 'unknown' };

export interface StandingLookup {
  /** The identity named `name` now (tokens.yaml, `local` built in), or undefined when revoked. */
  findIdentity?: (name: string) => Identity | undefined;
  /** Whether the identities can be read now; false: nothing is decided from a missing identity. */
  identitiesReadable?: () => boolean;
}

/**
 * The standing of the approver of `request`'s grant. A request without a recorded approver
 * (`decision` null) or a server without an identity lookup always stands (nothing to check).
 */
export function approverStanding(
  request: Pick<ApprovalRequest, 'decision' | 'policy' | 'requester'>,
  lookup: StandingLookup,
): ApproverStanding {
  const by = request.decision?.by;
  if (by === undefined || !lookup.findIdentity) return { ok: true };
  if (lookup.identitiesReadable?.() === false) return { ok: 'unknown' };
  const approver = lookup.findIdentity(by);
  if (!approver) return { ok: false, reason: `approver '${by}' who approved this grant was revoked` };
  if (approver.name === request.requester || !deciderRight(approver, request.policy)) {
    const roles = approver.roles.length > 0 ? approver.roles.join(', ') : 'none';
    return {
      ok: false,
      reason: `approver '${by}' who approved this grant no longer may approve it (roles now: ${roles}; the rule names ${request.policy.approvers.join(', ')}, admins as fallback)`,
    };
  }
  return { ok: true };
}
