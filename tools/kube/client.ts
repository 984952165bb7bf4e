/**
 * The Kubernetes client: `KubeReader` and `KubeWriter` over `@kubernetes/client-node` 2.
 *
 * Every request has a timeout (default 10 s). Reads are retried with exponential backoff (p-retry)
 * on 429, 5xx and connection resets, waiting at least what the server's `Retry-After` asks; writes
 * are sent at most once. Lists follow `continue` until the last page. Failures become
 * `SentinelError`s naming the resource and the cause (./errors.ts). Every result is sanitized
 * (./sanitize.ts) before it is returned.
 */
import {
  AppsV1Api,
  AutoscalingV2Api,
  CoreV1Api,
  EventsV1Api,
  type V1Deployment,
  type V1ReplicaSet,
  Observable,
  PatchStrategy,
  ResponseContext,
  VersionApi,
  type ConfigurationOptions,
  type KubeConfig,
  type ObservableMiddleware,
  type RequestContext,
} from '@kubernetes/client-node';
import pRetry from 'p-retry';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClusterIdentity } from '../define-tool.ts';
import { SentinelError } from '../errors.ts';
import { currentCallSignal } from './cancellation.ts';
import { sanitizingReader, sanitizingWriter } from './sanitize.ts';
import { KubeApiError, toKubeError, type KubeCallSubject } from './errors.ts';
import {
  describeOperation,
  READER_OPERATIONS,
  WRITER_OPERATIONS,
  type KubeNonResourceOperation,
  type KubeOperation,
} from './operations.ts';
import type { AsSent, JsonObject, KubeReader, KubeWriter, ListOptions } from './types.ts';
import { workloadReaderMethods, workloadWriterMethods, type WorkloadClientParts } from './workloads.ts';

/** Bounded retries for reads. */
export interface RetryPolicy {
  /** Retries after the first attempt (default 3). */
  retries: number;
  /** Delay before the first retry in ms (default 200); doubles each retry, randomised ×1–2. */
  minDelayMs: number;
  /** Longest backoff delay in ms (default 2000). */
  maxDelayMs: number;
  /** Longest `Retry-After` honoured in ms (default 10 000); a longer one is cut to this. */
  maxRetryAfterMs: number;
}

/** Reads: 3 retries, 200 ms doubling (randomised) up to 2 s, Retry-After honoured up to 10 s. */
export const DEFAULT_RETRY_POLICY: RetryPolicy = {
  retries: 3,
  minDelayMs: 200,
  maxDelayMs: 2000,
  maxRetryAfterMs: 10_000,
};

/** Timeout of each API request (each page, each retry) in ms. */
export const DEFAULT_REQUEST_TIMEOUT_MS = 10_000;
/** Page size of list calls (`limit`). */
export const DEFAULT_PAGE_SIZE = 500;

export interface KubeClientOptions {
  cluster: ClusterIdentity;
  /** Per-request timeout in ms (each page of a list and each retry get their own). */
  requestTimeoutMs: number;
  retry: RetryPolicy;
}

/** A page of a Kubernetes list response. */
interface ListPage<T> {
  items: T[];
  metadata?: { _continue?: string };
}

