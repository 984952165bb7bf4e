/**
 * Field sets, as sigs.k8s.io/structured-merge-diff's `fieldpath.Set`: which fields of an object a
 * manager owns. A path is a list of elements — a field name, the key of an associative list item
 * (`containers[name="web"]`), a value of a set list (`finalizers[="x"]`) — found by walking the
 * object with its schema (`schemas.ts`): lists with `x-kubernetes-list-type: map` are items by key,
 * `set` lists are values, other lists and `x-kubernetes-map-type: atomic` maps are one leaf; open
 * subtrees are maps of untyped values. Serialised as the API's `FieldsV1` trie (`f:`, `k:`, `v:`,
 * and `.` for a node that is itself a member).
 */
import { isDeepStrictEqual } from 'node:util';
import { resolve } from './schemas.ts';
import type { Schema } from './schemas.ts';

export type PathElement =
  { field: string } | { key: Record<string, unknown> } | { value: unknown } | { index: number };

export type FieldPath = PathElement[];

export interface Member {
  path: FieldPath;
  /** No child is in the set (a scalar, an atomic value, an empty map, a set value). */
  leaf: boolean;
}

/** A set of paths, keyed by their serialisation. */
export type FieldSet = Map<string, Member>;

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** The FieldsV1 key of one element: `f:name`, `k:{"name":"web"}`, `v:"x"`, `i:0`. */
export function elementKey(element: PathElement): string {
  if ('field' in element) return `f:${element.field}`;
  if ('key' in element) {
    const sorted = Object.fromEntries(Object.entries(element.key).sort(([a], [b]) => a.localeCompare(b)));
    return `k:${JSON.stringify(sorted)}`;
  }
  if ('value' in element) return `v:${JSON.stringify(element.value)}`;
  return `i:${element.index}`;
}

export function pathKey(path: FieldPath): string {
  return path.map(elementKey).join('\u0000');
}

/** `.spec.template.spec.containers[name="web"].image`, as structured-merge-diff prints paths. */
export function formatPath(path: FieldPath): string {
  return path
    .map((element) => {
      if ('field' in element) return `.${element.field}`;
      if ('key' in element) {
        const parts = Object.entries(element.key)
          .sort(([a], [b]) => a.localeCompare(b))
          .map(([name, value]) => `${name}=${JSON.stringify(value)}`);
        return `[${parts.join(',')}]`;
      }
      if ('value' in element) return `[=${JSON.stringify(element.value)}]`;
      return `[${element.index}]`;
    })
    .join('');
}

/** What kind of node `schema` describes, for walking. */
function kindOf(
  schema: Schema | undefined,
): 'struct' | 'map' | 'atomic' | 'mapList' | 'setList' | 'scalar' | 'untyped' {
  if (!schema) return 'untyped';
  const node = resolve(schema);
  if (node['x-kubernetes-preserve-unknown-fields']) return 'untyped';
  if (node.type === 'array') {
    const listType = node['x-kubernetes-list-type'] ?? schema['x-kubernetes-list-type'];
    if (listType === 'map') return 'mapList';
    if (listType === 'set') return 'setList';
    return 'atomic';
  }
  if (node['x-kubernetes-map-type'] === 'atomic') return 'atomic';
  if (node.properties) return 'struct';
  if (node.additionalProperties) return 'map';
  if (node.type === 'object') return 'untyped';
  return 'scalar';
}

function listKeysOf(schema: Schema): string[] {
  const node = resolve(schema);
  return node['x-kubernetes-list-map-keys'] ?? schema['x-kubernetes-list-map-keys'] ?? [];
}

function childSchema(schema: Schema | undefined, field: string): Schema | undefined {
  if (!schema) return undefined;
  const node = resolve(schema);
  return node.properties?.[field] ?? node.additionalProperties;
}

function itemSchema(schema: Schema | undefined): Schema | undefined {
  return schema ? resolve(schema).items : undefined;
}

/** The key element of an associative list item (the list's map keys that the item has). */
export function itemKey(item: unknown, schema: Schema): Record<string, unknown> {
  const keys = listKeysOf(schema);
  const record = isPlainObject(item) ? item : {};
  return Object.fromEntries(keys.filter((key) => record[key] !== undefined).map((key) => [key, record[key]]));
}

/**
 * The field set of `value` (structured-merge-diff's `ToFieldSet`): every scalar and atomic value,
 * every associative list item and set value, every map entry, and struct fields that are null or
 * empty maps.
 */
export function toFieldSet(value: unknown, schema: Schema | undefined, base: FieldPath = []): FieldSet {
  const set: FieldSet = new Map();
  const insert = (path: FieldPath, leaf: boolean): void => {
    set.set(pathKey(path), { path, leaf });
  };
  const walk = (node: unknown, nodeSchema: Schema | undefined, path: FieldPath): void => {
    const kind = kindOf(nodeSchema);
    if (kind === 'atomic' || kind === 'scalar') return insert(path, true);
    if (Array.isArray(node)) {
      if (kind === 'mapList') {
        for (const item of node) {
          const itemPath = [...path, { key: itemKey(item, nodeSchema!) }];
          const before = set.size;
          walk(item, itemSchema(nodeSchema), itemPath);
          insert(itemPath, set.size === before);
        }
      } else if (kind === 'setList') {
        for (const item of node) insert([...path, { value: item }], true);
      } else insert(path, true); // untyped lists are atomic
      return;
    }
    if (!isPlainObject(node)) return insert(path, true);
    const declared = kind === 'struct' ? resolve(nodeSchema!).properties! : undefined;
    for (const [field, child] of Object.entries(node)) {
      const childPath = [...path, { field }];
      const before = set.size;
      walk(child, childSchema(nodeSchema, field), childPath);
      const empty = child === null || (isPlainObject(child) && Object.keys(child).length === 0);
      if (empty || !declared?.[field]) {
        if (!set.has(pathKey(childPath))) insert(childPath, set.size === before);
      }
    }
  };
  walk(value, schema, base);
  return set;
}

