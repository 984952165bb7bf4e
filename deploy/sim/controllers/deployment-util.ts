/**
 * Helpers of the Deployment controller, ported from k8s.io/kubernetes/pkg/controller/deployment/util
 * (names kept so the port can be checked against the original).
 */
import { isDeepStrictEqual } from 'node:util';
import type { Condition, Deployment, KubeObject, PodTemplateSpec, ReplicaSet } from '../types.ts';

export const REVISION_ANNOTATION = 'deployment.kubernetes.io/revision';
export const REVISION_HISTORY_ANNOTATION = 'deployment.kubernetes.io/revision-history';
export const DESIRED_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/desired-replicas';
export const MAX_REPLICAS_ANNOTATION = 'deployment.kubernetes.io/max-replicas';
export const POD_TEMPLATE_HASH_LABEL = 'pod-template-hash';

/** Deployment annotations that are not copied to its ReplicaSets (`annotationsToSkip`). */
export const ANNOTATIONS_TO_SKIP = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  REVISION_ANNOTATION,
  REVISION_HISTORY_ANNOTATION,
  DESIRED_REPLICAS_ANNOTATION,
  MAX_REPLICAS_ANNOTATION,
  'deprecated.deployment.rollback.to',
]);

/** `deploymentutil.Revision`: the revision annotation as a number (0 when absent or malformed). */
export function revisionOf(object: KubeObject): number {
  const value = Number.parseInt(object.metadata.annotations?.[REVISION_ANNOTATION] ?? '', 10);
  return Number.isFinite(value) ? value : 0;
}

/** `EqualIgnoreHash`: templates equal apart from the pod-template-hash label. */
export function equalIgnoreHash(a: PodTemplateSpec, b: PodTemplateSpec): boolean {
  const strip = (template: PodTemplateSpec) => {
    const copy = structuredClone(template);
    if (copy.metadata?.labels) {
      delete copy.metadata.labels[POD_TEMPLATE_HASH_LABEL];
      if (Object.keys(copy.metadata.labels).length === 0) delete copy.metadata.labels;
    }
    return copy;
  };
  return isDeepStrictEqual(strip(a), strip(b));
}

/** Whether `object` is controlled by the object with `uid` (its controller owner reference). */
export function isControlledBy(object: KubeObject, uid: string | undefined): boolean {
  return (object.metadata.ownerReferences ?? []).some((ref) => ref.controller && ref.uid === uid);
}

/** The controller owner reference of `object`, if any. */
export function controllerOf(object: KubeObject) {
  return (object.metadata.ownerReferences ?? []).find((ref) => ref.controller);
}

/** `intstr.GetScaledValueFromIntOrPercent`. */
function scaledValue(value: number | string | undefined, total: number, roundUp: boolean): number {
  if (value === undefined) return 0;
  if (typeof value === 'number') return value;
  const match = /^(\d+)%$/.exec(value);
  if (!match) return Number.parseInt(value, 10) || 0;
  const exact = (Number.parseInt(match[1]!, 10) * total) / 100;
  return roundUp ? Math.ceil(exact) : Math.floor(exact);
}

/** `ResolveFenceposts`: maxSurge rounds up, maxUnavailable down; both 0 makes maxUnavailable 1. */
export function resolveFenceposts(deployment: Deployment): { maxSurge: number; maxUnavailable: number } {
  const replicas = deployment.spec.replicas ?? 1;
  const rolling = deployment.spec.strategy?.rollingUpdate;
  const maxSurge = scaledValue(rolling?.maxSurge ?? '25%', replicas, true);
  let maxUnavailable = scaledValue(rolling?.maxUnavailable ?? '25%', replicas, false);
  if (maxSurge === 0 && maxUnavailable === 0) maxUnavailable = 1;
  return { maxSurge, maxUnavailable };
}

