/**
 * Deleting one object as the registry does (k8s.io/apiserver/pkg/registry/generic/registry
 * `Store.Delete` with `BeforeDelete` and the GC finalizers): graceful deletion of Pods, deletion held
 * by finalizers, and the three propagation policies — `Background` (delete now; the garbage
 * collector removes dependents), `Foreground` (the `foregroundDeletion` finalizer keeps the owner
 * until its blocking dependents are gone) and `Orphan` (dependents lose their owner reference).
 * A dry run computes the same outcome and writes nothing.
 */
import type { SimulatedCluster } from '../cluster.ts';
import { FOREGROUND_FINALIZER } from '../controllers/garbage-collector.ts';
import type { ResourceType } from '../resources.ts';
import type { KubeObject, Pod } from '../types.ts';
import type { DeleteOptions } from './dry-run.ts';

/** What a DELETE did: the object as last stored (or as it would be), and whether it still exists. */
export interface DeleteOutcome {
  object: KubeObject;
  /** True when the object is terminating (grace period or finalizers) rather than gone. */
  pending: boolean;
}

/** Namespaced storages a Namespace deletion empties. */
const NAMESPACE_CONTENTS = [
  'deployments',
  'replicasets',
  'statefulsets',
  'daemonsets',
  'controllerrevisions',
  'pods',
  'persistentvolumeclaims',
  'services',
  'events',
  'horizontalpodautoscalers',
  'serviceaccounts',
  'roles',
  'rolebindings',
];

function markedCopy(object: KubeObject, now: string, graceSeconds: number, finalizers: string[]): KubeObject {
  const copy = structuredClone(object);
  copy.metadata.deletionTimestamp ??= now;
  copy.metadata.deletionGracePeriodSeconds ??= graceSeconds;
  const held = [...new Set([...(copy.metadata.finalizers ?? []), ...finalizers])];
  if (held.length > 0) copy.metadata.finalizers = held;
  return copy;
}

/**
 * Deletes `current` (as stored) of `type` with `options`; with `options.dryRun` only computes the
 * outcome. Never throws for a stored object.
 */
export function deleteObject(
  cluster: SimulatedCluster,
  type: ResourceType,
  current: KubeObject,
  options: DeleteOptions,
): DeleteOutcome {
  const { store, clock, garbageCollector } = cluster;
  const { namespace, name } = current.metadata;
  const storage = type.storage;
  const dryRun = options.dryRun;

  if (storage === 'pods') {
    const grace = options.gracePeriodSeconds ?? (current as Pod).spec.terminationGracePeriodSeconds ?? 30;
    if (grace > 0 || (current.metadata.finalizers ?? []).length > 0) {
      const at = clock.timestamp(clock.now() + grace * 1000);
      if (dryRun) return { object: markedCopy(current, at, grace, []), pending: true };
      return { object: store.markDeleting(storage, namespace, name, grace), pending: true };
    }
    if (dryRun) return { object: current, pending: false };
    return { object: store.delete(storage, namespace, name), pending: false };
  }

  const policy = options.propagationPolicy ?? 'Background';
  const held = (current.metadata.finalizers ?? []).length > 0;
  if (current.metadata.deletionTimestamp) return { object: current, pending: true };
  if (policy === 'Foreground' || held) {
    const finalizers = policy === 'Foreground' ? [FOREGROUND_FINALIZER] : [];
    if (dryRun) return { object: markedCopy(current, clock.timestamp(), 0, finalizers), pending: true };
    const marked = store.markDeleting(storage, namespace, name, 0, finalizers);
    return { object: marked, pending: true };
  }
  if (dryRun) return { object: current, pending: false };
  if (policy === 'Orphan') garbageCollector.orphanDependents(current);
  if (storage === 'namespaces') {
    for (const contained of NAMESPACE_CONTENTS)
      for (const object of store.list(contained, name)) store.delete(contained, name, object.metadata.name);
  }
  return { object: store.delete(storage, type.namespaced ? namespace : undefined, name), pending: false };
}
