/**
 * Controller history: the ControllerRevisions StatefulSets and DaemonSets keep of their Pod templates,
 * ported from k8s.io/kubernetes/pkg/controller/history/controller_history.go and the `getPatch`
 * helpers of pkg/controller/statefulset/stateful_set_utils.go and pkg/controller/daemon/update.go.
 *
 * A revision's `data` is the strategic merge patch `{"spec":{"template":{…,"$patch":"replace"}}}`
 * that restores it. kubectl's `rollout undo` decides "already matches" by comparing those bytes
 * with the patch it computes from the live object (`statefulsetMatch`/`daemonSetMatch` in
 * polymorphichelpers/rollback.go), so `data` is built exactly as Go builds it: the template encoded
 * as the typed struct (`metadata.creationTimestamp: null`, `resources: {}`), then through a
 * `map[string]interface{}` and `json.Marshal`, which sorts keys. The simulator stores and serves
 * `data` in that key order, so the bytes kubectl reads are the bytes it compares.
 */
import { isDeepStrictEqual } from 'node:util';
import type { ObjectStore } from '../store.ts';
import type { ControllerRevision, KubeObject, PodTemplateSpec } from '../types.ts';
import { safeEncodeString } from './pod-template-hash.ts';
import { controllerRef } from './workload-controller.ts';

/** The label a StatefulSet's revisions carry their hash in (`history.ControllerRevisionHashLabel`). */
export const CONTROLLER_REVISION_HASH_LABEL = 'controller.kubernetes.io/hash';
/** The label Pods carry their revision in (`apps.ControllerRevisionHashLabelKey`). */
export const POD_REVISION_LABEL = 'controller-revision-hash';

/** A deep copy with object keys sorted as Go's `json.Marshal` of a map sorts them (bytewise). */
export function sortKeysDeep(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeysDeep);
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  return Object.fromEntries(
    Object.keys(record)
      .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
      .map((key) => [key, sortKeysDeep(record[key])]),
  );
}

/** The template as the Go type encodes it: the struct members without `omitempty` pointers present. */
function typedTemplate(template: PodTemplateSpec): Record<string, unknown> {
  const copy = structuredClone(template) as unknown as Record<string, unknown>;
  const metadata = (copy['metadata'] ??= {}) as Record<string, unknown>;
  metadata['creationTimestamp'] = null;
  const spec = (copy['spec'] ??= {}) as Record<string, unknown>;
  for (const field of ['containers', 'initContainers']) {
    for (const container of (spec[field] as Record<string, unknown>[] | undefined) ?? [])
      container['resources'] ??= {};
  }
  return copy;
}

/**
 * `getPatch`: the revision data of a workload's template, keys sorted as the Go encoder writes
 * them. Equal templates give deep-equal (and byte-equal) data.
 */
export function revisionData(template: PodTemplateSpec): Record<string, unknown> {
  const encoded = typedTemplate(template);
  encoded['$patch'] = 'replace';
  return sortKeysDeep({ spec: { template: encoded } }) as Record<string, unknown>;
}

/** The template a revision restores (`ApplyRevision`'s effect on `spec.template`), nulls dropped. */
export function templateOf(revision: ControllerRevision): PodTemplateSpec | undefined {
  const template = (revision.data?.['spec'] as Record<string, unknown> | undefined)?.['template'];
  if (!template || typeof template !== 'object') return undefined;
  const copy = structuredClone(template) as Record<string, unknown>;
  delete copy['$patch'];
  const metadata = copy['metadata'] as Record<string, unknown> | undefined;
  if (metadata && metadata['creationTimestamp'] === null) delete metadata['creationTimestamp'];
  return copy as unknown as PodTemplateSpec;
}

/** FNV-1 32 (Go's `hash/fnv.New32`, not 1a) of `bytes`. */
export function fnv1_32(bytes: Uint8Array): number {
  let hash = 0x811c9dc5;
  for (const byte of bytes) {
    hash = Math.imul(hash, 0x01000193) >>> 0;
    hash = (hash ^ byte) >>> 0;
  }
  return hash;
}

/**
 * `HashControllerRevision`: FNV-1 32 of the data's JSON bytes and the collision count (the
 * StatefulSet controller always passes one, 0 included), as `rand.SafeEncodeString` of its decimal.
 */
export function hashControllerRevision(data: Record<string, unknown>, collisionCount?: number): string {
  const text = JSON.stringify(data) + (collisionCount === undefined ? '' : String(collisionCount));
  return safeEncodeString(String(fnv1_32(Buffer.from(text))));
}

