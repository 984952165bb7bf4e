/**
 * Server-side apply and field ownership, after sigs.k8s.io/structured-merge-diff's `Updater`
 * (merge/update.go) and the apiserver's fieldmanager:
 * - `apply`: the applied configuration is merged into the live object (maps recursively,
 *   associative lists by their keys — containers and env by name, ports by port and protocol —,
 *   set lists as sets, everything else replaced); fields this manager applied before and no longer
 *   applies are removed unless another manager owns them; fields it changes that another manager
 *   owns are conflicts (409, the apiserver's wording), or with `force` change hands.
 * - `recordUpdate`: a non-apply write (create, update, patch) gives its manager the fields it added
 *   or changed and takes them from every other manager.
 * Managers are kept in `metadata.managedFields` as FieldsV1; identity fields (apiVersion, kind,
 * name, namespace, uid, resourceVersion, generation, creationTimestamp, managedFields) are never
 * owned, and neither is `status` through the main resource.
 *
 * Simplified: no conversion between versions of a manager's set (every served kind has one version
 * per storage, autoscaling v1/v2 aside); objects the simulator's controllers and scenario write are
 * unowned (a real controller-manager owns what it writes).
 */
import { isDeepStrictEqual } from 'node:util';
import type { ManagedFieldsEntry, KubeObject } from '../types.ts';
import {
  compare,
  difference,
  formatPath,
  fromFieldsV1,
  intersection,
  itemKey,
  pathKey,
  removeAt,
  toFieldSet,
  toFieldsV1,
  union,
  valueAt,
} from './field-set.ts';
import type { FieldSet, Member } from './field-set.ts';
import { DEFINITIONS, resolve } from './schemas.ts';
import type { Schema } from './schemas.ts';
import { ApiError } from './status.ts';

const IGNORED_METADATA = [
  'name',
  'namespace',
  'uid',
  'resourceVersion',
  'generation',
  'creationTimestamp',
  'deletionTimestamp',
  'deletionGracePeriodSeconds',
  'managedFields',
  'selfLink',
];

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** What of an object can be owned: no identity fields; `status` only through its subresource. */
function ownable(object: KubeObject | undefined, subresource: string | undefined): Record<string, unknown> {
  if (!object) return {};
  const { apiVersion: _v, kind: _k, metadata, status, ...rest } = object;
  const meta = Object.fromEntries(
    Object.entries(metadata ?? {}).filter(([field]) => !IGNORED_METADATA.includes(field)),
  );
  if (subresource === 'status') return { status };
  return {
    ...(Object.keys(meta).length > 0 && { metadata: meta }),
    ...rest,
  };
}

/** One manager's entry, keyed like the apiserver's manager identifier. */
interface Manager {
  entry: ManagedFieldsEntry;
  set: FieldSet;
}

function identifier(entry: Pick<ManagedFieldsEntry, 'manager' | 'operation' | 'subresource'>): string {
  return `${entry.manager}\u0000${entry.operation}\u0000${entry.subresource ?? ''}`;
}

function managersOf(object: KubeObject | undefined): Manager[] {
  const entries = object?.metadata.managedFields ?? [];
  return entries
    .filter((entry) => typeof entry === 'object' && entry !== null && typeof entry.manager === 'string')
    .map((entry) => ({ entry, set: fromFieldsV1(entry.fieldsV1) }));
}

function toEntries(managers: Manager[]): ManagedFieldsEntry[] {
  return managers
    .filter((manager) => manager.set.size > 0)
    .map(({ entry, set }) => ({ ...entry, fieldsType: 'FieldsV1' as const, fieldsV1: toFieldsV1(set) }));
}

/** How the apiserver names a manager in a conflict: `"kubectl" using apps/v1` for an Update. */
function printManager(entry: ManagedFieldsEntry): string {
  let text = JSON.stringify(entry.manager);
  if (entry.subresource) text += ` with subresource ${JSON.stringify(entry.subresource)}`;
  if (entry.operation === 'Update') text += ` using ${entry.apiVersion}`;
  return text;
}

