/**
 * Deployment and ReplicaSet logic as kubectl and the deployment controller define it, shared by the
 * investigation tools (history, status, triage) and remediation (rollback target, verification).
 * Sources mirrored: k8s.io/kubectl/pkg/util/deployment (GetAllReplicaSets, Revision,
 * FindNewReplicaSet, EqualIgnoreHash), k8s.io/kubectl/pkg/polymorphichelpers (history.go,
 * rollback.go, rollout_status.go).
 */
import { isDeepStrictEqual } from 'node:util';
import type { Deployment, ObjectMeta, PodTemplateSpec, ReplicaSet } from './types.ts';

/** Annotation holding the revision number on a Deployment and its ReplicaSets. */
export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
/** Annotation `kubectl rollout history` shows as CHANGE-CAUSE. */
export const CHANGE_CAUSE_ANNOTATION = 'kubernetes.io/change-cause';
/** Label the deployment controller adds to a ReplicaSet's template and Pods. */
export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';
/** The Progressing condition reason when a rollout exceeded `progressDeadlineSeconds`. */
export const TIMED_OUT_REASON = 'ProgressDeadlineExceeded';

/** The controller owner reference of an object (`metav1.GetControllerOf`), if any. */
export function controllerOf(meta: ObjectMeta | undefined) {
  return meta?.ownerReferences?.find((ref) => ref.controller === true);
}

/** Whether `owned` is controlled by `owner` (`metav1.IsControlledBy`: the controller reference's uid matches). */
export function isControlledBy(owned: { metadata?: ObjectMeta }, owner: { metadata?: ObjectMeta }): boolean {
  const uid = owner.metadata?.uid;
  return uid !== undefined && controllerOf(owned.metadata)?.uid === uid;
}

/**
 * The ReplicaSets a Deployment controls, found by owner reference (never by name prefix), oldest
 * first (creation time, then name, as kubectl's `ReplicaSetsByCreationTimestamp`).
 */
export function replicaSetsOf<R extends ReplicaSet>(deployment: Deployment, replicaSets: readonly R[]): R[] {
  return replicaSets.filter((rs) => isControlledBy(rs, deployment)).sort(byCreation);
}

function byCreation(a: ReplicaSet, b: ReplicaSet): number {
  const ta = timeOf(a.metadata?.creationTimestamp);
  const tb = timeOf(b.metadata?.creationTimestamp);
  if (ta !== tb) return ta - tb;
  return (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '');
}

/** Milliseconds since epoch of a Kubernetes timestamp (Date or RFC 3339 string); 0 when unset. */
export function timeOf(value: Date | string | undefined | null): number {
  if (value === undefined || value === null) return 0;
  const ms = value instanceof Date ? value.getTime() : Date.parse(value);
  return Number.isNaN(ms) ? 0 : ms;
}

/**
 * The revision of a Deployment or ReplicaSet (`deploymentutil.Revision`): the revision annotation
 * as an integer, 0 when the annotation is absent, `undefined` when it is not an integer (kubectl
 * skips such ReplicaSets).
 */
export function revisionOf(obj: { metadata?: ObjectMeta }): number | undefined {
  const raw = obj.metadata?.annotations?.[REVISION_ANNOTATION];
  if (raw === undefined) return 0;
  return /^[+-]?\d+$/.test(raw.trim()) ? Number.parseInt(raw.trim(), 10) : undefined;
}

/**
 * Whether two pod templates are equal ignoring the `pod-template-hash` label
 * (`deploymentutil.EqualIgnoreHash`).
 */
export function equalIgnoreHash(a: PodTemplateSpec | undefined, b: PodTemplateSpec | undefined): boolean {
  return isDeepStrictEqual(templateWithoutHash(a), templateWithoutHash(b));
}

/**
 * A plain-JSON copy of a pod template without the `pod-template-hash` label: what `kubectl rollout
 * undo` writes back into the Deployment from the target ReplicaSet.
 */
export function templateWithoutHash(template: PodTemplateSpec | undefined): PodTemplateSpec {
  // A JSON round trip drops undefined fields and turns Dates into strings, so equal templates compare equal.
  const copy = JSON.parse(JSON.stringify(template ?? {})) as {
    metadata?: { labels?: Record<string, string> };
  };
  if (copy.metadata?.labels) {
    delete copy.metadata.labels[POD_TEMPLATE_HASH_LABEL];
    if (Object.keys(copy.metadata.labels).length === 0) delete copy.metadata.labels;
  }
  return copy as PodTemplateSpec;
}

/**
 * The Deployment's new (current) ReplicaSet: the oldest owned ReplicaSet whose template equals the
 * Deployment's, ignoring the hash label (`deploymentutil.FindNewReplicaSet`). `undefined` before the
 * controller has created it.
 */
export function newReplicaSetOf<R extends ReplicaSet>(
  deployment: Deployment,
  owned: readonly R[],
): R | undefined {
  return [...owned]
    .sort(byCreation)
    .find((rs) => equalIgnoreHash(rs.spec?.template, deployment.spec?.template));
}

/** One revision in a Deployment's rollout history. */
export interface RolloutRevision {
  revision: number;
  replicaSet: ReplicaSet;
  /** `kubernetes.io/change-cause` of the ReplicaSet, if set. */
  changeCause: string | undefined;
  /** Whether this is the Deployment's new (current) ReplicaSet. */
  current: boolean;
}

/**
 * The rollout history as `kubectl rollout history deployment/<name>` computes it: one entry per
 * revision number of the owned ReplicaSets (a later ReplicaSet with the same number wins, as in
 * kubectl's map), ReplicaSets whose revision is not an integer skipped, sorted by revision as
 * numbers (so 10 comes after 9).
 */
