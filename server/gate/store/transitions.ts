/**
 * The approval request's lifecycle as data: every legal `(status, event) → status` with its guard.
 * Every `ApprovalStore` (SQLite, PostgreSQL) changes a request's status only through this table:
 * a pair not listed here is an illegal transition and is refused (the status stays as it is).
 *
 *   pending ──approve──▶ approved ──begin (once grant)──▶ executing ──succeed──▶ executed
 *      │                    │                                 ├──fail──▶ failed
 *      ├──deny──▶ denied    ├──expire (grant ended)──▶ expired └──go_stale──▶ stale
 *      ├──withdraw──▶ withdrawn
 *      ├──expire──▶ expired ├──revoke (unused)──▶ cancelled
 *      ├──cancel──▶ cancelled ◀──cancel / cancel_grant──┘
 *      └──supersede──▶ superseded
 *
 * A window grant stays `approved` while its calls execute (their executions are rows of their own,
 * not transitions of the request). Guards are named here and evaluated by `guardHolds` on the
 * request as read inside the store's transaction; a store may also express them in its query
 * language, as long as it means the same thing.
 */
import type { ApprovalRequest, ApprovalStatus, ExecutionStatus } from '../approval-request.ts';

/** What happens to a request. */
export const REQUEST_EVENTS = [
  /** An approver allows it. */
  'approve',
  /** An approver denies it. */
  'deny',
  /** Its requester takes it back. */
  'withdraw',
  /** Its time ran out: a pending request's `expires_at`, or an approved grant's end, unused. */
  'expire',
  /** The same call was requested again with a different effect; a new request replaces it. */
  'supersede',
  /** Its requester was revoked, re-keyed, or now reaches another cluster by the same context. */
  'cancel',
  /** An approver takes back a grant no call has used. */
  'revoke',
  /** The approver of its grant no longer stands (revoked, or lost the right to approve it). */
  'cancel_grant',
  /** A retry consumes its once grant: the execution starts. */
  'begin',
  /** The consuming execution succeeded. */
  'succeed',
  /** The consuming execution failed (or was interrupted by a crash and settled so). */
  'fail',
  /** The target changed since the approver saw the preview: not executed. */
  'go_stale',
] as const;
export type RequestEvent = (typeof REQUEST_EVENTS)[number];

/** Conditions a transition needs beyond the current status, evaluated at the store's `now`. */
export const GUARDS = {
  /** The request has not expired: `expires_at` is after now. */
  unexpired: 'expires_at is after now',
  /** The request's time is up: `expires_at` is at or before now. */
  due: 'expires_at is at or before now',
  /** The grant is still valid: `grant.expires_at` is after now. */
  grant_unexpired: 'grant.expires_at is after now',
  /** The grant ended: `grant.expires_at` is at or before now. */
  grant_due: 'grant.expires_at is at or before now',
  /** No execution has used the grant. */
  unused: 'no execution used the grant',
} as const;
export type Guard = keyof typeof GUARDS;

export interface Transition {
  from: ApprovalStatus;
  event: RequestEvent;
  to: ApprovalStatus;
  /** Must hold as well as `from`; undefined: the status alone decides. */
  guard?: Guard;
}

/** Every legal transition. Anything else is refused. */
export const TRANSITIONS: readonly Transition[] = [
  { from: 'pending', event: 'approve', to: 'approved', guard: 'unexpired' },
  { from: 'pending', event: 'deny', to: 'denied', guard: 'unexpired' },
  { from: 'pending', event: 'withdraw', to: 'withdrawn', guard: 'unexpired' },
  { from: 'pending', event: 'expire', to: 'expired', guard: 'due' },
  { from: 'pending', event: 'supersede', to: 'superseded' },
  { from: 'pending', event: 'cancel', to: 'cancelled' },
  { from: 'approved', event: 'expire', to: 'expired', guard: 'grant_due' },
  { from: 'approved', event: 'cancel', to: 'cancelled' },
  { from: 'approved', event: 'revoke', to: 'cancelled', guard: 'unused' },
  { from: 'approved', event: 'cancel_grant', to: 'cancelled' },
  { from: 'approved', event: 'begin', to: 'executing', guard: 'grant_unexpired' },
  { from: 'executing', event: 'succeed', to: 'executed' },
  { from: 'executing', event: 'fail', to: 'failed' },
  { from: 'executing', event: 'go_stale', to: 'stale' },
];

/** The transition for `event` from `from`, or undefined when the table has none (illegal). */
export function transitionFor(from: ApprovalStatus, event: RequestEvent): Transition | undefined {
  return TRANSITIONS.find((transition) => transition.from === from && transition.event === event);
}

/** The statuses `event` may leave, in table order (for a store's `status IN (...)`). */
export function statusesFor(event: RequestEvent): ApprovalStatus[] {
  return TRANSITIONS.filter((transition) => transition.event === event).map((transition) => transition.from);
}

/** The fields of a request a guard reads. */
export type GuardedRequest = Pick<ApprovalRequest, 'expires_at' | 'grant'> & {
  executions: readonly unknown[];
};

/** Whether `guard` holds for `request` at `now` (ISO timestamps compare as instants). */
export function guardHolds(guard: Guard, request: GuardedRequest, now: Date): boolean {
  const at = now.getTime();
  const grantEnds = request.grant ? Date.parse(request.grant.expires_at) : Number.NaN;
  switch (guard) {
    case 'unexpired':
      return Date.parse(request.expires_at) > at;
    case 'due':
      return Date.parse(request.expires_at) <= at;
    case 'grant_unexpired':
      return grantEnds > at;
    case 'grant_due':
      return grantEnds <= at;
    case 'unused':
      return request.executions.length === 0;
  }
}

/**
 * The status `request` moves to on `event` at `now`, or undefined when the move is illegal (no such
 * transition, or its guard does not hold). Pure: the store writes the answer.
 */
export function nextStatus(
  request: GuardedRequest & { status: ApprovalStatus },
  event: RequestEvent,
  now: Date,
): ApprovalStatus | undefined {
  const transition = transitionFor(request.status, event);
  if (!transition) return undefined;
  if (transition.guard && !guardHolds(transition.guard, request, now)) return undefined;
  return transition.to;
}

/** The event a finished execution means for the request whose once grant it consumed. */
export function finishEvent(status: Exclude<ExecutionStatus, 'executing'>): RequestEvent {
  if (status === 'succeeded') return 'succeed';
  if (status === 'stale') return 'go_stale';
  return 'fail';
}

/** Thrown by a store asked to make a transition the table does not allow. */
export class IllegalTransitionError extends Error {
  readonly from: ApprovalStatus;
  readonly event: RequestEvent;
  constructor(from: ApprovalStatus, event: RequestEvent) {
    super(`approval request transition refused: ${event} from ${from} is not in the transition table`);
    this.name = 'IllegalTransitionError';
    this.from = from;
    this.event = event;
  }
}

/** The target of `event` from `from`, or `IllegalTransitionError` (for writes the caller checked). */
export function targetOf(from: ApprovalStatus, event: RequestEvent): ApprovalStatus {
  const transition = transitionFor(from, event);
  if (!transition) throw new IllegalTransitionError(from, event);
  return transition.to;
}