/** The `FieldsV1` trie of a set. */
export function toFieldsV1(set: FieldSet): Record<string, unknown> {
  const root: Record<string, unknown> = {};
  const members = [...set.values()];
  for (const { path } of members) {
    let node = root;
    for (const element of path) node = (node[elementKey(element)] ??= {}) as Record<string, unknown>;
  }
  // A member that has children is marked with '.'.
  for (const { path } of members) {
    let node = root;
    for (const element of path) node = node[elementKey(element)] as Record<string, unknown>;
    if (Object.keys(node).length > 0 && !('.' in node)) node['.'] = {};
  }
  return root;
}

function parseElement(key: string): PathElement | undefined {
  const body = key.slice(2);
  try {
    if (key.startsWith('f:')) return { field: body };
    if (key.startsWith('k:')) return { key: JSON.parse(body) as Record<string, unknown> };
    if (key.startsWith('v:')) return { value: JSON.parse(body) };
    if (key.startsWith('i:')) return { index: Number.parseInt(body, 10) };
  } catch {
    return undefined;
  }
  return undefined;
}

/** A `FieldsV1` trie back to a set (malformed keys are skipped). */
export function fromFieldsV1(fields: unknown): FieldSet {
  const set: FieldSet = new Map();
  const walk = (node: unknown, path: FieldPath): void => {
    if (!isPlainObject(node)) return;
    const children = Object.keys(node).filter((key) => key !== '.');
    if (path.length > 0 && ('.' in node || children.length === 0))
      set.set(pathKey(path), { path, leaf: children.length === 0 });
    for (const key of children) {
      const element = parseElement(key);
      if (element) walk(node[key], [...path, element]);
    }
  };
  walk(fields, []);
  return set;
}

/** The value at `path` in `object` (undefined when absent), following list keys and set values. */
export function valueAt(object: unknown, path: FieldPath): unknown {
  let node: unknown = object;
  for (const element of path) {
    if ('field' in element) {
      node = isPlainObject(node) ? node[element.field] : undefined;
    } else if ('key' in element) {
      node = Array.isArray(node)
        ? node.find(
            (item) =>
              isPlainObject(item) &&
              Object.entries(element.key).every(([key, value]) => isDeepStrictEqual(item[key], value)),
          )
        : undefined;
    } else if ('value' in element) {
      node =
        Array.isArray(node) && node.some((item) => isDeepStrictEqual(item, element.value))
          ? element.value
          : undefined;
    } else node = Array.isArray(node) ? node[element.index] : undefined;
    if (node === undefined) return undefined;
  }
  return node;
}

/** Removes the node at `path` from `object` in place (a list item or set value leaves its list). */
export function removeAt(object: unknown, path: FieldPath): void {
  if (path.length === 0) return;
  const parent = valueAt(object, path.slice(0, -1));
  const last = path.at(-1)!;
  if ('field' in last) {
    if (isPlainObject(parent)) delete parent[last.field];
  } else if (Array.isArray(parent)) {
    const index = parent.findIndex((item) =>
      'key' in last
        ? isPlainObject(item) &&
          Object.entries(last.key).every(([key, value]) => isDeepStrictEqual(item[key], value))
        : 'value' in last
          ? isDeepStrictEqual(item, last.value)
          : false,
    );
    if ('index' in last) parent.splice(last.index, 1);
    else if (index >= 0) parent.splice(index, 1);
  }
}

/** Paths of `a` not in `b`. */
export function difference(a: FieldSet, b: FieldSet): FieldSet {
  return new Map([...a].filter(([key]) => !b.has(key)));
}

export function intersection(a: FieldSet, b: FieldSet): FieldSet {
  return new Map([...a].filter(([key]) => b.has(key)));
}

export function union(...sets: FieldSet[]): FieldSet {
  const out: FieldSet = new Map();
  for (const set of sets) for (const [key, member] of set) out.set(key, member);
  return out;
}

/** structured-merge-diff's `Compare`: paths added, removed, and leaves whose value changed. */
export function compare(
  before: unknown,
  after: unknown,
  schema: Schema | undefined,
): { added: FieldSet; removed: FieldSet; modified: FieldSet } {
  const old = toFieldSet(before, schema);
  const next = toFieldSet(after, schema);
  const modified: FieldSet = new Map();
  for (const [key, member] of next) {
    if (!old.has(key) || !member.leaf) continue;
    if (!isDeepStrictEqual(valueAt(before, member.path), valueAt(after, member.path)))
      modified.set(key, member);
  }
  return { added: difference(next, old), removed: difference(old, next), modified };
}
