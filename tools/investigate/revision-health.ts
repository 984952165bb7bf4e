/**
 * Whether each revision of a Deployment was ever healthy, from evidence (issue 14): the Pods its
 * ReplicaSet owns now, the Warning events of its Pods — matched by name prefix, because a Pod's name
 * is its ReplicaSet's name plus a suffix, so the events of Pods long deleted still count — and of the
 * ReplicaSet itself, and the ReplicaSet's status. Pure: the caller lists once, this only reads.
 *
 * A revision is
 * - `failed` when its Pods or ReplicaSet show failures (crash loops, image pulls, OOM kills,
 *   liveness or startup probe kills, scheduling or creation failures), ready replicas or not;
 * - `healthy` when it has ready replicas now and no failing Pod, or, no longer current, served at
 *   least `HEALTHY_SERVICE_MS` before its successor appeared with no failure recorded;
 * - `unknown` otherwise (it never became available as far as the evidence shows).
 */
import {
  containerStates,
  controllerOf,
  timeOf,
  type ClusterEvent,
  type Pod,
  type ReplicaSet,
} from '../kube/index.ts';
import { z } from 'zod';

/** A revision no longer current that served this long without a recorded failure counts as healthy (10 minutes). */
export const HEALTHY_SERVICE_MS = 10 * 60_000;
/** Failure lines kept per revision. */
const MAX_FAILURES = 4;

/** Warning event reasons that mean a Pod or ReplicaSet failed (kubelet, scheduler, ReplicaSet controller). */
const FAILURE_REASONS = new Set(['BackOff', 'Failed', 'FailedScheduling', 'FailedCreate', 'Unhealthy']);
const WAITING_FAILURES =
  /CrashLoopBackOff|ErrImagePull|ImagePullBackOff|InvalidImageName|CreateContainerConfigError|CreateContainerError|RunContainerError/;

export const RevisionHealthSchema = z.object({
  state: z.enum(['healthy', 'failed', 'unknown']),
  /** Whether a Pod of it is ready now, or it served cleanly (see the module comment). */
  ever_available: z.boolean(),
  /** Ready replicas of its ReplicaSet now. */
  ready: z.number().int(),
  /** Up to 4 lines of failure evidence, e.g. `Pod checkout-5d8-x2 BackOff ×7`. */
  failures: z.array(z.string()),
  /** One line for people: why this state. */
  basis: z.string(),
});
export type RevisionHealth = z.infer<typeof RevisionHealthSchema>;

/** A ReplicaSet of the Deployment with its revision number, and whether it is the current one. */
export interface RevisionReplicaSet {
  revision: number;
  replicaSet: ReplicaSet;
  current: boolean;
}

/**
 * The health of every revision in `revisions` (any order). `pods` and `events` may be the whole
 * namespace's: only those attributable to each ReplicaSet are read. `successorCreated` of a revision
 * is the creation time of the next higher revision's ReplicaSet (when it stopped being current).
 */
export function revisionHealth(
  revisions: readonly RevisionReplicaSet[],
  pods: readonly Pod[],
  events: readonly ClusterEvent[],
): Map<number, RevisionHealth> {
  const sorted = [...revisions].sort((a, b) => a.revision - b.revision);
  const result = new Map<number, RevisionHealth>();
  sorted.forEach((entry, index) => {
    const successor = sorted[index + 1];
    result.set(
      entry.revision,
      healthOf(entry, successor && timeOf(successor.replicaSet.metadata?.creationTimestamp), pods, events),
    );
  });
  return result;
}

function healthOf(
  { replicaSet, current }: RevisionReplicaSet,
  successorCreated: number | undefined,
  pods: readonly Pod[],
  events: readonly ClusterEvent[],
): RevisionHealth {
  const name = replicaSet.metadata?.name ?? '';
  const uid = replicaSet.metadata?.uid;
  const prefix = `${name}-`;
  const failures: string[] = [];
  const note = (line: string) => {
    if (failures.length < MAX_FAILURES && !failures.includes(line)) failures.push(line);
  };
  const owned = pods.filter((pod) => uid !== undefined && controllerOf(pod.metadata)?.uid === uid);
  let readyPods = 0;
  for (const pod of owned) {
    const states = containerStates(pod);
    const ready = pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;
    if (ready) readyPods++;
    for (const c of states) {
      if (c.state === 'waiting' && c.reason && WAITING_FAILURES.test(c.reason))
        note(`Pod ${pod.metadata?.name} container ${c.name}: ${c.reason}`);
      else if (c.lastTermination?.reason === 'OOMKilled')
        note(`Pod ${pod.metadata?.name} container ${c.name}: OOMKilled`);
    }
    const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
    if (scheduled?.status === 'False') note(`Pod ${pod.metadata?.name}: Unschedulable`);
  }
  for (const e of events) {
    if (e.type !== 'Warning' || !FAILURE_REASONS.has(e.reason)) continue;
    const ours =
      (e.object.kind === 'Pod' && e.object.name.startsWith(prefix)) ||
      (e.object.kind === 'ReplicaSet' && e.object.name === name);
    // A readiness probe failing now and then is not a failed revision; a liveness or startup kill is.
    if (!ours || (e.reason === 'Unhealthy' && /^Readiness/i.test(e.message))) continue;
    note(`${e.object.kind} ${e.object.name} ${e.reason}${e.count > 1 ? ` ×${e.count}` : ''}`);
  }
  const ready = replicaSet.status?.readyReplicas ?? 0;
  const failing = failures.length > 0;
  if (ready > 0 || readyPods > 0) {
    return {
      state: failing ? 'failed' : 'healthy',
      ever_available: true,
      ready,
      failures,
      basis: failing
        ? `${ready || readyPods} ready replica(s), but its Pods failed too`
        : `${ready || readyPods} ready replica(s) now`,
    };
  }
  if (failing) return { state: 'failed', ever_available: false, ready, failures, basis: 'its Pods failed' };
  const created = timeOf(replicaSet.metadata?.creationTimestamp);
  const served = !current && successorCreated !== undefined && created > 0 ? successorCreated - created : 0;
  if (served >= HEALTHY_SERVICE_MS) {
    return {
      state: 'healthy',
      ever_available: true,
      ready,
      failures,
      basis: `served ${Math.round(served / 60_000)} minute(s) before the next revision with no failure recorded`,
    };
  }
  return {
    state: 'unknown',
    ever_available: false,
    ready,
    failures,
    basis: current ? 'no ready replica yet' : 'never had a ready replica on record',
  };
}
