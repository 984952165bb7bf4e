/**
 * `get_rollout_status` for StatefulSets and DaemonSets (issue 15): kubectl's `StatefulSetStatusViewer`
 * and `DaemonSetStatusViewer` verdicts (tools/kube/workload-util.ts), the revisions by number, and the
 * replica counts, in `GetRolloutStatusOutput`'s shape.
 */
import {
  currentRevisionOf,
  formatLabelSelector,
  revisionNamed,
  revisionsOf,
  workloadVerdict,
  type DaemonSet,
  type KubeReader,
  type RevisionedKind,
  type RevisionedWorkload,
  type StatefulSet,
  type WorkloadVerdict,
} from '../kube/index.ts';

/** One read of a StatefulSet or DaemonSet: the object, its verdict and its revisions by number. */
export interface WorkloadStatusRead {
  object: RevisionedWorkload;
  verdict: WorkloadVerdict;
  /** The revision of the current pod template (`status.updateRevision` for a StatefulSet). */
  revision: number | null;
  /** StatefulSet: `status.currentRevision` / `status.updateRevision` by number and hash. */
  revisions: {
    current: string | null;
    update: string | null;
    current_number: number | null;
    update_number: number | null;
  };
}

/** Reads `kind` `namespace/name` and its ControllerRevisions (two calls) and judges the rollout. */
export async function readWorkloadStatus(
  kube: KubeReader,
  kind: RevisionedKind,
  namespace: string,
  name: string,
): Promise<WorkloadStatusRead> {
  const object: RevisionedWorkload =
    kind === 'StatefulSet'
      ? await kube.getStatefulSet(namespace, name)
      : await kube.getDaemonSet(namespace, name);
  const listed = await kube.listControllerRevisions(namespace, {
    labelSelector: formatLabelSelector(object.spec?.selector) || undefined,
  });
  const sorted = revisionsOf(object, listed);
  const status = (object as StatefulSet).status;
  const current = kind === 'StatefulSet' ? revisionNamed(sorted, status?.currentRevision) : undefined;
  const update =
    kind === 'StatefulSet'
      ? revisionNamed(sorted, status?.updateRevision)
      : currentRevisionOf(object, sorted);
  return {
    object,
    verdict: workloadVerdict(kind, object),
    revision: update?.revision ?? null,
    revisions: {
      current: kind === 'StatefulSet' ? (status?.currentRevision ?? null) : null,
      update: kind === 'StatefulSet' ? (status?.updateRevision ?? null) : (update?.metadata?.name ?? null),
      current_number: current?.revision ?? null,
      update_number: update?.revision ?? null,
    },
  };
}

/**
 * The update strategy as the controller applies it, defaults filled as the API server fills them:
 * `type` RollingUpdate, a StatefulSet's `partition` 0 and `podManagementPolicy` OrderedReady (null
 * for a DaemonSet, which has neither). With OrderedReady a Pod that is not Running and Ready stops
 * the StatefulSet controller before it replaces that Pod — the "forced rollback" case.
 */
export function workloadStrategy(kind: RevisionedKind, object: RevisionedWorkload) {
  const strategy = object.spec?.updateStrategy;
  if (kind === 'DaemonSet') {
    return { type: strategy?.type ?? 'RollingUpdate', partition: null, pod_management_policy: null };
  }
  const sts = object as StatefulSet;
  return {
    type: sts.spec?.updateStrategy?.type ?? 'RollingUpdate',
    partition: sts.spec?.updateStrategy?.rollingUpdate?.partition ?? 0,
    pod_management_policy: sts.spec?.podManagementPolicy ?? 'OrderedReady',
  };
}

/** Replica counts in `get_rollout_status`'s terms: desired, updated, ready, available, total. */
export function workloadReplicas(kind: RevisionedKind, object: RevisionedWorkload) {
  if (kind === 'StatefulSet') {
    const sts = object as StatefulSet;
    return {
      desired: sts.spec?.replicas ?? 1,
      updated: sts.status?.updatedReplicas ?? 0,
      ready: sts.status?.readyReplicas ?? 0,
      available: sts.status?.availableReplicas ?? 0,
      total: sts.status?.replicas ?? 0,
    };
  }
  const ds = object as DaemonSet;
  return {
    desired: ds.status?.desiredNumberScheduled ?? 0,
    updated: ds.status?.updatedNumberScheduled ?? 0,
    ready: ds.status?.numberReady ?? 0,
    available: ds.status?.numberAvailable ?? 0,
    total: ds.status?.currentNumberScheduled ?? 0,
  };
}