/** The 409 of an apply that changes fields other managers own (apiserver's NewConflictError). */
function conflictError(conflicts: { entry: ManagedFieldsEntry; member: Member }[]): ApiError {
  const causes = conflicts.map(({ entry, member }) => ({
    reason: 'FieldManagerConflict',
    message: `conflict with ${printManager(entry)}`,
    field: formatPath(member.path),
  }));
  let message: string;
  if (conflicts.length === 1) {
    message = `Apply failed with 1 conflict: conflict with ${printManager(conflicts[0]!.entry)}: ${causes[0]!.field}`;
  } else {
    const byManager = new Map<string, string[]>();
    for (const { entry, member } of conflicts) {
      const name = printManager(entry);
      byManager.set(name, [...(byManager.get(name) ?? []), formatPath(member.path)]);
    }
    const lines = [...byManager.keys()]
      .sort()
      .flatMap((name) => [`conflicts with ${name}:`, ...byManager.get(name)!.map((path) => `- ${path}`)]);
    message = `Apply failed with ${conflicts.length} conflicts: ${lines.join('\n')}`;
  }
  return new ApiError(409, 'Conflict', message, { causes });
}

/** structured-merge-diff's merge of `config` into `live` under `schema` (new objects, inputs kept). */
export function mergeApplied(live: unknown, config: unknown, schema: Schema | undefined): unknown {
  if (config === undefined) return structuredClone(live);
  const node = schema ? resolve(schema) : undefined;
  const atomic =
    node?.['x-kubernetes-map-type'] === 'atomic' ||
    (node?.type === 'array' &&
      node['x-kubernetes-list-type'] !== 'map' &&
      node['x-kubernetes-list-type'] !== 'set');
  if (atomic) return structuredClone(config);
  if (Array.isArray(config)) {
    if (!Array.isArray(live) || !node) return structuredClone(config);
    if (node['x-kubernetes-list-type'] === 'set') {
      return [
        ...live,
        ...config.filter((item) => !live.some((existing) => isDeepStrictEqual(existing, item))),
      ];
    }
    if (node['x-kubernetes-list-type'] === 'map') {
      const result = live.map((item) => structuredClone(item) as unknown);
      for (const item of config) {
        const key = itemKey(item, node);
        const index = result.findIndex((candidate) => isDeepStrictEqual(itemKey(candidate, node), key));
        if (index >= 0) result[index] = mergeApplied(result[index], item, node.items);
        else result.push(structuredClone(item));
      }
      return result;
    }
    return structuredClone(config);
  }
  if (isPlainObject(config)) {
    if (!isPlainObject(live)) return structuredClone(config);
    const result: Record<string, unknown> = structuredClone(live);
    for (const [field, value] of Object.entries(config)) {
      if (value === null) {
        delete result[field];
        continue;
      }
      const child = node?.properties?.[field] ?? node?.additionalProperties;
      result[field] = mergeApplied(live[field], value, child);
    }
    return result;
  }
  return config;
}

export interface ApplyInput {
  /** Definition name of the kind (`io.k8s.api.apps.v1.Deployment`). */
  definition: string;
  /** The live object as served (with managedFields), or undefined to create. */
  live: KubeObject | undefined;
  /** The applied configuration (parsed YAML/JSON). */
  config: KubeObject;
  manager: string;
  force: boolean;
  /** `apiVersion` of the request (`apps/v1`). */
  apiVersion: string;
  /** RFC 3339 time of the request. */
  time: string;
}

/**
 * Server-side apply: the object to store (managedFields set) for `config` applied by `manager` to
 * `live`. @throws ApiError 409 Conflict naming each field another manager owns, unless `force`.
 */
