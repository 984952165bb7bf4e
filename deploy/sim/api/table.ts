/**
 * Server-side printing: the `meta.k8s.io/v1` Table that `kubectl get` asks for
 * (`Accept: application/json;as=Table;v=v1;g=meta.k8s.io`), with the columns and cell logic of
 * k8s.io/kubernetes/pkg/printers/internalversion/printers.go (pod STATUS and RESTARTS, deployment
 * READY/UP-TO-DATE/AVAILABLE, event LAST SEEN/OBJECT, ...). Like the real server, rows carry every
 * column (wide ones at priority 1) and kubectl hides what it does not show.
 */
import type { ResourceType } from '../resources.ts';
import type {
  ControllerRevision,
  CoreEvent,
  DaemonSet,
  Deployment,
  KubeObject,
  PersistentVolumeClaim,
  Pod,
  ReplicaSet,
  StatefulSet,
} from '../types.ts';
import { DEFINITIONS } from './schemas.ts';
import { formatLabelSelector } from './selectors.ts';
import type { EventsV1Event } from './views.ts';
import { humanDuration, podSummary, type Pod as KubePod } from '../../../tools/index.ts';

export interface ColumnDefinition {
  name: string;
  type: 'string' | 'integer' | 'number' | 'boolean' | 'date';
  format: string;
  description: string;
  priority: number;
}

type Cell = string | number;

interface Printer {
  columns: ColumnDefinition[];
  cells: (object: KubeObject, now: number) => Cell[];
}

const column = (
  name: string,
  type: ColumnDefinition['type'],
  priority = 0,
  format = '',
  description = '',
): ColumnDefinition => ({
  name,
  type,
  format: name === 'Name' ? 'name' : format,
  description: description || `${name} of the object.`,
  priority,
});

/** Undescribed string columns of one priority (0 always shown, 1 only with `-o wide`), in order. */
const stringColumns = (priority: number, ...names: string[]): ColumnDefinition[] =>
  names.map((name) => column(name, 'string', priority));

/**
 * A column described by an API field's documentation, as printers.go takes it from
 * `SwaggerDoc()[field]` (schemas.ts holds that description). Throws when loaded if the schemas do
 * not describe `definition`.`field`, so the two cannot drift apart unnoticed.
 */
function documented(
  name: string,
  type: ColumnDefinition['type'],
  definition: string,
  field: string,
): ColumnDefinition {
  const description = DEFINITIONS.get(definition)?.properties?.[field]?.description;
  if (!description)
    throw new Error(`table column ${name}: schemas.ts does not describe ${definition}.${field}`);
  return column(name, type, 0, '', description);
}

const APPS = 'io.k8s.api.apps.v1.';

/** `translateTimestampSince`: `<unknown>` for a missing time. */
function since(timestamp: string | null | undefined, now: number): string {
  if (!timestamp) return '<unknown>';
  return humanDuration(now - Date.parse(timestamp));
}

const age = (object: KubeObject, now: number) => since(object.metadata.creationTimestamp, now);

function containersAndImages(
  template: { spec: { containers: { name: string; image: string }[] } } | undefined,
): [string, string] {
  const containers = template?.spec.containers ?? [];
  return [containers.map((c) => c.name).join(','), containers.map((c) => c.image).join(',')];
}

/** printPod: READY, STATUS (CrashLoopBackOff, ImagePullBackOff, Terminating, ...), RESTARTS "n (age ago)". */
function podCells(object: KubeObject, now: number): Cell[] {
  const pod = object as Pod;
  // podSummary reads timestamps through timeOf, so the wire JSON (string timestamps) works as is.
  const summary = podSummary(pod as unknown as KubePod);
  const restartsText =
    summary.lastRestartAt !== undefined
      ? `${summary.restarts} (${humanDuration(now - summary.lastRestartAt)} ago)`
      : String(summary.restarts);
  return [
    pod.metadata.name,
    `${summary.readyContainers}/${summary.totalContainers}`,
    summary.status,
    restartsText,
    age(pod, now),
    pod.status?.podIP ?? '<none>',
    pod.spec.nodeName ?? '<none>',
    '<none>',
    '<none>',
  ];
}

