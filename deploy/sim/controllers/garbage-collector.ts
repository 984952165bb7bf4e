/**
 * The garbage collector (k8s.io/kubernetes/pkg/controller/garbagecollector), for the owner chain the
 * simulator models (Deployment → ReplicaSet → Pod; StatefulSet and DaemonSet → ControllerRevision
 * and Pod; StatefulSet → PersistentVolumeClaim under a `Delete` retention policy):
 *
 * - Background: once an owner is gone, its dependents are deleted (Pods gracefully).
 * - Foreground: an owner being deleted with the `foregroundDeletion` finalizer has its dependents
 *   deleted (in foreground too, when they have dependents of their own); when no dependent with
 *   `blockOwnerDeletion: true` is left, the finalizer is removed and the owner goes.
 * - Orphan: `orphanDependents` removes the owner's references from its dependents before the owner
 *   is deleted (the real GC does it behind the `orphan` finalizer; here in the same request).
 *
 * It is driven by store changes (an index of dependents by owner uid, a queue of owners to look
 * at), so a sync costs what changed, not the size of the cluster.
 */
import type { ObjectStore, StoreChange } from '../store.ts';
import type { KubeObject, Pod } from '../types.ts';

/** The finalizer of foreground cascading deletion. */
export const FOREGROUND_FINALIZER = 'foregroundDeletion';
/** Storages that can own or be owned here. */
const TRACKED = new Set([
  'deployments',
  'replicasets',
  'statefulsets',
  'daemonsets',
  'controllerrevisions',
  'pods',
  'persistentvolumeclaims',
]);

interface Ref {
  storage: string;
  namespace: string | undefined;
  name: string;
}

function refKey(ref: Ref): string {
  return `${ref.storage}/${ref.namespace ?? ''}/${ref.name}`;
}

export class GarbageCollector {
  #store: ObjectStore;
  /** Owner uid → dependents (by refKey). */
  #dependents = new Map<string, Map<string, Ref>>();
  /** uid → where the object is stored, for every tracked object. */
  #byUid = new Map<string, Ref>();
  /** Owner uids to look at on the next `sync` (gone, or deleting in foreground). */
  #dirtyOwners = new Set<string>();

  constructor(store: ObjectStore) {
    this.#store = store;
    store.subscribe((change) => this.#observe(change));
  }

  /** Whether a `sync` has work. */
  get pending(): boolean {
    return this.#dirtyOwners.size > 0;
  }

  #observe(change: StoreChange): void {
    if (!TRACKED.has(change.storage)) return;
    const object = change.object;
    const uid = object.metadata.uid!;
    const ref: Ref = {
      storage: change.storage,
      namespace: object.metadata.namespace,
      name: object.metadata.name,
    };
    for (const owner of change.previous?.metadata.ownerReferences ?? [])
      this.#dependents.get(owner.uid)?.delete(refKey(ref));
    if (change.type === 'DELETED') {
      this.#byUid.delete(uid);
      this.#dirtyOwners.add(uid);
      // The owner waiting for this dependent may now go.
      for (const owner of object.metadata.ownerReferences ?? []) this.#dirtyOwners.add(owner.uid);
      return;
    }
    this.#byUid.set(uid, ref);
    for (const owner of object.metadata.ownerReferences ?? []) {
      let set = this.#dependents.get(owner.uid);
      if (!set) this.#dependents.set(owner.uid, (set = new Map()));
      set.set(refKey(ref), ref);
      // A dependent of an owner that does not exist (any more) is collected.
      if (!this.#byUid.has(owner.uid)) this.#dirtyOwners.add(owner.uid);
    }
    if (object.metadata.deletionTimestamp && object.metadata.finalizers?.includes(FOREGROUND_FINALIZER))
      this.#dirtyOwners.add(uid);
  }

  /** The stored dependents of the owner with `uid`. */
  dependentsOf(uid: string): KubeObject[] {
    const refs = [...(this.#dependents.get(uid)?.values() ?? [])];
    return refs
      .map((ref) => this.#store.get(ref.storage, ref.namespace, ref.name))
      .filter((object): object is KubeObject =>
        (object?.metadata.ownerReferences ?? []).some((owner) => owner.uid === uid),
      );
  }

  /**
   * `--cascade=orphan`: removes the references to `owner` from its dependents (one update each),
   * so deleting the owner leaves them running.
   */
  orphanDependents(owner: KubeObject): void {
    const uid = owner.metadata.uid!;
    for (const dependent of this.dependentsOf(uid)) {
      const references = (dependent.metadata.ownerReferences ?? []).filter((ref) => ref.uid !== uid);
      if (references.length > 0) dependent.metadata.ownerReferences = references;
      else delete dependent.metadata.ownerReferences;
      this.#store.update(this.#byUid.get(dependent.metadata.uid!)!.storage, dependent);
    }
  }

  /** Processes the owners that changed: collects dependents of gone owners, advances foreground deletions. */
  sync(): void {
    while (this.#dirtyOwners.size > 0) {
      const owners = [...this.#dirtyOwners];
      this.#dirtyOwners.clear();
      for (const uid of owners) this.#syncOwner(uid);
    }
  }

  #syncOwner(uid: string): void {
    const where = this.#byUid.get(uid);
    const owner = where && this.#store.peekOne(where.storage, where.namespace, where.name);
    const foreground =
      owner?.metadata.deletionTimestamp !== undefined &&
      (owner.metadata.finalizers ?? []).includes(FOREGROUND_FINALIZER);
    if (owner && !foreground) return;
    const dependents = this.dependentsOf(uid);
    for (const dependent of dependents) {
      // Background: only dependents whose every owner is gone (the real GC checks all references).
      if (!owner && dependent.metadata.ownerReferences!.some((ref) => this.#byUid.has(ref.uid))) continue;
      this.#deleteDependent(dependent, foreground);
    }
    if (!owner || !where) return;
    const blocking = this.dependentsOf(uid).some((dependent) =>
      dependent.metadata.ownerReferences!.some((ref) => ref.uid === uid && ref.blockOwnerDeletion),
    );
    if (blocking) return;
    const current = this.#store.get(where.storage, where.namespace, where.name)!;
    current.metadata.finalizers = (current.metadata.finalizers ?? []).filter(
      (finalizer) => finalizer !== FOREGROUND_FINALIZER,
    );
    if (current.metadata.finalizers.length === 0) delete current.metadata.finalizers;
    this.#store.update(where.storage, current);
  }

  #deleteDependent(dependent: KubeObject, foreground: boolean): void {
    const where = this.#byUid.get(dependent.metadata.uid!);
    if (!where || dependent.metadata.deletionTimestamp) return;
    if (where.storage === 'pods') {
      const grace = (dependent as Pod).spec.terminationGracePeriodSeconds ?? 30;
      this.#store.markDeleting('pods', where.namespace, where.name, grace);
    } else if (foreground && (this.#dependents.get(dependent.metadata.uid!)?.size ?? 0) > 0) {
      this.#store.markDeleting(where.storage, where.namespace, where.name, 0, [FOREGROUND_FINALIZER]);
    } else {
      this.#store.delete(where.storage, where.namespace, where.name);
    }
  }
}
