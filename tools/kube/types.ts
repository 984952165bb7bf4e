/**
 * The contract of Sentinel's Kubernetes layer: methods in Kubernetes terms, object types re-exported
 * from `@kubernetes/client-node` so that nothing outside `tools/kube/` imports it.
 *
 * Reads and writes are separate interfaces on purpose: read tools and every `dry_run` call receive
 * only a `KubeReader` (an object that has no mutating methods at all), so a preview cannot change
 * the cluster whatever its code does.
 *
 * Every method throws `SentinelError` (tools/errors.ts) with a code and the resource named:
 * `not_found`, `forbidden` (verb and resource the role lacks), `unauthorized`, `conflict` (409),
 * `invalid_input` (400/422 from the API server), `timeout`, `unavailable` (cluster unreachable or not
 * configured).
 */
export type {
  V1Deployment as Deployment,
  V1ReplicaSet as ReplicaSet,
  V1Pod as Pod,
  V1Service as Service,
  V1Namespace as Namespace,
  CoreV1Event as CoreEvent,
  EventsV1Event as EventsEvent,
  V2HorizontalPodAutoscaler as HorizontalPodAutoscaler,
  V1Scale as Scale,
  V1PodTemplateSpec as PodTemplateSpec,
  V1Container as Container,
  V1OwnerReference as OwnerReference,
  V1ObjectMeta as ObjectMeta,
  VersionInfo,
  PodMetric as PodMetrics,
} from '@kubernetes/client-node';
export type { StatefulSet, DaemonSet, ControllerRevision, DeletePodOptions } from './workloads.ts';

import type {
  V1Deployment,
  V1ReplicaSet,
  V1Pod,
  V1Service,
  V1Namespace,
  CoreV1Event,
  EventsV1Event,
  V2HorizontalPodAutoscaler,
  V1Scale,
  VersionInfo,
  PodMetric,
} from '@kubernetes/client-node';
import type { ClusterIdentity } from '../define-tool.ts';
import type { WorkloadReader, WorkloadWriter } from './workloads.ts';
import type { ReadCache } from './read-cache.ts';

/** Options of a list call. All pages are fetched (following `continue`); one call = one list operation. */
export interface ListOptions {
  /** Kubernetes label selector, e.g. `app=checkout,tier!=cache`. */
  labelSelector?: string;
  /** Kubernetes field selector, e.g. `involvedObject.name=checkout`. */
  fieldSelector?: string;
  /** Page size sent as `limit` (default 500). */
  pageSize?: number;
}

/** Options of `readPodLog`, mirroring the `pods/log` query parameters. */
export interface PodLogOptions {
  container?: string;
  /** Logs of the previous (terminated) instance of the container. */
  previous?: boolean;
  tailLines?: number;
  sinceSeconds?: number;
  /** Upper bound on bytes the API server returns. */
  limitBytes?: number;
}

/** One RFC 6902 JSON Patch operation. */
export interface JsonPatchOperation {
  op: 'add' | 'remove' | 'replace' | 'test' | 'move' | 'copy';
  path: string;
  value?: unknown;
  from?: string;
}

/** A JSON object, as parsed from an API response body. */
export type JsonObject = Record<string, unknown>;

/**
 * An object exactly as the API server sent it: the parsed response body, every field kept —
 * including fields `@kubernetes/client-node`'s models do not declare (newer or alpha API fields),
 * which the typed reads drop. Typed as the model for the fields Sentinel reads, except that
 * timestamps are RFC 3339 strings here, not `Date`s (read them with `timeOf`). Anything written back
 * to the cluster that carries a read object (a rollback's pod template) is built from one of these,
 * so the write cannot silently remove a field.
 */
export type AsSent<T> = T & JsonObject;