function deploymentCells(object: KubeObject, now: number): Cell[] {
  const deployment = object as Deployment;
  const status = deployment.status ?? {};
  const [containers, images] = containersAndImages(deployment.spec.template);
  return [
    deployment.metadata.name,
    `${status.readyReplicas ?? 0}/${deployment.spec.replicas ?? 1}`,
    status.updatedReplicas ?? 0,
    status.availableReplicas ?? 0,
    age(deployment, now),
    containers,
    images,
    formatLabelSelector(deployment.spec.selector),
  ];
}

function replicaSetCells(object: KubeObject, now: number): Cell[] {
  const rs = object as ReplicaSet;
  const [containers, images] = containersAndImages(rs.spec.template);
  return [
    rs.metadata.name,
    rs.spec.replicas ?? 1,
    rs.status?.replicas ?? 0,
    rs.status?.readyReplicas ?? 0,
    age(rs, now),
    containers,
    images,
    formatLabelSelector(rs.spec.selector),
  ];
}

/** printStatefulSet: READY is ready/desired. */
function statefulSetCells(object: KubeObject, now: number): Cell[] {
  const set = object as StatefulSet;
  const [containers, images] = containersAndImages(set.spec.template);
  return [
    set.metadata.name,
    `${set.status?.readyReplicas ?? 0}/${set.spec.replicas ?? 1}`,
    age(set, now),
    containers,
    images,
  ];
}

/** printDaemonSet. */
function daemonSetCells(object: KubeObject, now: number): Cell[] {
  const ds = object as DaemonSet;
  const status = ds.status;
  const [containers, images] = containersAndImages(ds.spec.template);
  const nodeSelector = ds.spec.template.spec['nodeSelector'] as Record<string, string> | undefined;
  const selectorText = Object.entries(nodeSelector ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]) => `${key}=${value}`)
    .join(',');
  return [
    ds.metadata.name,
    status?.desiredNumberScheduled ?? 0,
    status?.currentNumberScheduled ?? 0,
    status?.numberReady ?? 0,
    status?.updatedNumberScheduled ?? 0,
    status?.numberAvailable ?? 0,
    selectorText || '<none>',
    age(ds, now),
    containers,
    images,
    formatLabelSelector(ds.spec.selector),
  ];
}

/** printControllerRevision: CONTROLLER is `<kind>.<group>/<name>`, lower-cased. */
function controllerRevisionCells(object: KubeObject, now: number): Cell[] {
  const revision = object as ControllerRevision;
  const owner = revision.metadata.ownerReferences?.find((ref) => ref.controller);
  let controller = '<none>';
  if (owner) {
    const group = owner.apiVersion.includes('/') ? owner.apiVersion.split('/')[0] : '';
    controller = `${(group ? `${owner.kind}.${group}` : owner.kind).toLowerCase()}/${owner.name}`;
  }
  return [revision.metadata.name, controller, revision.revision, age(revision, now)];
}

const ACCESS_MODES: Record<string, string> = {
  ReadWriteOnce: 'RWO',
  ReadOnlyMany: 'ROX',
  ReadWriteMany: 'RWX',
  ReadWriteOncePod: 'RWOP',
};

/** printPersistentVolumeClaim. */
function claimCells(object: KubeObject, now: number): Cell[] {
  const claim = object as PersistentVolumeClaim;
  const bound = claim.spec.volumeName !== undefined;
  const modes = (claim.status?.accessModes ?? [])
    .map((mode) => ACCESS_MODES[mode])
    .filter(Boolean)
    .join(',');
  return [
    claim.metadata.name,
    claim.status?.phase ?? '',
    claim.spec.volumeName ?? '',
    bound ? (claim.status?.capacity?.['storage'] ?? '') : '',
    bound ? modes : '',
    claim.spec.storageClassName ?? '',
    (claim.spec['volumeAttributesClassName'] as string | undefined) ?? '<unset>',
    age(claim, now),
    claim.spec.volumeMode ?? '<unset>',
  ];
}