/** `MaxUnavailable`: 0 for Recreate or zero replicas; never more than the replicas. */
export function maxUnavailable(deployment: Deployment): number {
  const replicas = deployment.spec.replicas ?? 1;
  if (deployment.spec.strategy?.type !== 'RollingUpdate' || replicas === 0) return 0;
  return Math.min(resolveFenceposts(deployment).maxUnavailable, replicas);
}

/** `MaxSurge`: 0 for Recreate. */
export function maxSurge(deployment: Deployment): number {
  if (deployment.spec.strategy?.type !== 'RollingUpdate') return 0;
  return resolveFenceposts(deployment).maxSurge;
}

export const specReplicas = (rs: ReplicaSet): number => rs.spec.replicas ?? 1;
export const sum = (values: number[]): number => values.reduce((total, value) => total + value, 0);

/** `GetReplicaCountForReplicaSets`: sum of spec.replicas. */
export function replicaCount(sets: ReplicaSet[]): number {
  return sum(sets.map(specReplicas));
}

/** `GetActualReplicaCountForReplicaSets`: sum of status.replicas. */
export function actualReplicaCount(sets: ReplicaSet[]): number {
  return sum(sets.map((rs) => rs.status?.replicas ?? 0));
}

export function availableReplicaCount(sets: ReplicaSet[]): number {
  return sum(sets.map((rs) => rs.status?.availableReplicas ?? 0));
}

export function readyReplicaCount(sets: ReplicaSet[]): number {
  return sum(sets.map((rs) => rs.status?.readyReplicas ?? 0));
}

/** `NewDeploymentCondition` at `now` (RFC 3339). */
export function newCondition(
  type: string,
  status: Condition['status'],
  reason: string,
  message: string,
  now: string,
): Condition {
  return { type, status, lastUpdateTime: now, lastTransitionTime: now, reason, message };
}

export function getCondition(conditions: Condition[] | undefined, type: string): Condition | undefined {
  return conditions?.find((condition) => condition.type === type);
}

/**
 * `SetDeploymentCondition`: no change when status and reason are equal; keeps lastTransitionTime
 * when only the reason changed; the new condition goes last.
 */
export function setCondition(conditions: Condition[], condition: Condition): Condition[] {
  const current = getCondition(conditions, condition.type);
  if (current && current.status === condition.status && current.reason === condition.reason)
    return conditions;
  const next = { ...condition };
  if (current && current.status === condition.status) next.lastTransitionTime = current.lastTransitionTime;
  return [...conditions.filter((existing) => existing.type !== condition.type), next];
}

export function removeCondition(conditions: Condition[], type: string): Condition[] {
  return conditions.filter((condition) => condition.type !== type);
}

/** Sort by creation time, then name (`controller.ReplicaSetsByCreationTimestamp`). */
export function byCreation(a: KubeObject, b: KubeObject): number {
  return (
    (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') ||
    a.metadata.name.localeCompare(b.metadata.name)
  );
}

/** Sort by revision, then creation (`deploymentutil.ReplicaSetsByRevision`). */
export function byRevision(a: ReplicaSet, b: ReplicaSet): number {
  return revisionOf(a) - revisionOf(b) || byCreation(a, b);
}

/**
 * `FindActiveOrLatest` (k8s.io/kubernetes/pkg/controller/deployment/util): the only active
 * ReplicaSet (spec.replicas > 0), or — when none is active — the new one, else the newest old one
 * by creation; undefined when several are active (then the real controller scales proportionally).
 */
export function findActiveOrLatest(
  newRS: ReplicaSet | undefined,
  oldRSs: readonly ReplicaSet[],
): ReplicaSet | undefined {
  if (!newRS && oldRSs.length === 0) return undefined;
  const newestFirst = [...oldRSs].sort((a, b) => byCreation(b, a));
  const active = [...newestFirst, ...(newRS ? [newRS] : [])].filter((rs) => (rs.spec.replicas ?? 1) > 0);
  if (active.length === 0) return newRS ?? newestFirst[0];
  return active.length === 1 ? active[0] : undefined;
}