/** Builds the reader and writer for one kubeconfig context. */
export function createKubeClient(
  kubeConfig: KubeConfig,
  options: KubeClientOptions,
): { reader: KubeReader; writer: KubeWriter } {
  const core = kubeConfig.makeApiClient(CoreV1Api);
  const apps = kubeConfig.makeApiClient(AppsV1Api);
  const eventsV1 = kubeConfig.makeApiClient(EventsV1Api);
  const autoscaling = kubeConfig.makeApiClient(AutoscalingV2Api);
  const version = kubeConfig.makeApiClient(VersionApi);
  const { cluster, requestTimeoutMs } = options;

  /**
   * Per-request options: a fresh timeout signal (for a read, joined with the tool call's
   * cancellation), plus an extra header when given. With `onBody`,
   * the body of a successful response is handed to it as text before the generated client parses
   * it into a model (which drops undeclared fields), and replayed to that parser unchanged.
   */
  const requestOptions = (
    request: { header?: [string, string]; onBody?: (body: string) => void; write?: boolean } = {},
  ): ConfigurationOptions => {
    const { header, onBody } = request;
    // Captured now, inside the tool call's async context; writes are never aborted.
    const caller = request.write ? undefined : currentCallSignal();
    const middleware: ObservableMiddleware = {
      pre: (request: RequestContext) => {
        const timeout = AbortSignal.timeout(requestTimeoutMs);
        request.setSignal(caller ? AbortSignal.any([timeout, caller]) : timeout);
        if (header) request.setHeaderParam(header[0], header[1]);
        return new Observable(Promise.resolve(request));
      },
      post: (response) => {
        if (!onBody || response.httpStatusCode < 200 || response.httpStatusCode > 299) {
          return new Observable(Promise.resolve(response));
        }
        return new Observable(
          response.body.text().then((text) => {
            onBody(text);
            return new ResponseContext(response.httpStatusCode, response.headers, {
              text: () => Promise.resolve(text),
              binary: () => Promise.resolve(Buffer.from(text)),
              stream: () => null,
            });
          }),
        );
      },
    };
    return { middleware: [middleware], middlewareMergeStrategy: 'append' };
  };

  /**
   * Sends `call` (a typed client-node read, given the options to use) and returns the response body
   * as sent, parsed as JSON. The typed result only proves the body parsed; it is discarded.
   */
  const sent = async (
    operation: KubeOperation,
    subject: KubeCallSubject,
    call: (options: ConfigurationOptions) => Promise<unknown>,
  ): Promise<JsonObject> => {
    let body: string | undefined;
    const options = requestOptions({ onBody: (text) => (body = text) });
    await read(operation, subject, () => call(options));
    const parsed: unknown = body === undefined ? undefined : JSON.parse(body);
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      throw new SentinelError(
        'unavailable',
        `The API server at ${cluster.server} answered ${operation.verb} ${operation.resource} with a body that is not a JSON object.`,
        { kind: operation.kind, ...subject },
      );
    }
    return parsed as JsonObject;
  };

  const callOnce = async <T>(
    operation: KubeOperation | KubeNonResourceOperation,
    subject: KubeCallSubject,
    call: () => Promise<T>,
    caller?: AbortSignal,
  ): Promise<T> => {
    if (caller?.aborted) throw cancelledError(operation, subject, false);
    try {
      return await call();
    } catch (error) {
      if (caller?.aborted) throw cancelledError(operation, subject, true, error);
      throw toKubeError(error, { operation, subject, cluster, requestTimeoutMs });
    }
  };

  /** `cancelled`: the MCP request behind the tool call was cancelled. */
  const cancelledError = (
    operation: KubeOperation | KubeNonResourceOperation,
    subject: KubeCallSubject,
    inFlight: boolean,
    cause?: unknown,
  ) =>
    new KubeApiError(
      'cancelled',
      `The request was cancelled, so ${describeOperation(operation)}${subject.name ? ` of '${subject.name}'` : ''}${subject.namespace ? ` in namespace '${subject.namespace}'` : ''} was ${inFlight ? 'abandoned' : 'not sent'}.`,
      { cause, namespace: subject.namespace, name: subject.name },
    );

  /** A read: aborted with the tool call's cancellation (`currentCallSignal`), retried as `withReadRetries` says. */
  const read = <T>(
    operation: KubeOperation | KubeNonResourceOperation,
    subject: KubeCallSubject,
    call: () => Promise<T>,
  ): Promise<T> => {
    const caller = currentCallSignal();
    return withReadRetries(() => callOnce(operation, subject, call, caller), options.retry, caller).catch(
      (error: unknown) => {
        // Cancelled while waiting between retries: p-retry rejects with the signal's reason.
        throw caller?.aborted && !(error instanceof SentinelError)
          ? cancelledError(operation, subject, true, error)
          : error;
      },
    );
  };

  const list = async <T>(
    operation: KubeOperation,
    namespace: string,
    listOptions: ListOptions | undefined,
    fetchPage: (query: ListQuery, options: ConfigurationOptions) => Promise<ListPage<T>>,
  ): Promise<T[]> => {
    const items: T[] = [];
    let next: string | undefined;
    do {
      const page = await read(operation, { namespace }, () =>
        fetchPage(listQuery(namespace, listOptions, next), requestOptions()),
      );
      items.push(...page.items);
      next = page.metadata?._continue || undefined;
    } while (next);
    return items;
  };

  /** `list`, with every item as the API server sent it. */
  const listAsSent = async <T>(
    operation: KubeOperation,
    namespace: string,
    listOptions: ListOptions | undefined,
    fetchPage: (query: ListQuery, options: ConfigurationOptions) => Promise<unknown>,
  ): Promise<AsSent<T>[]> => {
    const items: AsSent<T>[] = [];
    let next: string | undefined;
    do {
      const page = (await sent(operation, { namespace }, (options) =>
        fetchPage(listQuery(namespace, listOptions, next), options),
      )) as { items?: unknown; metadata?: { continue?: unknown } };
      if (!Array.isArray(page.items)) {
        throw new SentinelError(
          'unavailable',
          `The API server at ${cluster.server} answered list ${operation.resource} in namespace '${namespace}' without an items array.`,
          { kind: operation.kind, namespace },
        );
      }
      items.push(...(page.items as AsSent<T>[]));
      next =
        typeof page.metadata?.continue === 'string' && page.metadata.continue
          ? page.metadata.continue
          : undefined;
    } while (next);
    return items;
  };

  // StatefulSets, DaemonSets, ControllerRevisions, Pod deletion (./workloads.ts).
  const workloadParts: WorkloadClientParts = {
    apps,
    core,
    sent,
    listAsSent,
    callOnce: (operation, subject, call) => callOnce(operation, subject, call),
    writeOptions: (contentType) => requestOptions({ header: ['Content-Type', contentType], write: true }),
  };

  const ops = READER_OPERATIONS;
  const reader: KubeReader = {
    cluster,
    getVersion: () => read(ops.getVersion, {}, () => version.getCode({}, requestOptions())),
    getDeployment: (namespace, name) =>
      read(ops.getDeployment, { namespace, name }, () =>
        apps.readNamespacedDeployment({ namespace, name }, requestOptions()),
      ),
    listDeployments: (namespace, o) =>
      list(ops.listDeployments, namespace, o, (q, r) => apps.listNamespacedDeployment(q, r)),
    listReplicaSets: (namespace, o) =>
      list(ops.listReplicaSets, namespace, o, (q, r) => apps.listNamespacedReplicaSet(q, r)),
    getDeploymentAsSent: async (namespace, name) =>
      (await sent(ops.getDeploymentAsSent, { namespace, name }, (r) =>
        apps.readNamespacedDeployment({ namespace, name }, r),
      )) as AsSent<V1Deployment>,
    listReplicaSetsAsSent: (namespace, o) =>
      listAsSent<V1ReplicaSet>(ops.listReplicaSetsAsSent, namespace, o, (q, r) =>
        apps.listNamespacedReplicaSet(q, r),
      ),
    getPod: (namespace, name) =>
      read(ops.getPod, { namespace, name }, () =>
        core.readNamespacedPod({ namespace, name }, requestOptions()),
      ),
    listPods: (namespace, o) => list(ops.listPods, namespace, o, (q, r) => core.listNamespacedPod(q, r)),
    readPodLog: (namespace, name, o = {}) =>
      read(ops.readPodLog, { namespace, name }, () =>
        core.readNamespacedPodLog(
          {
            namespace,
            name,
            container: o.container,
            previous: o.previous || undefined,
            tailLines: o.tailLines,
            sinceSeconds: o.sinceSeconds,
            limitBytes: o.limitBytes,
          },
          requestOptions(),
        ),
      ),
    getService: (namespace, name) =>
      read(ops.getService, { namespace, name }, () =>
        core.readNamespacedService({ namespace, name }, requestOptions()),
      ),
    listServices: (namespace, o) =>
      list(ops.listServices, namespace, o, (q, r) => core.listNamespacedService(q, r)),
    listEvents: (namespace, o) =>
      list(ops.listEvents, namespace, o, (q, r) => core.listNamespacedEvent(q, r)),
    listEventsV1: (namespace, o) =>
      list(ops.listEventsV1, namespace, o, (q, r) => eventsV1.listNamespacedEvent(q, r)),
    listHorizontalPodAutoscalers: (namespace, o) =>
      list(ops.listHorizontalPodAutoscalers, namespace, o, (q, r) =>
        autoscaling.listNamespacedHorizontalPodAutoscaler(q, r),
      ),
    ...workloadReaderMethods(workloadParts),
  };

  const wops = WRITER_OPERATIONS;
  const writer: KubeWriter = {
    patchDeploymentJson: (namespace, name, operations, { fieldManager }) =>
      callOnce(wops.patchDeploymentJson, { namespace, name }, () =>
        apps.patchNamespacedDeployment(
          { namespace, name, body: operations, fieldManager },
          requestOptions({ header: ['Content-Type', PatchStrategy.JsonPatch], write: true }),
        ),
      ),
    patchDeploymentStrategic: (namespace, name, patch, { fieldManager }) =>
      callOnce(wops.patchDeploymentStrategic, { namespace, name }, () =>
        apps.patchNamespacedDeployment(
          { namespace, name, body: patch, fieldManager },
          requestOptions({ header: ['Content-Type', PatchStrategy.StrategicMergePatch], write: true }),
        ),
      ),
    patchDeploymentScale: (namespace, name, patch, { fieldManager }) =>
      callOnce(wops.patchDeploymentScale, { namespace, name }, () =>
        apps.patchNamespacedDeploymentScale(
          { namespace, name, body: patch, fieldManager },
          requestOptions({ header: ['Content-Type', PatchStrategy.MergePatch], write: true }),
        ),
      ),
    ...workloadWriterMethods(workloadParts),
  };

  // Everything the cluster says is sanitized here, once, before any tool reads it.
  return { reader: sanitizingReader(reader), writer: sanitizingWriter(writer) };
}

