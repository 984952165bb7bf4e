/**
 * The three PATCH formats of the Kubernetes API:
 * - `application/json-patch+json` (RFC 6902, what `kubectl rollout undo` sends) via fast-json-patch;
 * - `application/merge-patch+json` (RFC 7396) via json-merge-patch;
 * - `application/strategic-merge-patch+json` (what `kubectl rollout restart|pause|resume`, `kubectl
 *   set image` and client-side `apply` send). No npm package implements strategic merge, so this is
 *   the subset of k8s.io/apimachinery/pkg/util/strategicpatch for the core, apps and autoscaling
 *   types: maps merge recursively, `null` deletes, the lists that carry a `patchMergeKey` in the
 *   Kubernetes API types merge by that key, other lists are replaced, and the `$patch`
 *   (replace/delete/merge), `$retainKeys`, `$deleteFromPrimitiveList/` and `$setElementOrder/`
 *   directives are honoured.
 */
import fastJsonPatch from 'fast-json-patch';
import jsonMergePatch from 'json-merge-patch';
import { badRequest, unsupportedMediaType } from './status.ts';

export const PATCH_CONTENT_TYPES = [
  'application/json-patch+json',
  'application/merge-patch+json',
  'application/strategic-merge-patch+json',
] as const;

export type PatchContentType = (typeof PATCH_CONTENT_TYPES)[number];

/** The patch type of a request's Content-Type (parameters ignored); 415 for anything else. */
export function patchTypeOf(contentType: string | undefined): PatchContentType {
  const bare = (contentType ?? '').split(';')[0]!.trim().toLowerCase();
  const known = PATCH_CONTENT_TYPES.find((type) => type === bare);
  if (!known) throw unsupportedMediaType(bare, [...PATCH_CONTENT_TYPES]);
  return known;
}

/**
 * Applies `patch` (already JSON-parsed) to a copy of `target`. Malformed patches and failed `test`
 * operations are 400s like the API server's ("the server rejected our request due to an error in
 * our request").
 */
export function applyPatch(target: unknown, patch: unknown, type: PatchContentType): unknown {
  switch (type) {
    case 'application/json-patch+json': {
      if (!Array.isArray(patch)) throw badRequest('json patch must be an array of operations');
      const error = fastJsonPatch.validate(patch as fastJsonPatch.Operation[], target);
      if (error)
        throw badRequest(`the server rejected our request due to an error in our request: ${error.message}`);
      try {
        return fastJsonPatch.applyPatch(
          structuredClone(target),
          patch as fastJsonPatch.Operation[],
          false,
          false,
        ).newDocument;
      } catch (cause) {
        throw badRequest(
          `the server rejected our request due to an error in our request: ${String((cause as Error).message)}`,
        );
      }
    }
    case 'application/merge-patch+json':
      if (!isPlainObject(patch)) throw badRequest('merge patch must be a JSON object');
      return jsonMergePatch.apply(structuredClone(target), patch);
    case 'application/strategic-merge-patch+json':
      if (!isPlainObject(patch)) throw badRequest('strategic merge patch must be a JSON object');
      return strategicMerge(structuredClone(target) as Record<string, unknown>, patch);
  }
}

/** Merge keys of the list fields that have one in the Kubernetes API types (`patchMergeKey`). */
function mergeKeyOf(field: string, sample: unknown): string | undefined {
  switch (field) {
    case 'containers':
    case 'initContainers':
    case 'ephemeralContainers':
    case 'env':
    case 'volumes':
    case 'imagePullSecrets':
    case 'ownerReferences':
      return field === 'ownerReferences' ? 'uid' : 'name';
    case 'volumeMounts':
      return 'mountPath';
    case 'volumeDevices':
      return 'devicePath';
    case 'conditions':
      return 'type';
    case 'hostAliases':
      return 'ip';
    case 'ports':
      // Container ports merge on containerPort, Service ports on port.
      return isPlainObject(sample) && 'containerPort' in sample ? 'containerPort' : 'port';
    default:
      return undefined;
  }
}

/** Lists of scalars that strategic merge treats as sets (`patchStrategy: merge`). */
const MERGED_PRIMITIVE_LISTS = new Set(['finalizers']);

function strategicMerge(
  target: Record<string, unknown>,
  patch: Record<string, unknown>,
): Record<string, unknown> {
  const directive = patch['$patch'];
  if (directive === 'replace') {
    const { $patch: _drop, ...rest } = patch;
    return stripDirectives(rest);
  }
  if (directive === 'delete') return {};
  const retainKeys = patch['$retainKeys'];
  for (const [field, value] of Object.entries(patch)) {
    if (field === '$patch' || field === '$retainKeys' || field.startsWith('$setElementOrder/')) continue;
    if (field.startsWith('$deleteFromPrimitiveList/')) {
      const listField = field.slice('$deleteFromPrimitiveList/'.length);
      const current = target[listField];
      if (Array.isArray(current) && Array.isArray(value)) {
        target[listField] = current.filter((item) => !value.includes(item));
      }
      continue;
    }
    if (value === null) {
      delete target[field];
    } else if (isPlainObject(value)) {
      if (value['$patch'] === 'delete') {
        delete target[field];
        continue;
      }
      const current = target[field];
      target[field] = strategicMerge(isPlainObject(current) ? current : {}, value);
    } else if (Array.isArray(value)) {
      target[field] = mergeList(field, target[field], value);
    } else {
      target[field] = value;
    }
  }
  if (Array.isArray(retainKeys)) {
    for (const field of Object.keys(target)) if (!retainKeys.includes(field)) delete target[field];
  }
  return target;
}

function mergeList(field: string, current: unknown, patch: unknown[]): unknown[] {
  const existing = Array.isArray(current) ? current : [];
  if (MERGED_PRIMITIVE_LISTS.has(field)) {
    return [...existing, ...patch.filter((item) => !existing.includes(item))];
  }
  const replaceDirective = patch.find((item) => isPlainObject(item) && item['$patch'] === 'replace');
  const mergeKey = mergeKeyOf(field, patch.find(isPlainObject) ?? existing.find(isPlainObject));
  if (!mergeKey || replaceDirective) {
    return patch.filter((item) => !(isPlainObject(item) && '$patch' in item)).map(stripDirectivesOf);
  }
  const result = existing.map((item) => structuredClone(item));
  for (const item of patch) {
    if (!isPlainObject(item)) throw badRequest(`strategic merge patch: "${field}" elements must be objects`);
    const keyValue = item[mergeKey];
    if (keyValue === undefined)
      throw badRequest(`strategic merge patch: "${field}" element is missing its merge key "${mergeKey}"`);
    const index = result.findIndex(
      (candidate) => isPlainObject(candidate) && candidate[mergeKey] === keyValue,
    );
    if (item['$patch'] === 'delete') {
      if (index >= 0) result.splice(index, 1);
    } else if (index >= 0) {
      result[index] = strategicMerge(result[index] as Record<string, unknown>, item);
    } else {
      result.push(stripDirectives(item));
    }
  }
  return result;
}

function stripDirectivesOf(value: unknown): unknown {
  return isPlainObject(value) ? stripDirectives(value) : value;
}

function stripDirectives(value: Record<string, unknown>): Record<string, unknown> {
  return strategicMerge({}, value);
}

function isPlainObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
