/**
 * The Kubernetes layer's calls for StatefulSets, DaemonSets, their ControllerRevisions and single
 * Pods (issue 15), kept apart from the Deployment calls in `client.ts` so each can change alone.
 *
 * Every StatefulSet, DaemonSet and ControllerRevision is read as the API server sent it (`AsSent`,
 * every field kept): a rollback sends a revision's `data` back, and a restart or scale sends part of
 * what was read, so no field the client library does not model may be lost. `createKubeClient`
 * spreads `workloadReaderMethods` / `workloadWriterMethods` into its reader and writer;
 * `sanitizingReader` / `sanitizingWriter` spread the `sanitizingWorkload…` wrappers.
 */
import type {
  V1ControllerRevision,
  V1DaemonSet,
  V1Pod,
  V1Scale,
  V1StatefulSet,
} from '@kubernetes/client-node';
import type { PatchStrategy } from '@kubernetes/client-node';
import type { KubeOperation } from './operations.ts';
import { sanitizedCopy, sanitizeFromCluster } from './sanitize.ts';
import type { AsSent, JsonObject, ListOptions, WriteOptions } from './types.ts';

export type {
  V1StatefulSet as StatefulSet,
  V1DaemonSet as DaemonSet,
  V1ControllerRevision as ControllerRevision,
} from '@kubernetes/client-node';

/** Options of `deletePod`, mirroring `DeleteOptions`. */
export interface DeletePodOptions extends WriteOptions {
  /** Seconds the kubelet waits between SIGTERM and SIGKILL; absent: the Pod's own `terminationGracePeriodSeconds`. */
  gracePeriodSeconds?: number;
  /** Precondition: delete only the Pod with this UID (a Pod recreated under the same name is another Pod). */
  uid?: string;
}

/** Reads of StatefulSets, DaemonSets and ControllerRevisions; each object as the API server sent it. */
export interface WorkloadReader {
  getStatefulSet(namespace: string, name: string): Promise<AsSent<V1StatefulSet>>;
  listStatefulSets(namespace: string, options?: ListOptions): Promise<AsSent<V1StatefulSet>[]>;
  getDaemonSet(namespace: string, name: string): Promise<AsSent<V1DaemonSet>>;
  listDaemonSets(namespace: string, options?: ListOptions): Promise<AsSent<V1DaemonSet>[]>;
  /** `apps/v1` ControllerRevisions (the revision history of StatefulSets and DaemonSets). */
  listControllerRevisions(namespace: string, options?: ListOptions): Promise<AsSent<V1ControllerRevision>[]>;
}

/** Writes to StatefulSets and DaemonSets, and the deletion of one Pod. Sent at most once. */
export interface WorkloadWriter {
  /** `PATCH` with `application/strategic-merge-patch+json` (`kubectl rollout undo|restart sts/<name>`). */
  patchStatefulSetStrategic(
    namespace: string,
    name: string,
    patch: JsonObject,
    options: WriteOptions,
  ): Promise<V1StatefulSet>;
  /** `PATCH statefulsets/{name}/scale` with a merge patch of `spec.replicas` (`kubectl scale sts/<name>`). */
  patchStatefulSetScale(
    namespace: string,
    name: string,
    patch: JsonObject,
    options: WriteOptions,
  ): Promise<V1Scale>;
  /** `PATCH` with `application/strategic-merge-patch+json` (`kubectl rollout undo|restart ds/<name>`). */
  patchDaemonSetStrategic(
    namespace: string,
    name: string,
    patch: JsonObject,
    options: WriteOptions,
  ): Promise<V1DaemonSet>;
  /** `DELETE pods/{name}` (`kubectl delete pod <name> [--grace-period=N]`); returns the Pod as deleted. */
  deletePod(namespace: string, name: string, options: DeletePodOptions): Promise<V1Pod>;
}

const apps = (resource: string, kind: string, verb: KubeOperation['verb']): KubeOperation => ({
  verb,
  group: 'apps',
  resource,
  kind,
});

/** What each `WorkloadReader` method calls (spread into `READER_OPERATIONS`). */
export const WORKLOAD_READER_OPERATIONS = {
  getStatefulSet: apps('statefulsets', 'StatefulSet', 'get'),
  listStatefulSets: apps('statefulsets', 'StatefulSet', 'list'),
  getDaemonSet: apps('daemonsets', 'DaemonSet', 'get'),
  listDaemonSets: apps('daemonsets', 'DaemonSet', 'list'),
  listControllerRevisions: apps('controllerrevisions', 'ControllerRevision', 'list'),
} as const satisfies Record<keyof WorkloadReader, KubeOperation>;

/** What each `WorkloadWriter` method calls (spread into `WRITER_OPERATIONS`). */
export const WORKLOAD_WRITER_OPERATIONS = {
  patchStatefulSetStrategic: apps('statefulsets', 'StatefulSet', 'patch'),
  patchStatefulSetScale: apps('statefulsets/scale', 'StatefulSet', 'patch'),
  patchDaemonSetStrategic: apps('daemonsets', 'DaemonSet', 'patch'),
  deletePod: { verb: 'delete', group: '', resource: 'pods', kind: 'Pod' },
} as const satisfies Record<keyof WorkloadWriter, KubeOperation>;

