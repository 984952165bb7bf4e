/**
 * The simulator's etcd: objects by storage and `namespace/name`, one cluster-wide resourceVersion
 * counter that increments on every write, and a bounded change history that watches resume from.
 *
 * Objects are deep-copied on the way in and out, so neither a controller nor a request handler can
 * change stored state without a write (and so without a new resourceVersion and a watch event).
 */
import { randomUUID } from 'node:crypto';
import { isDeepStrictEqual } from 'node:util';
import type { SimClock } from './clock.ts';
import type { KubeObject } from './types.ts';

export type WatchEventType = 'ADDED' | 'MODIFIED' | 'DELETED';

/** One change to stored state. */
export interface StoreChange {
  type: WatchEventType;
  storage: string;
  resourceVersion: number;
  object: KubeObject;
  /** The object before the change (MODIFIED and DELETED). */
  previous?: KubeObject;
}

export type StoreListener = (change: StoreChange) => void;

/** Storages whose objects carry `metadata.generation` (bumped when `spec` changes). */
const GENERATION_STORAGES = new Set([
  'deployments',
  'replicasets',
  'statefulsets',
  'daemonsets',
  'horizontalpodautoscalers',
]);

/** How many changes are retained for watches that resume from a resourceVersion. */
const HISTORY_LIMIT = 10_000;
/** How far the history may grow past the limit before it is trimmed back. */
const HISTORY_SLACK = 1_000;

/** A write that cannot apply: the object exists (create), is missing, or has another resourceVersion. */
export class StoreConflictError extends Error {
  readonly reason: 'exists' | 'missing' | 'stale';

  constructor(reason: 'exists' | 'missing' | 'stale') {
    super(reason);
    this.reason = reason;
  }
}

/** Options of a write. */
export interface WriteOptions {
  /** The caller gives the object up: stored without a deep copy, returned uncopied (see `create`). */
  handOver?: boolean;
}

/** A copy of the object and its metadata (the members the store writes); the rest is shared. */
function shallowCopy<T extends KubeObject>(object: T): T {
  return { ...object, metadata: { ...object.metadata } };
}

function key(namespace: string | undefined, name: string): string {
  return `${namespace ?? ''}/${name}`;
}

export class ObjectStore {
  #clock: SimClock;
  #revision = 1000;
  #objects = new Map<string, Map<string, KubeObject>>();
  #history: StoreChange[] = [];
  #listeners = new Set<StoreListener>();
  /** storage → controller owner uid → `namespace/name` → stored object (the controllers' indexer). */
  #byController = new Map<string, Map<string, Map<string, KubeObject>>>();

  constructor(clock: SimClock) {
    this.#clock = clock;
  }

  /** The newest resourceVersion (what a list returns in `metadata.resourceVersion`). */
  get revision(): number {
    return this.#revision;
  }

  /** Oldest resourceVersion a watch can resume after without a 410. */
  get oldestRetained(): number {
    return this.#history[0] ? this.#history[0].resourceVersion - 1 : this.#revision;
  }

  /** Changes after `resourceVersion`, oldest first. */
  changesSince(resourceVersion: number): StoreChange[] {
    return this.#history.filter((change) => change.resourceVersion > resourceVersion);
  }

