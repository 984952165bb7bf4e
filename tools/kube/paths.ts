/**
 * REST paths of the Kubernetes API, as kube-apiserver serves them: the core group under
 * `/api/v1`, every other group under `/apis/<group>/<version>`; namespaced resources under
 * `namespaces/<namespace>/<resource>[/<name>[/<subresource>]]`.
 */
import type { KubeOperation } from './operations.ts';

/**
 * The API version Sentinel reads and writes in each group (the versions `@kubernetes/client-node`'s
 * typed models describe). A group missing here is a programming error, caught by `apiPath`.
 */
export const GROUP_VERSIONS: Readonly<Record<string, string>> = {
  '': 'v1',
  apps: 'v1',
  batch: 'v1',
  policy: 'v1',
  'events.k8s.io': 'v1',
  autoscaling: 'v2',
  'metrics.k8s.io': 'v1beta1',
};

/**
 * The path of `operation` in `namespace`: the collection (no `name`), one object, or one object's
 * subresource (`resource` `pods/log` → `/api/v1/namespaces/<ns>/pods/<name>/log`). Names and
 * namespaces are URL-encoded. Throws for a group without a known version, or a subresource without
 * a name.
 */
export function apiPath(operation: KubeOperation, namespace?: string, name?: string): string {
  const version = GROUP_VERSIONS[operation.group];
  if (version === undefined) {
    throw new Error(`no API version known for group '${operation.group}' (tools/kube/paths.ts)`);
  }
  const root = operation.group === '' ? '/api/v1' : `/apis/${operation.group}/${version}`;
  const [resource, subresource] = operation.resource.split('/') as [string, string | undefined];
  if (subresource !== undefined && name === undefined) {
    throw new Error(`${operation.resource} needs an object name`);
  }
  const scope = namespace === undefined ? '' : `/namespaces/${encodeURIComponent(namespace)}`;
  const object = name === undefined ? '' : `/${encodeURIComponent(name)}`;
  return `${root}${scope}/${resource}${object}${subresource ? `/${subresource}` : ''}`;
}