/** The helpers of `createKubeClient` the workload methods are built from. */
export interface WorkloadClientParts {
  /** `GET` one object as the API server sent it (retried, cancellable). */
  get<T>(operation: KubeOperation, namespace?: string, name?: string): Promise<T>;
  /** Every item of a list as sent, every page. */
  list<T>(operation: KubeOperation, namespace: string, options: ListOptions | undefined): Promise<T[]>;
  /** A `PATCH` with the given Content-Type: sent once, errors mapped. */
  patch<T>(
    operation: KubeOperation,
    namespace: string,
    name: string,
    body: unknown,
    contentType: string,
    fieldManager: string,
  ): Promise<T>;
  /** A `DELETE` with a `DeleteOptions` body: sent once, errors mapped. */
  remove<T>(
    operation: KubeOperation,
    namespace: string,
    name: string,
    body: unknown,
    query?: Record<string, string | number | boolean | undefined>,
  ): Promise<T>;
}

/**
 * client-node's `PatchStrategy` Content-Types, typed by the library's own union (so a change there
 * fails typecheck). Literal here so that this module, which the tools import through
 * tools/kube/index.ts, loads without the library (it is loaded on the first connection: connect.ts).
 */
const MERGE_PATCH = 'application/merge-patch+json' satisfies PatchStrategy;
const STRATEGIC_MERGE_PATCH = 'application/strategic-merge-patch+json' satisfies PatchStrategy;

/**
 * A writer method that sends `operation` as one `PATCH` with Content-Type `contentType` (a
 * `PatchStrategy`) under the call's field manager, through `parts.patch` (sent once, errors mapped);
 * it resolves to the object the API server answers with.
 */
export function patchMethod(
  parts: Pick<WorkloadClientParts, 'patch'>,
  operation: KubeOperation,
  contentType: string,
): <T>(namespace: string, name: string, body: unknown, options: WriteOptions) => Promise<T> {
  return (namespace, name, body, { fieldManager }) =>
    parts.patch(operation, namespace, name, body, contentType, fieldManager);
}

/** The `WorkloadReader` methods over `createKubeClient`'s helpers. */
export function workloadReaderMethods(parts: WorkloadClientParts): WorkloadReader {
  const { get, list } = parts;
  const ops = WORKLOAD_READER_OPERATIONS;
  return {
    getStatefulSet: (namespace, name) => get<AsSent<V1StatefulSet>>(ops.getStatefulSet, namespace, name),
    listStatefulSets: (namespace, o) => list<AsSent<V1StatefulSet>>(ops.listStatefulSets, namespace, o),
    getDaemonSet: (namespace, name) => get<AsSent<V1DaemonSet>>(ops.getDaemonSet, namespace, name),
    listDaemonSets: (namespace, o) => list<AsSent<V1DaemonSet>>(ops.listDaemonSets, namespace, o),
    listControllerRevisions: (namespace, o) =>
      list<AsSent<V1ControllerRevision>>(ops.listControllerRevisions, namespace, o),
  };
}

/** The `WorkloadWriter` methods over `createKubeClient`'s helpers. */
export function workloadWriterMethods(parts: WorkloadClientParts): WorkloadWriter {
  const { remove } = parts;
  const ops = WORKLOAD_WRITER_OPERATIONS;
  return {
    patchStatefulSetStrategic: patchMethod(parts, ops.patchStatefulSetStrategic, STRATEGIC_MERGE_PATCH),
    patchStatefulSetScale: patchMethod(parts, ops.patchStatefulSetScale, MERGE_PATCH),
    patchDaemonSetStrategic: patchMethod(parts, ops.patchDaemonSetStrategic, STRATEGIC_MERGE_PATCH),
    // kubectl sends the grace period both as a query parameter and in the DeleteOptions body.
    deletePod: (namespace, name, { gracePeriodSeconds, uid }) =>
      remove(
        ops.deletePod,
        namespace,
        name,
        {
          ...(gracePeriodSeconds !== undefined && { gracePeriodSeconds }),
          ...(uid !== undefined && { preconditions: { uid } }),
        },
        { gracePeriodSeconds },
      ),
  };
}

/** `reader`'s workload methods with every result a `sanitizedCopy` (`unsanitized` gives what was sent). */
export function sanitizingWorkloadReader(reader: WorkloadReader): WorkloadReader {
  return {
    getStatefulSet: async (namespace, name) => sanitizedCopy(await reader.getStatefulSet(namespace, name)),
    listStatefulSets: async (namespace, options) =>
      (await reader.listStatefulSets(namespace, options)).map((item) => sanitizedCopy(item)),
    getDaemonSet: async (namespace, name) => sanitizedCopy(await reader.getDaemonSet(namespace, name)),
    listDaemonSets: async (namespace, options) =>
      (await reader.listDaemonSets(namespace, options)).map((item) => sanitizedCopy(item)),
    listControllerRevisions: async (namespace, options) =>
      (await reader.listControllerRevisions(namespace, options)).map((item) => sanitizedCopy(item)),
  };
}

/** `writer`'s workload methods with the objects the API server answers with sanitized. */
export function sanitizingWorkloadWriter(writer: WorkloadWriter): WorkloadWriter {
  const clean = sanitizeFromCluster;
  return {
    patchStatefulSetStrategic: async (namespace, name, patch, options) =>
      clean(await writer.patchStatefulSetStrategic(namespace, name, patch, options)),
    patchStatefulSetScale: async (namespace, name, patch, options) =>
      clean(await writer.patchStatefulSetScale(namespace, name, patch, options)),
    patchDaemonSetStrategic: async (namespace, name, patch, options) =>
      clean(await writer.patchDaemonSetStrategic(namespace, name, patch, options)),
    deletePod: async (namespace, name, options) => clean(await writer.deletePod(namespace, name, options)),
  };
}
