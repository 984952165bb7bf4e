/**
 * Whether a workload has available replicas, as its controller's status says — the condition a
 * dependency fate (`when.unavailable`) waits on — and whether a store change flipped it.
 */
import type { ObjectStore, StoreChange } from '../store.ts';
import type { KubeObject } from '../types.ts';
import type { WorkloadRef } from './schema.ts';

const STORAGE: Record<WorkloadRef['kind'], string> = {
  Deployment: 'deployments',
  StatefulSet: 'statefulsets',
  DaemonSet: 'daemonsets',
};
const WORKLOAD_STORAGES: ReadonlySet<string> = new Set(Object.values(STORAGE));

type Status = {
  availableReplicas?: number;
  readyReplicas?: number;
  numberAvailable?: number;
};

/**
 * Available replicas in `object`'s status: `status.availableReplicas` (Deployment, StatefulSet —
 * `readyReplicas` where an older status lacks it) or `status.numberAvailable` (DaemonSet); 0 when
 * absent or the object is gone.
 */
export function availableReplicas(object: Readonly<KubeObject> | undefined): number {
  const status = (object as { status?: Status } | undefined)?.status;
  return status?.availableReplicas ?? status?.numberAvailable ?? status?.readyReplicas ?? 0;
}

/** Whether `ref` (in `namespace` unless it names one) exists and has at least one available replica. */
export function workloadAvailable(store: ObjectStore, ref: WorkloadRef, namespace: string): boolean {
  return availableReplicas(store.peekOne(STORAGE[ref.kind], ref.namespace ?? namespace, ref.name)) > 0;
}

/** Whether `change` moved a Deployment, StatefulSet or DaemonSet between none and some available replicas. */
export function availabilityFlipped(change: StoreChange): boolean {
  if (!WORKLOAD_STORAGES.has(change.storage)) return false;
  const before = change.type === 'ADDED' ? 0 : availableReplicas(change.previous);
  const after = change.type === 'DELETED' ? 0 : availableReplicas(change.object);
  return before > 0 !== after > 0;
}