/** The core Event fields a row needs, read from a core or an events.k8s.io/v1 Event. */
function coreEventFields(object: KubeObject): CoreEvent {
  if (object.apiVersion !== 'events.k8s.io/v1') return object as CoreEvent;
  const v1 = object as EventsV1Event;
  return {
    ...v1,
    involvedObject: v1.regarding,
    message: v1.note,
    source: v1.deprecatedSource,
    ...(v1.deprecatedFirstTimestamp && { firstTimestamp: v1.deprecatedFirstTimestamp }),
    ...(v1.deprecatedLastTimestamp && { lastTimestamp: v1.deprecatedLastTimestamp }),
    count: v1.series?.count ?? v1.deprecatedCount,
    reportingComponent: v1.reportingController,
  };
}

function eventCells(object: KubeObject, now: number): Cell[] {
  const event = coreEventFields(object);
  const first = event.firstTimestamp ? since(event.firstTimestamp, now) : since(event.eventTime, now);
  const last = event.lastTimestamp ? since(event.lastTimestamp, now) : first;
  const involved = event.involvedObject;
  const target = involved.name
    ? `${involved.kind.toLowerCase()}/${involved.name}`
    : involved.kind.toLowerCase();
  const source = [event.source?.component, event.source?.host].filter(Boolean).join(', ');
  return [
    last,
    event.type,
    event.reason,
    target,
    involved.fieldPath ?? '',
    source,
    event.message.trim(),
    first,
    event.count || 1,
    event.metadata.name,
  ];
}

function serviceCells(object: KubeObject, now: number): Cell[] {
  const spec = (object['spec'] ?? {}) as Record<string, unknown>;
  const ports = ((spec['ports'] as Record<string, unknown>[] | undefined) ?? [])
    .map(
      (port) =>
        `${port['port']}${port['nodePort'] ? `:${port['nodePort']}` : ''}/${port['protocol'] ?? 'TCP'}`,
    )
    .join(',');
  const selector = spec['selector'] as Record<string, string> | undefined;
  return [
    object.metadata.name,
    String(spec['type'] ?? 'ClusterIP'),
    String(spec['clusterIP'] ?? '<none>'),
    '<none>',
    ports || '<none>',
    age(object, now),
    selector ? formatLabelSelector({ matchLabels: selector }) : '<none>',
  ];
}

function namespaceCells(object: KubeObject, now: number): Cell[] {
  const status = (object['status'] ?? {}) as Record<string, unknown>;
  return [object.metadata.name, String(status['phase'] ?? 'Active'), age(object, now)];
}

function nodeCells(object: KubeObject, now: number): Cell[] {
  const status = (object['status'] ?? {}) as {
    conditions?: { type: string; status: string }[];
    nodeInfo?: Record<string, string>;
    addresses?: { type: string; address: string }[];
  };
  const ready = status.conditions?.find((condition) => condition.type === 'Ready')?.status === 'True';
  const address = (type: string) =>
    status.addresses?.find((entry) => entry.type === type)?.address ?? '<none>';
  return [
    object.metadata.name,
    ready ? 'Ready' : 'NotReady',
    '<none>',
    age(object, now),
    status.nodeInfo?.['kubeletVersion'] ?? '',
    address('InternalIP'),
    address('ExternalIP'),
    status.nodeInfo?.['osImage'] ?? '<unknown>',
    status.nodeInfo?.['kernelVersion'] ?? '<unknown>',
    status.nodeInfo?.['containerRuntimeVersion'] ?? '<unknown>',
  ];
}

function hpaCells(object: KubeObject, now: number): Cell[] {
  const spec = (object['spec'] ?? {}) as {
    scaleTargetRef?: { kind: string; name: string };
    minReplicas?: number;
    maxReplicas?: number;
    metrics?: { resource?: { name: string; target?: { averageUtilization?: number } } }[];
  };
  const status = (object['status'] ?? {}) as {
    currentReplicas?: number;
    currentMetrics?: { resource?: { current?: { averageUtilization?: number } } }[];
  };
  const targets = (spec.metrics ?? [])
    .map((metric, index) => {
      const current = status.currentMetrics?.[index]?.resource?.current?.averageUtilization;
      const target = metric.resource?.target?.averageUtilization;
      return `${metric.resource?.name ?? 'metric'}: ${current === undefined ? '<unknown>' : `${current}%`}/${target ?? '<unknown>'}%`;
    })
    .join(', ');
  return [
    object.metadata.name,
    spec.scaleTargetRef ? `${spec.scaleTargetRef.kind}/${spec.scaleTargetRef.name}` : '<none>',
    targets || '<none>',
    spec.minReplicas ?? 1,
    spec.maxReplicas ?? 0,
    status.currentReplicas ?? 0,
    age(object, now),
  ];
}

