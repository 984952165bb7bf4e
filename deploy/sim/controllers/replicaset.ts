/**
 * The ReplicaSet controller (k8s.io/kubernetes/pkg/controller/replicaset): keeps `spec.replicas`
 * active Pods, creating them from the template (`<rs>-<5 random>` names, controller owner reference)
 * or deleting the lowest-ranked ones (`controller.ActivePods` order: unscheduled, pending, not
 * ready, ready for less time, more restarts, newer first), and reports replicas / ready / available
 * (ready for `minReadySeconds`) in status.
 */
import { randomInt } from 'node:crypto';
import type { Pod, ReplicaSet } from '../types.ts';
import { labelSelectorToMatcher, matchesLabels } from '../api/selectors.ts';
import { specReplicas } from './deployment-util.ts';
import { WorkloadController, controllerRef } from './workload-controller.ts';

const SOURCE = { component: 'replicaset-controller' };
const SAFE_ALPHABET = 'bcdfghjklmnpqrstvwxz2456789';

/** `utilrand.String(5)` as used by generateName. */
export function randomSuffix(length = 5): string {
  return Array.from({ length }, () => SAFE_ALPHABET[randomInt(SAFE_ALPHABET.length)]).join('');
}

export function isPodActive(pod: Pod): boolean {
  const phase = pod.status?.phase;
  return phase !== 'Succeeded' && phase !== 'Failed' && !pod.metadata.deletionTimestamp;
}

/** Time the Pod's Ready condition turned True (ms), or undefined when not ready. */
export function podReadySince(pod: Pod): number | undefined {
  const ready = pod.status?.conditions?.find((condition) => condition.type === 'Ready');
  if (ready?.status !== 'True') return undefined;
  return Date.parse(ready.lastTransitionTime ?? pod.metadata.creationTimestamp ?? '');
}

/** `podutil.IsPodAvailable`: ready for at least `minReadySeconds` at `now`. */
export function isPodAvailable(pod: Pod, minReadySeconds: number, now: number): boolean {
  const since = podReadySince(pod);
  return since !== undefined && (minReadySeconds === 0 || since + minReadySeconds * 1000 <= now);
}

function restarts(pod: Pod): number {
  return (pod.status?.containerStatuses ?? []).reduce((total, status) => total + status.restartCount, 0);
}

/** `controller.ActivePods` Less: the first Pods of the sorted list are deleted first. */
function deletionOrder(a: Pod, b: Pod): number {
  const scheduled = (pod: Pod) => (pod.spec.nodeName ? 1 : 0);
  const phaseRank = (pod: Pod) => ({ Pending: 0, Unknown: 1, Running: 2 })[pod.status?.phase as string] ?? 0;
  const ready = (pod: Pod) => (podReadySince(pod) === undefined ? 0 : 1);
  return (
    scheduled(a) - scheduled(b) ||
    phaseRank(a) - phaseRank(b) ||
    ready(a) - ready(b) ||
    // Ready for less time first.
    (podReadySince(b) ?? 0) - (podReadySince(a) ?? 0) ||
    restarts(b) - restarts(a) ||
    (b.metadata.creationTimestamp ?? '').localeCompare(a.metadata.creationTimestamp ?? '')
  );
}

export class ReplicaSetController extends WorkloadController {
  /** `syncReplicaSet`. */
  sync(rs: Readonly<ReplicaSet>): void {
    const matcher = labelSelectorToMatcher(rs.spec.selector);
    const owned = () =>
      this.store
        .peekControlledBy<Pod>('pods', rs.metadata.uid!)
        .filter((pod) => matchesLabels(matcher, pod.metadata.labels));
    let active = owned().filter(isPodActive);
    const diff = active.length - specReplicas(rs);
    if (diff < 0) {
      for (let index = 0; index < -diff; index++) this.#createPod(rs);
    } else if (diff > 0) {
      for (const pod of [...active].sort(deletionOrder).slice(0, diff)) {
        const grace = pod.spec.terminationGracePeriodSeconds ?? 30;
        this.store.markDeleting('pods', pod.metadata.namespace, pod.metadata.name, grace);
        this.recorder.record(
          rs as ReplicaSet,
          'Normal',
          'SuccessfulDelete',
          `Deleted pod: ${pod.metadata.name}`,
          SOURCE,
        );
      }
    }
    active = owned().filter(isPodActive);
    this.#updateStatus(rs, active);
  }

