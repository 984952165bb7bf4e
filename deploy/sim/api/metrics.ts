/**
 * The resource metrics API (`metrics.k8s.io/v1beta1`, served by metrics-server as an aggregated API
 * on a real cluster): PodMetrics at `/apis/metrics.k8s.io/v1beta1[/namespaces/{ns}]/pods[/{name}]`,
 * get and list (labelSelector), what `kubectl top pod` reads. Usage comes from each container's
 * fate (`usage` of its scenario fate rule); without one a container reports 1m CPU and, when it is
 * OOM-killed, its memory limit (the usage it was killed at), otherwise its memory request or 32Mi.
 * A Pod is listed once one of its containers has run (metrics-server reports the last scrape of the
 * kubelet's summary API, so a container in back-off still shows its last usage). Pure views.
 */
import type { ContainerFate } from '../fate.ts';
import type { ResourceType } from '../resources.ts';
import type { Container, Pod } from '../types.ts';

export const METRICS_GROUP = 'metrics.k8s.io';
export const METRICS_VERSION = 'v1beta1';
const GROUP_VERSION = `${METRICS_GROUP}/${METRICS_VERSION}`;
/** metrics-server's default metric resolution (the `window` of every sample). */
const WINDOW = '15s';

/** PodMetrics as a resource (for RBAC and error wording; not stored, so not in RESOURCE_TYPES). */
export const POD_METRICS: ResourceType = {
  group: METRICS_GROUP,
  version: METRICS_VERSION,
  plural: 'pods',
  singular: '',
  kind: 'PodMetrics',
  namespaced: true,
  verbs: ['get', 'list'],
  subresources: [],
  fieldLabels: [],
  storage: 'pods',
};

/** What a metrics path addresses, or undefined when `pathname` is not one. */
export function parseMetricsRoute(
  pathname: string,
): { namespace: string | undefined; name: string | undefined } | undefined {
  const s = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  if (s[0] !== 'apis' || s[1] !== METRICS_GROUP || s[2] !== METRICS_VERSION) return undefined;
  const rest = s.slice(3);
  if (rest[0] === 'pods' && rest.length <= 1) return { namespace: undefined, name: undefined };
  if (rest[0] === 'namespaces' && rest[2] === 'pods' && rest.length >= 3 && rest.length <= 4)
    return { namespace: rest[1], name: rest[3] };
  return undefined;
}

/** The APIGroup entry of metrics.k8s.io (for `/apis` and `/apis/metrics.k8s.io`). */
export function metricsGroup() {
  const version = { groupVersion: GROUP_VERSION, version: METRICS_VERSION };
  return { name: METRICS_GROUP, versions: [version], preferredVersion: version };
}

/** The APIResourceList of metrics.k8s.io/v1beta1. */
export function metricsResourceList() {
  return {
    kind: 'APIResourceList',
    apiVersion: 'v1',
    groupVersion: GROUP_VERSION,
    resources: [
      { name: 'pods', singularName: '', namespaced: true, kind: 'PodMetrics', verbs: ['get', 'list'] },
    ],
  };
}

/** The usage one container reports (see the module comment for the defaults). */
export function containerUsage(spec: Container, fate: ContainerFate): { cpu: string; memory: string } {
  const limit = spec.resources?.limits?.memory;
  const memory =
    fate.usage?.memory ??
    (fate.kind === 'oomKilled' && limit ? String(limit) : undefined) ??
    (spec.resources?.requests?.memory ? String(spec.resources.requests.memory) : '32Mi');
  return { cpu: fate.usage?.cpu ?? '1m', memory };
}

/** The PodMetrics of `pod` whose containers that ran are `ran`, sampled at `now` (epoch ms). */
export function podMetrics(pod: Pod, ran: { spec: Container; fate: ContainerFate }[], now: number) {
  return {
    kind: 'PodMetrics',
    apiVersion: GROUP_VERSION,
    metadata: {
      name: pod.metadata.name,
      namespace: pod.metadata.namespace,
      creationTimestamp: new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z'),
      ...(pod.metadata.labels && { labels: pod.metadata.labels }),
    },
    timestamp: new Date(now).toISOString().replace(/\.\d{3}Z$/, 'Z'),
    window: WINDOW,
    containers: ran.map(({ spec, fate }) => ({ name: spec.name, usage: containerUsage(spec, fate) })),
  };
}