const PRINTERS: Record<string, Printer> = {
  pods: {
    columns: [
      column('Name', 'string'),
      column('Ready', 'string', 0, '', 'The aggregate readiness state of this pod for accepting traffic.'),
      column('Status', 'string', 0, '', 'The aggregate status of the containers in this pod.'),
      column(
        'Restarts',
        'string',
        0,
        '',
        'The number of times the containers in this pod have been restarted and when the last container in this pod has restarted.',
      ),
      column('Age', 'string'),
      column('IP', 'string', 1),
      column('Node', 'string', 1),
      column('Nominated Node', 'string', 1),
      column('Readiness Gates', 'string', 1),
    ],
    cells: podCells,
  },
  deployments: {
    columns: [
      column('Name', 'string'),
      column('Ready', 'string', 0, '', 'Number of the pod with ready state'),
      documented('Up-to-date', 'integer', `${APPS}DeploymentStatus`, 'updatedReplicas'),
      documented('Available', 'integer', `${APPS}DeploymentStatus`, 'availableReplicas'),
      column('Age', 'string'),
      column('Containers', 'string', 1),
      column('Images', 'string', 1),
      column('Selector', 'string', 1),
    ],
    cells: deploymentCells,
  },
  replicasets: {
    columns: [
      column('Name', 'string'),
      column('Desired', 'integer', 0, '', 'Replicas is the number of desired replicas.'),
      column('Current', 'integer', 0, '', 'Replicas is the most recently observed number of replicas.'),
      column('Ready', 'integer', 0, '', 'The number of ready replicas for this replica set.'),
      column('Age', 'string'),
      column('Containers', 'string', 1),
      column('Images', 'string', 1),
      column('Selector', 'string', 1),
    ],
    cells: replicaSetCells,
  },
  statefulsets: {
    columns: [
      column('Name', 'string'),
      column('Ready', 'string', 0, '', 'Number of the pod with ready state'),
      column('Age', 'string'),
      column('Containers', 'string', 1),
      column('Images', 'string', 1),
    ],
    cells: statefulSetCells,
  },
  daemonsets: {
    columns: [
      column('Name', 'string'),
      column('Desired', 'integer', 0, '', 'The total number of nodes that should be running the daemon pod.'),
      documented('Current', 'integer', `${APPS}DaemonSetStatus`, 'currentNumberScheduled'),
      documented('Ready', 'integer', `${APPS}DaemonSetStatus`, 'numberReady'),
      documented('Up-to-date', 'integer', `${APPS}DaemonSetStatus`, 'updatedNumberScheduled'),
      documented('Available', 'integer', `${APPS}DaemonSetStatus`, 'numberAvailable'),
      documented('Node Selector', 'string', 'io.k8s.api.core.v1.PodSpec', 'nodeSelector'),
      column('Age', 'string'),
      column('Containers', 'string', 1),
      column('Images', 'string', 1),
      column('Selector', 'string', 1),
    ],
    cells: daemonSetCells,
  },
  controllerrevisions: {
    columns: [
      column('Name', 'string'),
      column('Controller', 'string', 0, '', 'Controller of the object'),
      documented('Revision', 'integer', `${APPS}ControllerRevision`, 'revision'),
      column('Age', 'string'),
    ],
    cells: controllerRevisionCells,
  },
  persistentvolumeclaims: {
    columns: [
      column('Name', 'string'),
      column('Status', 'string'),
      column('Volume', 'string'),
      column('Capacity', 'string'),
      column('Access Modes', 'string'),
      column('StorageClass', 'string'),
      column('VolumeAttributesClass', 'string'),
      column('Age', 'string'),
      column('VolumeMode', 'string', 1),
    ],
    cells: claimCells,
  },
  events: {
    columns: [
      ...stringColumns(0, 'Last Seen', 'Type', 'Reason', 'Object'),
      ...stringColumns(1, 'Subobject', 'Source'),
      column('Message', 'string'),
      column('First Seen', 'string', 1),
      column('Count', 'integer', 1),
      column('Name', 'string', 1),
    ],
    cells: eventCells,
  },
  services: {
    columns: [
      ...stringColumns(0, 'Name', 'Type', 'Cluster-IP', 'External-IP', 'Port(s)', 'Age'),
      column('Selector', 'string', 1),
    ],
    cells: serviceCells,
  },
  namespaces: {
    columns: [column('Name', 'string'), column('Status', 'string'), column('Age', 'string')],
    cells: namespaceCells,
  },
  nodes: {
    columns: [
      ...stringColumns(0, 'Name', 'Status', 'Roles', 'Age', 'Version'),
      ...stringColumns(1, 'Internal-IP', 'External-IP', 'OS-Image', 'Kernel-Version', 'Container-Runtime'),
    ],
    cells: nodeCells,
  },
  horizontalpodautoscalers: {
    columns: [
      column('Name', 'string'),
      column('Reference', 'string'),
      column('Targets', 'string'),
      column('MinPods', 'integer'),
      column('MaxPods', 'integer'),
      column('Replicas', 'integer'),
      column('Age', 'string'),
    ],
    cells: hpaCells,
  },
};