  subscribe(listener: StoreListener): () => void {
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  get<T extends KubeObject>(storage: string, namespace: string | undefined, name: string): T | undefined {
    const found = this.#objects.get(storage)?.get(key(namespace, name));
    return found && (structuredClone(found) as T);
  }

  /** Objects of a storage (optionally one namespace), sorted by namespace then name like etcd keys. */
  list<T extends KubeObject>(storage: string, namespace?: string): T[] {
    return this.peekSorted(storage, namespace).map((object) => structuredClone(object) as T);
  }

  /**
   * The stored objects of a storage (optionally one namespace), in `list`'s order, uncopied: for the
   * API's list answers, which only serialise them (callers must not mutate them). A list of 57 Pods
   * deep-copied with `structuredClone` was half the simulator's CPU per answer.
   */
  peekSorted<T extends KubeObject>(storage: string, namespace?: string): readonly T[] {
    const keyed: [string, KubeObject][] = [];
    for (const [objectKey, object] of this.#objects.get(storage) ?? []) {
      if (namespace === undefined || object.metadata.namespace === namespace) keyed.push([objectKey, object]);
    }
    // The map key is `namespace/name` (`key`); each computed once, not per comparison.
    keyed.sort(([a], [b]) => a.localeCompare(b));
    return keyed.map(([, object]) => object as T);
  }

  /** The stored object itself, uncopied (hot read-only paths; do not mutate). */
  peekOne<T extends KubeObject>(
    storage: string,
    namespace: string | undefined,
    name: string,
  ): Readonly<T> | undefined {
    return this.#objects.get(storage)?.get(key(namespace, name)) as T | undefined;
  }

  /**
   * The stored objects themselves, unsorted and uncopied: for hot read-only paths of the controllers.
   * Callers must not mutate them (copy with `structuredClone` first, or use `get`).
   */
  peek<T extends KubeObject>(storage: string, namespace?: string): readonly T[] {
    const all = [...(this.#objects.get(storage)?.values() ?? [])] as T[];
    return namespace === undefined ? all : all.filter((object) => object.metadata.namespace === namespace);
  }

  /**
   * The stored objects of `storage` whose controller owner reference has `ownerUid`, uncopied (like
   * an informer's index; callers must not mutate them).
   */
  peekControlledBy<T extends KubeObject>(storage: string, ownerUid: string): readonly T[] {
    return [...(this.#byController.get(storage)?.get(ownerUid)?.values() ?? [])] as T[];
  }

  #index(storage: string, id: string, previous: KubeObject | undefined, next: KubeObject | undefined): void {
    const before = previous?.metadata.ownerReferences?.find((ref) => ref.controller)?.uid;
    const after = next?.metadata.ownerReferences?.find((ref) => ref.controller)?.uid;
    let owners = this.#byController.get(storage);
    if (before !== undefined && before !== after) {
      const set = owners?.get(before);
      set?.delete(id);
      if (set?.size === 0) owners!.delete(before);
    }
    if (after === undefined || !next) return;
    if (!owners) this.#byController.set(storage, (owners = new Map()));
    let set = owners.get(after);
    if (!set) owners.set(after, (set = new Map()));
    set.set(id, next);
  }

  /**
   * Stores a new object: assigns uid, creationTimestamp (unless given, for scenario history),
   * resourceVersion and generation. Throws `StoreConflictError('exists')`.
   *
   * With `handOver`, the caller gives the object up (it keeps no reference it will mutate, and its
   * members may be shared with other stored objects, which are never mutated): the store keeps a
   * shallow copy instead of a deep one and returns the stored object itself, read-only. The
   * controllers' hot paths write this way.
   */
  create<T extends KubeObject>(storage: string, object: T, options: WriteOptions = {}): T {
    const bucket = this.#bucket(storage);
    const id = key(object.metadata.namespace, object.metadata.name);
    if (bucket.has(id)) throw new StoreConflictError('exists');
    const stored = options.handOver ? shallowCopy(object) : structuredClone(object);
    stored.metadata.uid ??= randomUUID();
    stored.metadata.creationTimestamp ??= this.#clock.timestamp();
    if (GENERATION_STORAGES.has(storage)) stored.metadata.generation = 1;
    else delete stored.metadata.generation;
    delete stored.metadata.deletionTimestamp;
    stored.metadata.resourceVersion = String(++this.#revision);
    bucket.set(id, stored);
    this.#index(storage, id, undefined, stored);
    this.#emit({ type: 'ADDED', storage, resourceVersion: this.#revision, object: stored });
    return options.handOver ? stored : structuredClone(stored);
  }

  /**
   * Replaces an existing object. With `expectedResourceVersion`, a mismatch throws
   * `StoreConflictError('stale')` (optimistic concurrency). uid and creationTimestamp are kept;
   * generation increments when `spec` changed. A no-op write keeps the resourceVersion, like the
   * real server. `handOver` as for `create`.
   */
  update<T extends KubeObject>(
    storage: string,
    object: T,
    expectedResourceVersion?: string,
    options: WriteOptions = {},
  ): T {
    const bucket = this.#bucket(storage);
    const id = key(object.metadata.namespace, object.metadata.name);
    const current = bucket.get(id);
    if (!current) throw new StoreConflictError('missing');
    if (
      expectedResourceVersion !== undefined &&
      expectedResourceVersion !== current.metadata.resourceVersion
    ) {
      throw new StoreConflictError('stale');
    }
    const stored = options.handOver ? shallowCopy(object) : structuredClone(object);
    stored.metadata.uid = current.metadata.uid;
    stored.metadata.creationTimestamp = current.metadata.creationTimestamp;
    stored.metadata.resourceVersion = current.metadata.resourceVersion;
    if (current.metadata.deletionTimestamp) {
      stored.metadata.deletionTimestamp = current.metadata.deletionTimestamp;
      stored.metadata.deletionGracePeriodSeconds = current.metadata.deletionGracePeriodSeconds;
    }
    if (GENERATION_STORAGES.has(storage)) {
      stored.metadata.generation =
        (current.metadata.generation ?? 1) + (isDeepStrictEqual(stored['spec'], current['spec']) ? 0 : 1);
    }
    if (isDeepStrictEqual(stored, current))
      return (options.handOver ? current : structuredClone(current)) as T;
    stored.metadata.resourceVersion = String(++this.#revision);
    bucket.set(id, stored);
    this.#index(storage, id, current, stored);
    this.#emit({
      type: 'MODIFIED',
      storage,
      resourceVersion: this.#revision,
      object: stored,
      previous: current,
    });
    // The registry deletes an object whose deletion waited only for the finalizers just removed.
    if (
      stored.metadata.deletionTimestamp &&
      stored.metadata.deletionGracePeriodSeconds === 0 &&
      (stored.metadata.finalizers ?? []).length === 0
    ) {
      return this.delete<T>(storage, stored.metadata.namespace, stored.metadata.name);
    }
    return options.handOver ? stored : structuredClone(stored);
  }

  /**
   * Marks an object as terminating (graceful deletion, or deletion held by finalizers): sets
   * deletionTimestamp and deletionGracePeriodSeconds and adds `finalizers`, one write.
   */
  markDeleting<T extends KubeObject>(
    storage: string,
    namespace: string | undefined,
    name: string,
    graceSeconds: number,
    finalizers: readonly string[] = [],
  ): T {
    const current = this.get<T>(storage, namespace, name);
    if (!current) throw new StoreConflictError('missing');
    if (current.metadata.deletionTimestamp) return current;
    const bucket = this.#bucket(storage);
    const stored = structuredClone(current);
    stored.metadata.deletionTimestamp = this.#clock.timestamp(this.#clock.now() + graceSeconds * 1000);
    stored.metadata.deletionGracePeriodSeconds = graceSeconds;
    const held = [...new Set([...(stored.metadata.finalizers ?? []), ...finalizers])];
    if (held.length > 0) stored.metadata.finalizers = held;
    if (stored.metadata.generation !== undefined) stored.metadata.generation += 1;
    stored.metadata.resourceVersion = String(++this.#revision);
    bucket.set(key(namespace, name), stored);
    this.#index(storage, key(namespace, name), current, stored);
    this.#emit({
      type: 'MODIFIED',
      storage,
      resourceVersion: this.#revision,
      object: stored,
      previous: current,
    });
    return structuredClone(stored);
  }

  /**
   * Removes an object; returns it as last stored, with the deletion's resourceVersion (read-only:
   * watches share it). Throws `StoreConflictError('missing')`.
   */
  delete<T extends KubeObject>(storage: string, namespace: string | undefined, name: string): T {
    const bucket = this.#bucket(storage);
    const id = key(namespace, name);
    const current = bucket.get(id);
    if (!current) throw new StoreConflictError('missing');
    bucket.delete(id);
    this.#index(storage, id, current, undefined);
    const removed = shallowCopy(current);
    removed.metadata.resourceVersion = String(++this.#revision);
    this.#emit({
      type: 'DELETED',
      storage,
      resourceVersion: this.#revision,
      object: removed,
      previous: current,
    });
    return removed as T;
  }

  #bucket(storage: string): Map<string, KubeObject> {
    let bucket = this.#objects.get(storage);
    if (!bucket) {
      bucket = new Map();
      this.#objects.set(storage, bucket);
    }
    return bucket;
  }

  #emit(change: StoreChange): void {
    this.#history.push(change);
    // Trimmed in batches (a splice per write would copy the whole history every time).
    if (this.#history.length > HISTORY_LIMIT + HISTORY_SLACK)
      this.#history.splice(0, this.#history.length - HISTORY_LIMIT);
    for (const listener of this.#listeners) listener(change);
  }
}
