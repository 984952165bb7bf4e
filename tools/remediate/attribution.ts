/**
 * Attribution of every change Sentinel makes, in the cluster itself: the field manager `sentinel`,
 * the approval request id and the reason as annotations under Sentinel's own prefix, and — for
 * changes that produce a new revision — the `kubernetes.io/change-cause` that `kubectl rollout
 * history` shows. The approval gate's crash reconciliation reads the approval request id back.
 */
import { CHANGE_CAUSE_ANNOTATION } from '../kube/index.ts';
import { oneLine } from '../format/index.ts';
import { redact } from '../redact.ts';
import { CHANGE_CAUSE_REASON_LENGTH, MAX_REASON_LENGTH } from './args.ts';

/** Server-side field manager of every write (`managedFields[].manager`). */
export const FIELD_MANAGER = 'sentinel';
/** Prefix of Sentinel's own annotations. */
export const ANNOTATION_PREFIX = 'sentinel.dev/';
/** The approval request a change executed (absent when the call was not held for approval). */
export const APPROVAL_REQUEST_ANNOTATION = 'sentinel.dev/approval-request-id';
/** The caller's `reason`, redacted. */
export const REASON_ANNOTATION = 'sentinel.dev/reason';

/** Who and why, for one execution. */
export interface Attribution {
  /** What is done, e.g. `roll back to revision 6`. */
  action: string;
  reason?: string | undefined;
  approvalRequestId?: string | undefined;
  /**
   * Whether the change makes a new revision, so `kubernetes.io/change-cause` describes it. Changes
   * without a new revision (scale, pause, resume) leave the change-cause alone: the controller
   * copies it to the current ReplicaSet, and overwriting it would misdescribe that revision.
   */
  newRevision: boolean;
}

/**
 * The change-cause Sentinel records: `<action> — <reason> (sentinel, approval request <id>)`, one
 * line (newlines and other whitespace runs become one space, control characters removed), secrets
 * redacted, the reason cut to `CHANGE_CAUSE_REASON_LENGTH` (100) characters ending in `…`, e.g.
 * `roll back to revision 6 — checkout 502s (sentinel, approval request ar-1)`.
 */
export function changeCause(attribution: Attribution): string {
  const reason = attribution.reason
    ? ` — ${oneLine(cleanReason(attribution.reason), CHANGE_CAUSE_REASON_LENGTH)}`
    : '';
  const approval = attribution.approvalRequestId ? `, approval request ${attribution.approvalRequestId}` : '';
  return `${oneLine(attribution.action, 1000)}${reason} (sentinel${approval})`;
}

/**
 * The annotations an execution sets on the Deployment: `sentinel.dev/reason`,
 * `sentinel.dev/approval-request-id` and (for a new revision) `kubernetes.io/change-cause`.
 */
export function attributionAnnotations(attribution: Attribution): Record<string, string> {
  return {
    ...(attribution.reason && { [REASON_ANNOTATION]: cleanReason(attribution.reason) }),
    ...(attribution.approvalRequestId && { [APPROVAL_REQUEST_ANNOTATION]: attribution.approvalRequestId }),
    ...(attribution.newRevision && { [CHANGE_CAUSE_ANNOTATION]: changeCause(attribution) }),
  };
}

/**
 * A merge-patch of `metadata.annotations` that sets `stamps` and removes (`null`) any other
 * `sentinel.dev/` annotation left from an earlier change, so an old approval request id is never
 * mistaken for this change's.
 */
export function annotationPatch(
  current: Record<string, string> | undefined,
  stamps: Record<string, string>,
): Record<string, string | null> {
  const patch: Record<string, string | null> = {};
  for (const key of Object.keys(current ?? {})) {
    if (key.startsWith(ANNOTATION_PREFIX) && !(key in stamps)) patch[key] = null;
  }
  return { ...patch, ...stamps };
}

/**
 * A strategic merge patch of a Deployment: `spec` as given, plus `metadata.annotations` from
 * `annotationPatch` when it has anything to set or remove (so with nothing to record, the patch is
 * exactly kubectl's).
 */
export function attributedPatch(
  spec: Record<string, unknown>,
  current: Record<string, string> | undefined,
  stamps: Record<string, string>,
): Record<string, unknown> {
  const annotations = annotationPatch(current, stamps);
  return Object.keys(annotations).length ? { spec, metadata: { annotations } } : { spec };
}

/** `annotations` with stale `sentinel.dev/` keys removed and `stamps` set (for whole-map replacement). */
export function withStamps(
  annotations: Record<string, string>,
  stamps: Record<string, string>,
): Record<string, string> {
  const kept = Object.entries(annotations).filter(([key]) => !key.startsWith(ANNOTATION_PREFIX));
  return { ...Object.fromEntries(kept), ...stamps };
}

function cleanReason(reason: string): string {
  return oneLine(redact(reason).value, MAX_REASON_LENGTH);
}