/** The default convertor's columns for types without a printer. */
const DEFAULT_PRINTER: Printer = {
  columns: [column('Name', 'string'), column('Created At', 'date', 0, 'date-time')],
  cells: (object) => [object.metadata.name, object.metadata.creationTimestamp ?? ''],
};

export type IncludeObject = 'None' | 'Metadata' | 'Object';

/** What the Accept header asked for: a Table (which version), or plain JSON. */
export function tableVersionRequested(accept: string | undefined): 'v1' | 'v1beta1' | undefined {
  for (const part of (accept ?? '').split(',')) {
    const params = new Map(
      part
        .split(';')
        .slice(1)
        .map((param) => param.trim().split('=') as [string, string]),
    );
    if (params.get('as') === 'Table' && params.get('g') === 'meta.k8s.io') {
      const version = params.get('v');
      if (version === 'v1' || version === 'v1beta1') return version;
    }
  }
  return undefined;
}

/** One object as a Table row (`includeObject` as in the `includeObject` query parameter). */
function row(
  type: ResourceType,
  object: KubeObject,
  now: number,
  include: IncludeObject,
  tableVersion: string,
) {
  const printer = PRINTERS[type.plural] ?? DEFAULT_PRINTER;
  const rowObject =
    include === 'None'
      ? undefined
      : include === 'Object'
        ? object
        : {
            kind: 'PartialObjectMetadata',
            apiVersion: `meta.k8s.io/${tableVersion}`,
            metadata: object.metadata,
          };
  return { cells: printer.cells(object, now), ...(rowObject && { object: rowObject }) };
}

/** A Table of `objects` (already in the requested API's shape). */
export function toTable(
  type: ResourceType,
  objects: KubeObject[],
  now: number,
  options: {
    include: IncludeObject;
    version: 'v1' | 'v1beta1';
    resourceVersion: string;
    continueToken?: string;
    remainingItemCount?: number;
  },
) {
  const printer = PRINTERS[type.plural] ?? DEFAULT_PRINTER;
  return {
    kind: 'Table',
    apiVersion: `meta.k8s.io/${options.version}`,
    metadata: {
      resourceVersion: options.resourceVersion,
      ...(options.continueToken && { continue: options.continueToken }),
      ...(options.remainingItemCount !== undefined && { remainingItemCount: options.remainingItemCount }),
    },
    columnDefinitions: printer.columns,
    rows: objects.map((object) => row(type, object, now, options.include, options.version)),
  };
}