/** The query of the list page after `next` (undefined: the first page). */
function listQuery(namespace: string, options: ListOptions | undefined, next: string | undefined): ListQuery {
  return {
    namespace,
    labelSelector: options?.labelSelector,
    fieldSelector: options?.fieldSelector,
    limit: options?.pageSize ?? DEFAULT_PAGE_SIZE,
    _continue: next,
  };
}

/** Query parameters of one list page, as the generated client-node list methods take them. */
interface ListQuery {
  namespace: string;
  labelSelector: string | undefined;
  fieldSelector: string | undefined;
  limit: number;
  _continue: string | undefined;
}

/**
 * Runs a read with bounded retries: only `KubeApiError`s marked retryable (429, 5xx, connection
 * reset) are retried, with exponential backoff, and never sooner than the server's `Retry-After`.
 */
function withReadRetries<T>(
  attempt: () => Promise<T>,
  policy: RetryPolicy,
  signal?: AbortSignal,
): Promise<T> {
  const retryable = (error: unknown): error is KubeApiError =>
    error instanceof KubeApiError && error.retryable;
  return pRetry(attempt, {
    retries: policy.retries,
    minTimeout: policy.minDelayMs,
    maxTimeout: policy.maxDelayMs,
    factor: 2,
    randomize: true,
    shouldRetry: ({ error }) => retryable(error),
    // A cancelled call stops waiting for its next retry.
    ...(signal && { signal }),
    // p-retry waits `retryDelay` after this resolves; top it up to what Retry-After asks for.
    onFailedAttempt: async ({ error, retriesLeft, retryDelay }) => {
      if (retriesLeft === 0 || !retryable(error) || error.retryAfterMs === undefined) return;
      const wanted = Math.min(error.retryAfterMs, policy.maxRetryAfterMs);
      if (wanted > retryDelay) await sleep(wanted - retryDelay, undefined, signal && { signal });
    },
  });
}
