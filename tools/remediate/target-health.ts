/**
 * Warnings about a rollback's target revision, from evidence (issue 14): the target showed failures
 * or never became available (`revisionHealth`), or it is the revision the Deployment was just rolled
 * back from (the current ReplicaSet re-uses an older template, so `deployment.kubernetes.io/revision-history`
 * is set, and the target is the revision right below it). Read for the previews a human decides on
 * only: an execution, and an approved retry's re-check (`ToolContext.recheck`), stay at their two
 * reads and one PATCH.
 */
import {
  mergeEvents,
  formatLabelSelector,
  newReplicaSetOf,
  replicaSetsOf,
  revisionOf,
  rolloutHistory,
  type ClusterEvent,
  type Deployment,
  type KubeReader,
  type Pod,
  type ReplicaSet,
} from '../kube/index.ts';
import { revisionHealth } from '../investigate/revision-health.ts';
import { deploymentRef, type Warning } from './warnings.ts';

/** The annotation the Deployment controller keeps a re-used ReplicaSet's former revision numbers in. */
export const REVISION_HISTORY_ANNOTATION = 'deployment.kubernetes.io/revision-history';

/**
 * Warnings for rolling `deployment` back to `toRevision`, given its ReplicaSets and the namespace's
 * Pods and events. Pure. None when the target looks healthy.
 */
export function targetRevisionWarnings(
  deployment: Deployment,
  replicaSets: readonly ReplicaSet[],
  pods: readonly Pod[],
  events: readonly ClusterEvent[],
  toRevision: number,
): Warning[] {
  const owned = replicaSetsOf(deployment, replicaSets);
  const history = rolloutHistory(deployment, owned);
  const health = revisionHealth(history, pods, events);
  const ref = deploymentRef(deployment);
  const warnings: Warning[] = [];
  const healthy = history
    .filter((h) => h.revision !== toRevision && !h.current && health.get(h.revision)?.state === 'healthy')
    .map((h) => h.revision)
    .sort((a, b) => b - a);
  const better = healthy.length
    ? ` The newest revision with a healthy record is ${healthy[0]} (to_revision: ${healthy[0]}).`
    : '';
  const target = health.get(toRevision);
  if (target?.state === 'failed') {
    warnings.push({
      kind: 'target_unhealthy',
      message: `Revision ${toRevision} of ${ref}, the rollback's target, showed failures (${target.failures.join('; ')}): rolling back to it may not restore service.${better}`,
    });
  } else if (target?.state === 'unknown') {
    warnings.push({
      kind: 'target_unhealthy',
      message: `Revision ${toRevision} of ${ref}, the rollback's target, never became available as far as the cluster shows (${target.basis}).${better}`,
    });
  }
  const current = newReplicaSetOf(deployment, owned);
  const formerly = current?.metadata?.annotations?.[REVISION_HISTORY_ANNOTATION];
  const currentRevision = revisionOf(current ?? {}) ?? 0;
  const below = history.filter((h) => h.revision < currentRevision).map((h) => h.revision);
  if (formerly && below.length > 0 && Math.max(...below) === toRevision) {
    warnings.push({
      kind: 'target_rolled_back_from',
      message: `Revision ${toRevision} is the revision ${ref} was just rolled back from: its current revision ${currentRevision} re-uses the template of revision ${formerly}. Rolling back again returns to it.${better}`,
    });
  }
  return warnings;
}

/**
 * Reads what `targetRevisionWarnings` needs beyond the plan's observation — the Deployment's Pods
 * (by its selector) and the namespace's core events: two list calls — and returns its warnings.
 * A read that fails gives a warning saying the target's health could not be checked, never an error.
 */
export async function readTargetRevisionWarnings(
  kube: KubeReader,
  deployment: Deployment,
  replicaSets: readonly ReplicaSet[],
  toRevision: number,
): Promise<Warning[]> {
  const namespace = deployment.metadata?.namespace ?? '';
  try {
    const [pods, events] = await Promise.all([
      kube.listPods(namespace, {
        labelSelector: formatLabelSelector(deployment.spec?.selector) || undefined,
      }),
      kube.listEvents(namespace),
    ]);
    return targetRevisionWarnings(deployment, replicaSets, pods, mergeEvents(events, []), toRevision);
  } catch (error) {
    return [
      {
        kind: 'target_unhealthy',
        message: `Could not check whether revision ${toRevision} of ${deploymentRef(deployment)} was ever healthy (${(error as Error).message}); check get_rollout_history and list_events before approving.`,
      },
    ];
  }
}