export function apply(input: ApplyInput): KubeObject {
  const schema = DEFINITIONS.get(input.definition);
  const ref: Schema = { $ref: input.definition };
  const appliedSet = toFieldSet(ownable(input.config, undefined), schema ? ref : undefined);
  const managers = managersOf(input.live).filter(
    (manager) => identifier(manager.entry) !== identifier({ manager: input.manager, operation: 'Apply' }),
  );
  const previous = managersOf(input.live).find(
    (manager) => identifier(manager.entry) === identifier({ manager: input.manager, operation: 'Apply' }),
  );
  const { status: _status, ...config } = input.config;
  let merged = mergeApplied(input.live ?? {}, config, ref) as KubeObject;
  merged.metadata = { ...(input.live?.metadata ?? {}), ...(merged.metadata ?? {}) };
  // Prune what this manager applied before, applies no more, and nobody else owns.
  if (previous) {
    const others = union(...managers.map((manager) => manager.set));
    const stale = difference(difference(previous.set, appliedSet), others);
    // Remove the outermost stale nodes (an item goes with its fields), then lists left empty
    // (omitempty: the API server would not serialise them).
    const outermost = [...stale.values()].filter(
      ({ path }) => !path.some((_, index) => index > 0 && stale.has(pathKey(path.slice(0, index)))),
    );
    for (const { path } of outermost) {
      removeAt(merged, path);
      const parent = path.slice(0, -1);
      const list = valueAt(merged, parent);
      if (Array.isArray(list) && list.length === 0) removeAt(merged, parent);
    }
  }
  const changes = compare(ownable(input.live, undefined), ownable(merged, undefined), ref);
  const changed = union(changes.modified, changes.added);
  const conflicts: { entry: ManagedFieldsEntry; member: Member; manager: Manager }[] = [];
  for (const manager of managers) {
    for (const member of intersection(manager.set, changed).values())
      conflicts.push({ entry: manager.entry, member, manager });
  }
  if (conflicts.length > 0 && !input.force) throw conflictError(conflicts);
  for (const { manager, member } of conflicts) manager.set.delete(pathKey(member.path));
  const entry: ManagedFieldsEntry = {
    manager: input.manager,
    operation: 'Apply',
    apiVersion: input.apiVersion,
    time: input.time,
    fieldsType: 'FieldsV1',
    fieldsV1: {},
  };
  // The applier's entry keeps its place among the managers (appended when new).
  const next = managersOf(input.live).map(
    (manager) => managers.find((kept) => kept.entry === manager.entry) ?? { entry, set: appliedSet },
  );
  if (!previous) next.push({ entry, set: appliedSet });
  merged = { ...merged, metadata: { ...merged.metadata, managedFields: toEntries(next) } };
  return merged;
}

export interface UpdateInput {
  definition: string;
  /** The object before the write (undefined on create). */
  before: KubeObject | undefined;
  /** The object to store; its `metadata.managedFields` (as the client sent them) are the base. */
  after: KubeObject;
  manager: string;
  apiVersion: string;
  time: string;
  subresource?: string;
}

/**
 * A non-apply write's ownership (structured-merge-diff's `Updater.Update`): `manager`'s Update entry
 * gains the fields added or changed and loses those removed; every other manager loses the fields
 * added or changed. Returns the new managedFields.
 */
export function recordUpdate(input: UpdateInput): ManagedFieldsEntry[] {
  const ref: Schema | undefined = DEFINITIONS.has(input.definition) ? { $ref: input.definition } : undefined;
  const changes = compare(
    ownable(input.before, input.subresource),
    ownable(input.after, input.subresource),
    ref,
  );
  const changed = union(changes.modified, changes.added);
  const entry: ManagedFieldsEntry = {
    manager: input.manager,
    operation: 'Update',
    apiVersion: input.apiVersion,
    time: input.time,
    fieldsType: 'FieldsV1',
    fieldsV1: {},
    ...(input.subresource && { subresource: input.subresource }),
  };
  const managers = managersOf(input.after);
  const index = managers.findIndex((manager) => identifier(manager.entry) === identifier(entry));
  const own = index >= 0 ? managers[index]!.set : new Map();
  for (const manager of managers) manager.set = difference(manager.set, changed);
  const set = union(difference(own, changes.removed), changed);
  if (index >= 0) managers[index] = { entry: changed.size > 0 ? entry : managers[index]!.entry, set };
  else managers.push({ entry, set });
  return toEntries(managers);
}