/** Read-only access to one cluster. */
export interface KubeReader extends WorkloadReader {
  /** The cluster this client talks to (kubeconfig context and API server URL). */
  readonly cluster: ClusterIdentity;
  /** `GET /version`. */
  getVersion(): Promise<VersionInfo>;
  /** `GET /api/v1/namespaces` (cluster-scoped: needs a ClusterRole), as `kubectl get namespaces`. */
  listNamespaces(options?: ListOptions): Promise<V1Namespace[]>;
  getDeployment(namespace: string, name: string): Promise<V1Deployment>;
  listDeployments(namespace: string, options?: ListOptions): Promise<V1Deployment[]>;
  listReplicaSets(namespace: string, options?: ListOptions): Promise<V1ReplicaSet[]>;
  /** `getDeployment`, as the API server sent it (every field kept, timestamps as strings). */
  getDeploymentAsSent(namespace: string, name: string): Promise<AsSent<V1Deployment>>;
  /** `listReplicaSets`, each item as the API server sent it (every field kept, timestamps as strings). */
  listReplicaSetsAsSent(namespace: string, options?: ListOptions): Promise<AsSent<V1ReplicaSet>[]>;
  getPod(namespace: string, name: string): Promise<V1Pod>;
  listPods(namespace: string, options?: ListOptions): Promise<V1Pod[]>;
  /** `GET pods/{name}/log` as text. */
  readPodLog(namespace: string, name: string, options?: PodLogOptions): Promise<string>;
  getService(namespace: string, name: string): Promise<V1Service>;
  listServices(namespace: string, options?: ListOptions): Promise<V1Service[]>;
  /** Core `v1` events. */
  listEvents(namespace: string, options?: ListOptions): Promise<CoreV1Event[]>;
  /** `events.k8s.io/v1` events. */
  listEventsV1(namespace: string, options?: ListOptions): Promise<EventsV1Event[]>;
  /** `autoscaling/v2` HorizontalPodAutoscalers. */
  listHorizontalPodAutoscalers(
    namespace: string,
    options?: ListOptions,
  ): Promise<V2HorizontalPodAutoscaler[]>;
  /**
   * `metrics.k8s.io/v1beta1` PodMetrics (what `kubectl top pod` reads; served by metrics-server as
   * an aggregated API). Throws `not_found` when the cluster does not serve the group.
   */
  listPodMetrics(namespace: string, options?: ListOptions): Promise<PodMetric[]>;
}

/** Options every write carries. */
export interface WriteOptions {
  /** Server-side field manager; always `sentinel` in production. */
  fieldManager: string;
}

/**
 * Mutating access. Only write/destructive tools executing a real (non-dry-run) call receive one.
 * No retries on writes: a write is sent at most once per call.
 */
export interface KubeWriter extends WorkloadWriter {
  /** `PATCH` with `application/json-patch+json` (what `kubectl rollout undo` sends). */
  patchDeploymentJson(
    namespace: string,
    name: string,
    operations: JsonPatchOperation[],
    options: WriteOptions,
  ): Promise<V1Deployment>;
  /** `PATCH` with `application/strategic-merge-patch+json` (what `kubectl rollout restart|pause|resume` send). */
  patchDeploymentStrategic(
    namespace: string,
    name: string,
    patch: Record<string, unknown>,
    options: WriteOptions,
  ): Promise<V1Deployment>;
  /** `PATCH deployments/{name}/scale` with a merge patch of `spec.replicas` (what `kubectl scale` sends). */
  patchDeploymentScale(
    namespace: string,
    name: string,
    patch: Record<string, unknown>,
    options: WriteOptions,
  ): Promise<V1Scale>;
}

/** Result of connecting to a cluster from kubeconfig / in-cluster config. */
export type KubeConnection =
  | {
      configured: true;
      cluster: ClusterIdentity;
      /** Every read asks the API server: the gate, previews, remediation and reconciliation read here. */
      reader: KubeReader;
      writer: KubeWriter;
      /**
       * With `--read-cache watch`: Deployments, ReplicaSets, Pods and HorizontalPodAutoscalers answered from a watch-backed
       * cache when it is synced (./read-cache.ts); for `read` tools only.
       */
      cachedReader?: KubeReader;
      /** The read cache behind `cachedReader` (stats; tests wait on it). */
      readCache?: ReadCache;
      /** Stops the read cache's watches and closes the connections (server shutdown). */
      close?: () => Promise<void>;
      /** Where the configuration came from, e.g. `kubeconfig '/home/me/.kube/config'` or `the in-cluster service account`. */
      source?: string;
    }
  | {
      configured: false;
      /** Why no cluster is configured and how to configure one (shown by /healthz and every tool). */
      reason: string;
    };