  #createPod(rs: Readonly<ReplicaSet>): void {
    const template = rs.spec.template;
    let name: string;
    do name = `${rs.metadata.name}-${randomSuffix()}`;
    while (this.store.get('pods', rs.metadata.namespace, name));
    const pod: Pod = {
      apiVersion: 'v1',
      kind: 'Pod',
      metadata: {
        name,
        generateName: `${rs.metadata.name}-`,
        namespace: rs.metadata.namespace,
        labels: { ...template.metadata?.labels },
        ...(template.metadata?.annotations && { annotations: { ...template.metadata.annotations } }),
        ownerReferences: [controllerRef(rs, 'ReplicaSet')],
      },
      spec: structuredClone(template.spec),
      status: { phase: 'Pending', qosClass: qosClass(template.spec.containers) },
    };
    this.store.create('pods', pod);
    this.recorder.record(rs as ReplicaSet, 'Normal', 'SuccessfulCreate', `Created pod: ${name}`, SOURCE);
  }

  #updateStatus(rs: Readonly<ReplicaSet>, active: readonly Pod[]): void {
    const current = this.store.get<ReplicaSet>('replicasets', rs.metadata.namespace, rs.metadata.name);
    if (!current) return;
    const now = this.clock.now();
    const minReadySeconds = current.spec.minReadySeconds ?? 0;
    const templateLabels = current.spec.template.metadata?.labels ?? {};
    const ready = active.filter((pod) => podReadySince(pod) !== undefined);
    const available = active.filter((pod) => isPodAvailable(pod, minReadySeconds, now));
    const status: NonNullable<ReplicaSet['status']> = {
      replicas: active.length,
      fullyLabeledReplicas: active.filter((pod) =>
        Object.entries(templateLabels).every(([key, value]) => pod.metadata.labels?.[key] === value),
      ).length,
      readyReplicas: ready.length,
      availableReplicas: available.length,
      observedGeneration: current.metadata.generation ?? 1,
    };
    for (const field of ['fullyLabeledReplicas', 'readyReplicas', 'availableReplicas'] as const) {
      if (!status[field]) delete status[field];
    }
    current.status = status;
    this.store.update('replicasets', current, undefined, { handOver: true });
    // Re-check when a ready-but-not-yet-available Pod reaches minReadySeconds.
    for (const pod of ready) {
      const since = podReadySince(pod)!;
      const at = since + minReadySeconds * 1000;
      if (at > now) this.#requeue(current, at);
    }
  }

  #requeue(rs: Readonly<ReplicaSet>, at: number): void {
    this.resyncAt(rs, at, () => {
      const current = this.store.get<ReplicaSet>('replicasets', rs.metadata.namespace, rs.metadata.name);
      if (current) this.sync(current);
    });
  }
}

/** `qos.GetPodQOS`, simplified to the cases scenarios produce. */
export function qosClass(containers: Pod['spec']['containers']): string {
  const all = containers.map((container) => container.resources ?? {});
  if (all.every((resources) => !resources.limits && !resources.requests)) return 'BestEffort';
  const guaranteed = all.every(
    (resources) =>
      resources.limits?.['cpu'] &&
      resources.limits['memory'] &&
      (!resources.requests ||
        (resources.requests['cpu'] === resources.limits['cpu'] &&
          resources.requests['memory'] === resources.limits['memory'])),
  );
  return guaranteed ? 'Guaranteed' : 'Burstable';
}