/** `ControllerRevisionName`: `<prefix>-<hash>`, the prefix cut to 223 characters. */
export function controllerRevisionName(prefix: string, hash: string): string {
  return `${prefix.length > 223 ? prefix.slice(0, 223) : prefix}-${hash}`;
}

/** `SortControllerRevisions`: by revision, then creation, then name. */
export function byRevisionNumber(a: ControllerRevision, b: ControllerRevision): number {
  return (
    a.revision - b.revision ||
    (a.metadata.creationTimestamp ?? '').localeCompare(b.metadata.creationTimestamp ?? '') ||
    a.metadata.name.localeCompare(b.metadata.name)
  );
}

/** The ControllerRevisions controlled by `owner` (copies), oldest revision first. */
export function ownedRevisions(store: ObjectStore, owner: KubeObject): ControllerRevision[] {
  return store
    .peekControlledBy<ControllerRevision>('controllerrevisions', owner.metadata.uid!)
    .filter((revision) => revision.metadata.namespace === owner.metadata.namespace)
    .map((revision) => structuredClone(revision) as ControllerRevision)
    .sort(byRevisionNumber);
}

/**
 * Deletes the oldest of `owner`'s revisions that `inUse` does not keep, beyond `limit` of them
 * (the owner's `revisionHistoryLimit`): `cleanupHistory` of the DaemonSet controller and
 * `truncateHistory` of the StatefulSet controller.
 */
export function pruneRevisions(
  store: ObjectStore,
  owner: KubeObject,
  inUse: (revision: ControllerRevision) => boolean,
  limit: number,
): void {
  const unused = ownedRevisions(store, owner).filter((revision) => !inUse(revision));
  for (const revision of unused.slice(0, Math.max(0, unused.length - limit)))
    store.delete('controllerrevisions', revision.metadata.namespace, revision.metadata.name);
}

/** `NextRevision`: one more than the newest, 1 for none. */
export function nextRevision(revisions: readonly ControllerRevision[]): number {
  return revisions.length === 0 ? 1 : revisions[revisions.length - 1]!.revision + 1;
}

/** `EqualRevision`: equal hash labels (when both have one) and equal data. */
export function equalRevision(a: ControllerRevision, b: ControllerRevision, hashLabel: string): boolean {
  const ha = a.metadata.labels?.[hashLabel];
  const hb = b.metadata.labels?.[hashLabel];
  if (ha !== undefined && hb !== undefined && ha !== hb) return false;
  return isDeepStrictEqual(a.data, b.data);
}

/**
 * `CreateControllerRevision`: stores `revision` under `<owner>-<hash(collisionCount)>`; a name taken
 * by a revision with other data is a collision: the count goes up and the name is hashed again.
 * Returns the stored revision (an existing equal one counts) and the collision count used.
 */
export function createRevision(
  store: ObjectStore,
  owner: KubeObject,
  revision: ControllerRevision,
  collisionCount: number,
  hashOf: (count: number) => string,
  hashLabel: string,
): { revision: ControllerRevision; collisionCount: number } {
  for (let count = collisionCount; ; count++) {
    const hash = hashOf(count);
    const name = controllerRevisionName(owner.metadata.name, hash);
    const candidate = structuredClone(revision);
    candidate.metadata.name = name;
    candidate.metadata.labels = { ...candidate.metadata.labels, [hashLabel]: hash };
    const existing = store.get<ControllerRevision>('controllerrevisions', owner.metadata.namespace, name);
    if (existing) {
      if (isDeepStrictEqual(existing.data, candidate.data))
        return { revision: existing, collisionCount: count };
      continue;
    }
    return { revision: store.create('controllerrevisions', candidate), collisionCount: count };
  }
}

/** A new (unstored) ControllerRevision of `owner` (`NewControllerRevision`). */
export function newRevision(
  owner: KubeObject,
  kind: 'StatefulSet' | 'DaemonSet',
  labels: Record<string, string>,
  data: Record<string, unknown>,
  revision: number,
  annotations: Record<string, string> | undefined,
): ControllerRevision {
  return {
    apiVersion: 'apps/v1',
    kind: 'ControllerRevision',
    metadata: {
      name: '',
      namespace: owner.metadata.namespace,
      labels: { ...labels },
      ...(annotations && Object.keys(annotations).length > 0 && { annotations: { ...annotations } }),
      ownerReferences: [controllerRef(owner, kind)],
    },
    data,
    revision,
  };
}

/** `UpdateControllerRevision`: gives an existing revision a new number (a rollback renumbers it). */
export function renumberRevision(
  store: ObjectStore,
  revision: ControllerRevision,
  number: number,
): ControllerRevision {
  if (revision.revision === number) return revision;
  return store.update('controllerrevisions', { ...structuredClone(revision), revision: number });
}
