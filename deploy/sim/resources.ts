/**
 * The API resources the simulator serves, with the discovery metadata a real API server publishes
 * for them (kind, verbs, short names, categories) and the field labels its field selectors accept.
 * Discovery, routing, storage and the Table printers all read this one list.
 */

export interface ResourceType {
  /** API group; `''` is the core group. */
  group: string;
  version: string;
  /** URL segment, e.g. `deployments`. */
  plural: string;
  singular: string;
  kind: string;
  namespaced: boolean;
  verbs: string[];
  shortNames?: string[];
  categories?: string[];
  /** Subresources served, e.g. `scale`, `status`, `log`. */
  subresources: string[];
  /** Field labels accepted by fieldSelector besides `metadata.name` and `metadata.namespace`. */
  fieldLabels: string[];
  /** Storage the objects live in (events.k8s.io Events are a view of core Events). */
  storage: string;
  /** A review (access or identity): create-only, answered from the request, never stored. */
  review?: true;
}

const ALL_VERBS = ['create', 'delete', 'deletecollection', 'get', 'list', 'patch', 'update', 'watch'];

/** autoscaling/v2 HorizontalPodAutoscaler; v1 is the same resource and storage. */
const HORIZONTAL_POD_AUTOSCALER: ResourceType = {
  group: 'autoscaling',
  version: 'v2',
  plural: 'horizontalpodautoscalers',
  singular: 'horizontalpodautoscaler',
  kind: 'HorizontalPodAutoscaler',
  namespaced: true,
  verbs: ALL_VERBS,
  shortNames: ['hpa'],
  categories: ['all'],
  subresources: ['status'],
  fieldLabels: [],
  storage: 'horizontalpodautoscalers',
};