export function rolloutHistory(deployment: Deployment, owned: readonly ReplicaSet[]): RolloutRevision[] {
  const current = newReplicaSetOf(deployment, owned);
  // kubectl iterates old ReplicaSets, then the new one, so the new one wins a duplicate number.
  const ordered = [...owned.filter((rs) => rs !== current), ...(current ? [current] : [])];
  const byRevision = new Map<number, RolloutRevision>();
  for (const rs of ordered) {
    const revision = revisionOf(rs);
    if (revision === undefined) continue;
    byRevision.set(revision, {
      revision,
      replicaSet: rs,
      changeCause: rs.metadata?.annotations?.[CHANGE_CAUSE_ANNOTATION] || undefined,
      current: rs === current,
    });
  }
  return [...byRevision.values()].sort((a, b) => a.revision - b.revision);
}

/** Outcome of choosing the ReplicaSet a rollback returns to. */
export type RollbackTarget<R extends ReplicaSet = ReplicaSet> =
  | { found: true; replicaSet: R; revision: number }
  | { found: false; reason: 'revision_not_found' | 'no_history'; revisions: number[] };

/**
 * The ReplicaSet `kubectl rollout undo --to-revision=<toRevision>` would return to: with
 * `toRevision` 0, the second-highest revision (the one before the latest); otherwise the ReplicaSet
 * with exactly that revision. Mirrors polymorphichelpers/rollback.go `deploymentRevision`.
 */
export function rollbackTarget<R extends ReplicaSet>(
  deployment: Deployment,
  owned: readonly R[],
  toRevision = 0,
): RollbackTarget<R> {
  const current = newReplicaSetOf(deployment, owned);
  const all = [...owned.filter((rs) => rs !== current), ...(current ? [current] : [])];
  let latest: { rs: R; revision: number } | undefined;
  let previous: { rs: R; revision: number } | undefined;
  const revisions: number[] = [];
  for (const rs of all) {
    const revision = revisionOf(rs);
    if (revision === undefined) continue;
    revisions.push(revision);
    if (toRevision !== 0) {
      if (revision === toRevision) return { found: true, replicaSet: rs, revision };
    } else if (latest === undefined || latest.revision < revision) {
      previous = latest;
      latest = { rs, revision };
    } else if (previous === undefined || previous.revision < revision) {
      previous = { rs, revision };
    }
  }
  const sorted = [...new Set(revisions)].sort((a, b) => a - b);
  if (toRevision !== 0) return { found: false, reason: 'revision_not_found', revisions: sorted };
  if (!previous) return { found: false, reason: 'no_history', revisions: sorted };
  return { found: true, replicaSet: previous.rs, revision: previous.revision };
}

/** A Deployment condition by type (`Progressing`, `Available`, `ReplicaFailure`). */
export function conditionOf(deployment: Deployment, type: string) {
  return deployment.status?.conditions?.find((c) => c.type === type);
}

/** The verdict of `kubectl rollout status`, plus `paused`. */
export type RolloutVerdict =
  | { state: 'complete'; message: string }
  | { state: 'progressing'; message: string }
  | { state: 'failed'; reason: string; message: string }
  | { state: 'paused'; message: string };

/**
 * The rollout verdict `kubectl rollout status deployment/<name>` gives (rollout_status.go
 * `DeploymentStatusViewer.Status`). Conditions and counts are trusted only once the controller has
 * observed the latest spec (`status.observedGeneration >= metadata.generation`); before that the
 * rollout is `progressing` ("waiting for the spec update to be observed"). Then, in kubectl's order:
 * Progressing condition with reason `ProgressDeadlineExceeded` → `failed`; fewer updated replicas
 * than desired, old replicas pending termination, or fewer available than updated →
 * `progressing` (or `paused` when `spec.paused`, which kubectl would wait on forever); otherwise
 * `complete`.
 */
export function rolloutVerdict(deployment: Deployment): RolloutVerdict {
  const name = deployment.metadata?.name ?? '';
  const generation = deployment.metadata?.generation ?? 0;
  const status = deployment.status ?? {};
  if (generation > (status.observedGeneration ?? 0)) {
    return {
      state: 'progressing',
      message: `Waiting for deployment "${name}" spec update to be observed (generation ${generation}, observed ${status.observedGeneration ?? 0})...`,
    };
  }
  const progressing = conditionOf(deployment, 'Progressing');
  if (progressing?.reason === TIMED_OUT_REASON) {
    return {
      state: 'failed',
      reason: TIMED_OUT_REASON,
      message: `deployment "${name}" exceeded its progress deadline${progressing.message ? `: ${progressing.message}` : ''}`,
    };
  }
  const desired = deployment.spec?.replicas;
  const updated = status.updatedReplicas ?? 0;
  const replicas = status.replicas ?? 0;
  const available = status.availableReplicas ?? 0;
  let waiting: string | undefined;
  if (desired !== undefined && updated < desired) {
    waiting = `${updated} out of ${desired} new replicas have been updated`;
  } else if (replicas > updated) {
    waiting = `${replicas - updated} old replicas are pending termination`;
  } else if (available < updated) {
    waiting = `${available} of ${updated} updated replicas are available`;
  }
  if (waiting === undefined)
    return { state: 'complete', message: `deployment "${name}" successfully rolled out` };
  if (deployment.spec?.paused) {
    return {
      state: 'paused',
      message: `deployment "${name}" is paused with its rollout unfinished: ${waiting}; it will not progress until resumed`,
    };
  }
  return {
    state: 'progressing',
    message: `Waiting for deployment "${name}" rollout to finish: ${waiting}...`,
  };
}
