/**
 * The API calls the Kubernetes layer can make, one row per method: the RBAC verb, API group and
 * resource it needs. Kept next to the implementation so the RBAC manifests in `deploy/k8s/` can be
 * checked against it (test/deploy/k8s/rbac.test.ts), and so a `forbidden` error can say exactly
 * which verb on which resource the role lacks.
 */
import type { KubeReader, KubeWriter } from './types.ts';
import { WORKLOAD_READER_OPERATIONS, WORKLOAD_WRITER_OPERATIONS } from './workloads.ts';

/** One API call: `verb` on `resource` (with `subresource`, e.g. `pods/log`) in API `group` (`''` = core). */
export interface KubeOperation {
  verb: 'get' | 'list' | 'watch' | 'patch' | 'delete';
  /** API group; `''` is the core group. */
  group: string;
  /** Plural resource name, subresource included (`pods/log`, `deployments/scale`). */
  resource: string;
  /** Kind of the object the call is about, for error messages (`Deployment`). */
  kind: string;
  /** A cluster-scoped resource (namespaces): only a ClusterRole can grant it. */
  clusterScoped?: true;
}

/** A call to a non-resource URL (`/version`), granted to every authenticated user by Kubernetes' default `system:public-info-viewer` ClusterRole. */
export interface KubeNonResourceOperation {
  verb: 'get';
  nonResourceURL: string;
}

type ReaderMethod = Exclude<keyof KubeReader, 'cluster'>;
type WriterMethod = keyof KubeWriter;

/** What each `KubeReader` method calls. */
export const READER_OPERATIONS = {
  getVersion: { verb: 'get', nonResourceURL: '/version' },
  listNamespaces: { verb: 'list', group: '', resource: 'namespaces', kind: 'Namespace', clusterScoped: true },
  getDeployment: { verb: 'get', group: 'apps', resource: 'deployments', kind: 'Deployment' },
  listDeployments: { verb: 'list', group: 'apps', resource: 'deployments', kind: 'Deployment' },
  listReplicaSets: { verb: 'list', group: 'apps', resource: 'replicasets', kind: 'ReplicaSet' },
  getDeploymentAsSent: { verb: 'get', group: 'apps', resource: 'deployments', kind: 'Deployment' },
  listReplicaSetsAsSent: { verb: 'list', group: 'apps', resource: 'replicasets', kind: 'ReplicaSet' },
  getPod: { verb: 'get', group: '', resource: 'pods', kind: 'Pod' },
  listPods: { verb: 'list', group: '', resource: 'pods', kind: 'Pod' },
  readPodLog: { verb: 'get', group: '', resource: 'pods/log', kind: 'Pod' },
  getService: { verb: 'get', group: '', resource: 'services', kind: 'Service' },
  listServices: { verb: 'list', group: '', resource: 'services', kind: 'Service' },
  listEvents: { verb: 'list', group: '', resource: 'events', kind: 'Event' },
  listEventsV1: { verb: 'list', group: 'events.k8s.io', resource: 'events', kind: 'Event' },
  listHorizontalPodAutoscalers: {
    verb: 'list',
    group: 'autoscaling',
    resource: 'horizontalpodautoscalers',
    kind: 'HorizontalPodAutoscaler',
  },
  listPodMetrics: { verb: 'list', group: 'metrics.k8s.io', resource: 'pods', kind: 'PodMetrics' },
  ...WORKLOAD_READER_OPERATIONS,
} as const satisfies Record<ReaderMethod, KubeOperation | KubeNonResourceOperation>;

/**
 * What the read cache (`--read-cache watch`, the default; ./read-cache.ts) calls besides the lists: a
 * watch of each resource it holds. The read-only roles grant them.
 */
export const CACHE_OPERATIONS = {
  watchDeployments: { verb: 'watch', group: 'apps', resource: 'deployments', kind: 'Deployment' },
  watchReplicaSets: { verb: 'watch', group: 'apps', resource: 'replicasets', kind: 'ReplicaSet' },
  watchPods: { verb: 'watch', group: '', resource: 'pods', kind: 'Pod' },
  watchHorizontalPodAutoscalers: {
    verb: 'watch',
    group: 'autoscaling',
    resource: 'horizontalpodautoscalers',
    kind: 'HorizontalPodAutoscaler',
  },
} as const satisfies Record<string, KubeOperation>;

/** What each `KubeWriter` method calls. */
export const WRITER_OPERATIONS = {
  patchDeploymentJson: { verb: 'patch', group: 'apps', resource: 'deployments', kind: 'Deployment' },
  patchDeploymentStrategic: { verb: 'patch', group: 'apps', resource: 'deployments', kind: 'Deployment' },
  patchDeploymentScale: { verb: 'patch', group: 'apps', resource: 'deployments/scale', kind: 'Deployment' },
  ...WORKLOAD_WRITER_OPERATIONS,
} as const satisfies Record<WriterMethod, KubeOperation>;

/** How an operation reads in a message: `list deployments (API group "apps")`, `get /version`. */
export function describeOperation(op: KubeOperation | KubeNonResourceOperation): string {
  if ('nonResourceURL' in op) return `${op.verb} ${op.nonResourceURL}`;
  return `${op.verb} ${op.resource} (API group ${op.group ? `"${op.group}"` : 'core'})`;
}