export const RESOURCE_TYPES: readonly ResourceType[] = [
  {
    group: '',
    version: 'v1',
    plural: 'namespaces',
    singular: 'namespace',
    kind: 'Namespace',
    namespaced: false,
    verbs: ['create', 'delete', 'get', 'list', 'patch', 'update', 'watch'],
    shortNames: ['ns'],
    subresources: ['status'],
    fieldLabels: ['status.phase'],
    storage: 'namespaces',
  },
  {
    group: '',
    version: 'v1',
    plural: 'nodes',
    singular: 'node',
    kind: 'Node',
    namespaced: false,
    verbs: ALL_VERBS,
    shortNames: ['no'],
    subresources: ['status'],
    fieldLabels: ['spec.unschedulable'],
    storage: 'nodes',
  },
  {
    group: '',
    version: 'v1',
    plural: 'pods',
    singular: 'pod',
    kind: 'Pod',
    namespaced: true,
    verbs: ALL_VERBS,
    shortNames: ['po'],
    categories: ['all'],
    subresources: ['log', 'status'],
    fieldLabels: [
      'spec.nodeName',
      'spec.restartPolicy',
      'spec.schedulerName',
      'spec.serviceAccountName',
      'spec.hostNetwork',
      'status.phase',
      'status.podIP',
      'status.nominatedNodeName',
    ],
    storage: 'pods',
  },
  {
    group: '',
    version: 'v1',
    plural: 'services',
    singular: 'service',
    kind: 'Service',
    namespaced: true,
    verbs: ALL_VERBS.filter((verb) => verb !== 'deletecollection'),
    shortNames: ['svc'],
    categories: ['all'],
    subresources: ['status'],
    fieldLabels: ['spec.clusterIP', 'spec.type'],
    storage: 'services',
  },
  {
    group: '',
    version: 'v1',
    plural: 'events',
    singular: 'event',
    kind: 'Event',
    namespaced: true,
    verbs: ALL_VERBS,
    shortNames: ['ev'],
    subresources: [],
    fieldLabels: [
      'involvedObject.kind',
      'involvedObject.namespace',
      'involvedObject.name',
      'involvedObject.uid',
      'involvedObject.apiVersion',
      'involvedObject.resourceVersion',
      'involvedObject.fieldPath',
      'reason',
      'reportingComponent',
      'source',
      'type',
    ],
    storage: 'events',
  },
  {
    group: 'apps',
    version: 'v1',
    plural: 'deployments',
    singular: 'deployment',
    kind: 'Deployment',
    namespaced: true,
    verbs: ALL_VERBS,
    shortNames: ['deploy'],
    categories: ['all'],
    subresources: ['scale', 'status'],
    fieldLabels: [],
    storage: 'deployments',
  },
  {
    group: 'apps',
    version: 'v1',
    plural: 'replicasets',
    singular: 'replicaset',
    kind: 'ReplicaSet',
    namespaced: true,
    verbs: ALL_VERBS,
    shortNames: ['rs'],
    categories: ['all'],
    subresources: ['scale', 'status'],
    fieldLabels: ['status.replicas'],
    storage: 'replicasets',
  },
  {
    group: 'apps',
    version: 'v1',
    plural: 'statefulsets',
    singular: 'statefulset',
    kind: 'StatefulSet',
    namespaced: true,
    verbs: ALL_VERBS,
    shortNames: ['sts'],
    categories: ['all'],
    subresources: ['scale', 'status'],
    fieldLabels: [],
    storage: 'statefulsets',
  },
  {
    group: 'apps',
    version: 'v1',
    plural: 'daemonsets',
    singular: 'daemonset',
    kind: 'DaemonSet',
    namespaced: true,
    verbs: ALL_VERBS,
    shortNames: ['ds'],
    categories: ['all'],
    subresources: ['status'],
    fieldLabels: [],
    storage: 'daemonsets',
  },
  {
    group: 'apps',
    version: 'v1',
    plural: 'controllerrevisions',
    singular: 'controllerrevision',
    kind: 'ControllerRevision',
    namespaced: true,
    verbs: ALL_VERBS,
    subresources: [],
    fieldLabels: [],
    storage: 'controllerrevisions',
  },
  {
    group: '',
    version: 'v1',
    plural: 'persistentvolumeclaims',
    singular: 'persistentvolumeclaim',
    kind: 'PersistentVolumeClaim',
    namespaced: true,
    verbs: ALL_VERBS,
    shortNames: ['pvc'],
    subresources: ['status'],
    fieldLabels: [],
    storage: 'persistentvolumeclaims',
  },
  {
    group: 'events.k8s.io',
    version: 'v1',
    plural: 'events',
    singular: 'event',
    kind: 'Event',
    namespaced: true,
    verbs: ALL_VERBS,
    shortNames: ['ev'],
    subresources: [],
    fieldLabels: [
      'regarding.kind',
      'regarding.namespace',
      'regarding.name',
      'regarding.uid',
      'regarding.apiVersion',
      'regarding.resourceVersion',
      'regarding.fieldPath',
      'reason',
      'reportingController',
      'type',
    ],
    storage: 'events',
  },
  HORIZONTAL_POD_AUTOSCALER,
  // The same storage through the older version (kubectl autoscale creates autoscaling/v1).
  { ...HORIZONTAL_POD_AUTOSCALER, version: 'v1' },
  {
    group: '',
    version: 'v1',
    plural: 'serviceaccounts',
    singular: 'serviceaccount',
    kind: 'ServiceAccount',
    namespaced: true,
    verbs: ALL_VERBS,
    shortNames: ['sa'],
    subresources: [],
    fieldLabels: [],
    storage: 'serviceaccounts',
  },
  // What Pods reference by key (env valueFrom, envFrom): the kubelet's config errors read them.
  ...(
    [
      ['configmaps', 'ConfigMap', ['cm']],
      ['secrets', 'Secret', []],
    ] as const
  ).map(([plural, kind, shortNames]) => ({
    group: '',
    version: 'v1',
    plural,
    singular: plural.slice(0, -1),
    kind,
    namespaced: true,
    verbs: ALL_VERBS,
    shortNames: [...shortNames],
    subresources: [],
    fieldLabels: [],
    storage: plural,
  })),
  ...(
    [
      ['roles', 'Role', true],
      ['rolebindings', 'RoleBinding', true],
      ['clusterroles', 'ClusterRole', false],
      ['clusterrolebindings', 'ClusterRoleBinding', false],
    ] as const
  ).map(([plural, kind, namespaced]) => ({
    group: 'rbac.authorization.k8s.io',
    version: 'v1',
    plural,
    singular: plural.slice(0, -1),
    kind,
    namespaced,
    verbs: ALL_VERBS,
    subresources: [],
    fieldLabels: [],
    storage: plural,
  })),
  ...(
    [
      ['authorization.k8s.io', 'selfsubjectaccessreviews', 'SelfSubjectAccessReview'],
      ['authorization.k8s.io', 'selfsubjectrulesreviews', 'SelfSubjectRulesReview'],
      ['authentication.k8s.io', 'selfsubjectreviews', 'SelfSubjectReview'],
    ] as const
  ).map(([group, plural, kind]) => ({
    group,
    version: 'v1',
    plural,
    singular: plural.slice(0, -1),
    kind,
    namespaced: false,
    verbs: ['create'],
    subresources: [],
    fieldLabels: [],
    storage: plural,
    review: true as const,
  })),
];

/** `group/version` as in `apiVersion` (`v1` for the core group). */
export function groupVersion(type: Pick<ResourceType, 'group' | 'version'>): string {
  return type.group ? `${type.group}/${type.version}` : type.version;
}

/** The resource served at `group/version/plural`, if any. */
export function findResourceType(group: string, version: string, plural: string): ResourceType | undefined {
  return RESOURCE_TYPES.find(
    (type) => type.group === group && type.version === version && type.plural === plural,
  );
}

/** The resource a stored kind belongs to (its canonical API: core Events for kind Event). */
export function resourceTypeForKind(kind: string): ResourceType | undefined {
  return RESOURCE_TYPES.find((type) => type.kind === kind);
}

/** `deployments.apps` / `pods`: the resource name the API server uses in error messages. */
export function qualifiedResource(type: ResourceType): string {
  return type.group ? `${type.plural}.${type.group}` : type.plural;
}
