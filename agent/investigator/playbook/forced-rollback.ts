/**
 * The StatefulSet "forced rollback" (kubernetes.io docs, StatefulSets → Rolling Updates → Forced
 * rollback): with `podManagementPolicy: OrderedReady` and `RollingUpdate`, the controller walks the
 * Pods in ordinal order and stops at the first one that is not Running and Ready
 * (pkg/controller/statefulset/stateful_set_control.go, the `monotonic` check of `updateStatefulSet`)
 * — before it would replace that Pod with the update revision. So a Pod broken by the bad revision
 * keeps the rollback from finishing: it has to be deleted, and the controller recreates it at the
 * restored revision. Pure: from `get_rollout_status` and `list_pods` outputs to the Pod to delete.
 */
import { z } from 'zod';
import { RolloutStatusSchema, type PodView } from '../evidence.ts';

/** `get_rollout_status` with `kind: StatefulSet`: the fields the check reads. */
export const StatefulSetStatusSchema = RolloutStatusSchema.extend({
  generation: z.number(),
  observed_generation: z.number(),
  replicas: z.object({ desired: z.number() }),
  controller_revisions: z.object({ update_number: z.number().nullable() }),
  strategy: z.object({
    type: z.string(),
    partition: z.number().nullable(),
    pod_management_policy: z.string().nullable(),
  }),
});
export type StatefulSetStatus = z.infer<typeof StatefulSetStatusSchema>;

/** The Pod an OrderedReady StatefulSet is stuck on, and why. */
export interface StuckPod {
  pod: string;
  ordinal: number;
  /** The revision the Pod runs, and the StatefulSet's update revision (the restored one). */
  revision: number;
  updateRevision: number;
  /** kubectl's STATUS of the Pod, e.g. CrashLoopBackOff. */
  status: string;
  /** One evidence line: what holds the rollback, and why deleting the Pod releases it. */
  line: string;
}

/** Most Pods whose names `podNames` lists in one selector (list_pods shows 50 rows). */
export const MAX_ORDINALS = 50;

/** The ordinal of `<set>-<n>`, or undefined. */
function ordinalOf(set: string, pod: string): number | undefined {
  const match = pod.startsWith(`${set}-`) ? /^(0|[1-9]\d*)$/.exec(pod.slice(set.length + 1)) : null;
  return match ? Number(match[1]) : undefined;
}

/**
 * The label selector of the StatefulSet's Pods by name: `statefulset.kubernetes.io/pod-name in
 * (<set>-0, …)`, the label the controller puts on each of its Pods, for ordinals 0 to `replicas`−1
 * (at most `MAX_ORDINALS`).
 */
export function podNameSelector(set: string, replicas: number): string {
  const count = Math.max(1, Math.min(MAX_ORDINALS, replicas));
  const names = Array.from({ length: count }, (_, ordinal) => `${set}-${ordinal}`);
  return `statefulset.kubernetes.io/pod-name in (${names.join(',')})`;
}

const runningAndReady = (pod: PodView) =>
  pod.phase === 'Running' && pod.total_containers > 0 && pod.ready_containers === pod.total_containers;

/**
 * The Pod to delete to finish a rollback of StatefulSet `set` (namespace `namespace`), or undefined
 * when the controller can finish by itself. The conditions, each from the cluster's answers: the
 * controller observed the rollback (`observed_generation >= generation`), the rollout is still
 * `progressing`, the strategy is `RollingUpdate` with `OrderedReady`; the first Pod in ordinal order
 * that is not Running and Ready (the one the controller waits on) exists, is not terminating, sits
 * at or above the `partition`, and runs a revision other than the update revision.
 */
export function findStuckPod(
  namespace: string,
  set: string,
  status: StatefulSetStatus,
  pods: readonly PodView[],
): StuckPod | undefined {
  const { strategy } = status;
  const update = status.controller_revisions.update_number;
  if (status.state !== 'progressing' || update === null) return undefined;
  if (status.observed_generation < status.generation) return undefined;
  if (
    strategy.type !== 'RollingUpdate' ||
    (strategy.pod_management_policy ?? 'OrderedReady') !== 'OrderedReady'
  )
    return undefined;
  const ordered = pods
    .flatMap((pod) => {
      const ordinal = ordinalOf(set, pod.name);
      return ordinal === undefined || ordinal >= status.replicas.desired ? [] : [{ pod, ordinal }];
    })
    .sort((a, b) => a.ordinal - b.ordinal);
  // The controller creates a missing Pod itself, so only an existing one can hold it.
  const waiting = ordered.find(({ pod }) => !runningAndReady(pod));
  if (!waiting) return undefined;
  const { pod, ordinal } = waiting;
  if (pod.status === 'Terminating' || pod.revision === null || pod.revision === update) return undefined;
  if (ordinal < (strategy.partition ?? 0)) return undefined;
  return {
    pod: pod.name,
    ordinal,
    revision: pod.revision,
    updateRevision: update,
    status: pod.status,
    line:
      `Pod ${namespace}/${pod.name} still runs revision ${pod.revision} and is not ready (${pod.status}) while ` +
      `StatefulSet ${namespace}/${set} rolls back to revision ${update}: with podManagementPolicy OrderedReady the ` +
      `controller waits for it to become Ready before replacing it, so the rollback cannot finish until it is ` +
      `deleted (the StatefulSet "forced rollback"); the controller then recreates it under the same name at revision ${update}.`,
  };
}
