/**
 * The Kubernetes client: `KubeReader` and `KubeWriter` over Sentinel's request layer
 * (./transport.ts: one keep-alive connection pool per cluster, `@kubernetes/client-node` for the
 * kubeconfig and authentication).
 *
 * Every request has a timeout (default 10 s). Reads are retried with exponential backoff (p-retry)
 * on 429, 5xx and connection resets, waiting at least what the server's `Retry-After` asks; writes
 * are sent at most once. Lists follow `continue` until the last page, asking for the next page as
 * soon as the previous one is parsed. Bodies are the API server's JSON as sent — parsed with
 * `JSON.parse`, not converted by client-node's `ObjectSerializer` into models (which dropped
 * undeclared fields and turned timestamps into `Date`s): timestamps are RFC 3339 strings, read them
 * with `timeOf`. Failures become `SentinelError`s naming the resource and the cause (./errors.ts).
 * Every result is sanitized (./sanitize.ts) before it is returned.
 */
import {
  PatchStrategy,
  type V1Deployment,
  type V1ReplicaSet,
  type KubeConfig,
} from '@kubernetes/client-node';
import pRetry from 'p-retry';
import { setTimeout as sleep } from 'node:timers/promises';
import type { ClusterIdentity } from '../define-tool.ts';
import { SentinelError } from '../errors.ts';
import { currentCallSignal, requestSignal } from './cancellation.ts';
import {
  isAlreadySafe,
  markAlreadySafe,
  parseFromCluster,
  sanitizingReader,
  sanitizingWriter,
} from './sanitize.ts';
import { KubeApiError, toKubeError, type KubeCallSubject } from './errors.ts';
import {
  describeOperation,
  READER_OPERATIONS,
  WRITER_OPERATIONS,
  type KubeNonResourceOperation,
  type KubeOperation,
} from './operations.ts';
import { createListWatch } from './list-watch.ts';
import { apiPath } from './paths.ts';
import {
  cachingReader,
  createReadCache,
  noteWritesIn,
  type CachedResource,
  type ReadCache,
  type ReadCacheOptions,
} from './read-cache.ts';
import { createKubeTransport, type KubeRequest, type KubeTransport } from './transport.ts';
import type { AsSent, JsonObject, KubeReader, KubeWriter, ListOptions } from './types.ts';
import {
  patchMethod,
  workloadReaderMethods,
  workloadWriterMethods,
  type WorkloadClientParts,
} from './workloads.ts';

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
  /** The watch-backed read cache (./read-cache.ts) behind `cachedReader`; none when absent. */
  readCache?: ReadCacheOptions;
}

/** What `createKubeClient` builds. */
export interface KubeClient {
  /** Every read asks the API server. */
  reader: KubeReader;
  /** Notes its writes in the read cache (read-your-writes) when there is one. */
  writer: KubeWriter;
  /** With `readCache`: Deployments, ReplicaSets, Pods and HorizontalPodAutoscalers from the cache when synced (read tools only). */
  cachedReader?: KubeReader;
  /** The read cache itself (stats, tests), with `readCache`. */
  readCache?: ReadCache;
  /** Stops the cache's watches and closes the connections. */
  close(): Promise<void>;
}

/**
 * Builds the reader and writer for the current context of `kubeConfig`, sharing one request layer
 * (one connection pool), and with `options.readCache` the cached reader. `transport` replaces the
 * request layer (tests).
 */
export function createKubeClient(
  kubeConfig: KubeConfig,
  options: KubeClientOptions,
  transport: KubeTransport = createKubeTransport(kubeConfig),
): KubeClient {
  const { cluster, requestTimeoutMs } = options;

  /** One request, with a fresh timeout joined (for a read) with the tool call's cancellation `caller`. */
  const send = async (req: Omit<KubeRequest, 'signal'>, caller: AbortSignal | undefined): Promise<string> => {
    const { signal, release } = requestSignal(requestTimeoutMs, caller);
    try {
      return await transport.send({ ...req, signal });
    } finally {
      release();
    }
  };

  /** The body of an answer to `operation`, parsed; throws `unavailable` unless it is a JSON object. */
  const parseObject = (
    operation: KubeOperation | KubeNonResourceOperation,
    subject: KubeCallSubject,
    text: string,
  ): JsonObject => {
    let parsed: unknown;
    try {
      parsed = parseFromCluster(text);
    } catch {
      parsed = undefined;
    }
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) {
      const what = 'nonResourceURL' in operation ? operation.nonResourceURL : operation.resource;
      throw new SentinelError(
        'unavailable',
        `The API server at ${cluster.server} answered ${operation.verb} ${what} with a body that is not a JSON object.`,
        { ...('kind' in operation && { kind: operation.kind }), ...subject },
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
    call: (caller: AbortSignal | undefined) => Promise<T>,
  ): Promise<T> => {
    const caller = currentCallSignal();
    return withReadRetries(
      () => callOnce(operation, subject, () => call(caller), caller),
      options.retry,
      caller,
    ).catch((error: unknown) => {
      // Cancelled while waiting between retries: p-retry rejects with the signal's reason.
      throw caller?.aborted && !(error instanceof SentinelError)
        ? cancelledError(operation, subject, true, error)
        : error;
    });
  };

  /** `GET` one object (or `/version`) as the API server sent it. */
  const get = <T>(operation: KubeOperation | KubeNonResourceOperation, namespace?: string, name?: string) => {
    const subject = { namespace, name };
    const path =
      'nonResourceURL' in operation ? operation.nonResourceURL : apiPath(operation, namespace, name);
    return read(operation, subject, async (caller) =>
      parseObject(operation, subject, await send({ method: 'GET', path }, caller)),
    ) as Promise<T>;
  };

  /**
   * Every item of a list, following `continue`: the next page is requested as soon as this one is
   * parsed (its items are taken as they are; nothing is converted per page).
   */
  const list = async <T>(
    operation: KubeOperation,
    namespace: string | undefined,
    listOptions: ListOptions | undefined,
  ): Promise<T[]> => {
    const path = apiPath(operation, namespace);
    const items: T[] = [];
    let next: string | undefined;
    // Whether every page's text showed it needs no sanitizing (./sanitize.ts), so the items do not.
    let safe = true;
    do {
      const query = listQuery(listOptions, next);
      const page = await read(operation, { namespace }, async (caller) =>
        parseObject(operation, { namespace }, await send({ method: 'GET', path, query }, caller)),
      );
      const pageItems = page.items;
      if (!Array.isArray(pageItems)) {
        throw new SentinelError(
          'unavailable',
          `The API server at ${cluster.server} answered list ${operation.resource}${namespace === undefined ? '' : ` in namespace '${namespace}'`} without an items array.`,
          { kind: operation.kind, namespace },
        );
      }
      const meta = page.metadata as { continue?: unknown } | undefined;
      next = typeof meta?.continue === 'string' && meta.continue ? meta.continue : undefined;
      safe &&= isAlreadySafe(page);
      for (const item of pageItems) items.push(item as T);
    } while (next);
    if (safe) markAlreadySafe(items, items);
    return items;
  };

  /** A `PATCH` sent once (never retried), answered with the patched object. */
  const patch = <T>(
    operation: KubeOperation,
    namespace: string,
    name: string,
    body: unknown,
    contentType: string,
    fieldManager: string,
  ) => {
    const subject = { namespace, name };
    return callOnce(operation, subject, async () => {
      const text = await transport.send({
        method: 'PATCH',
        path: apiPath(operation, namespace, name),
        query: { fieldManager },
        body: { text: JSON.stringify(body), contentType },
        // Writes are never aborted by the caller; only the request timeout applies.
        signal: AbortSignal.timeout(requestTimeoutMs),
      });
      return parseObject(operation, subject, text) as T;
    });
  };

  /** A `DELETE` sent once (never retried), answered with the object as deleted (or its Status). */
  const remove = <T>(
    operation: KubeOperation,
    namespace: string,
    name: string,
    body: unknown,
    query: KubeRequest['query'] = {},
  ) => {
    const subject = { namespace, name };
    return callOnce(operation, subject, async () => {
      const text = await transport.send({
        method: 'DELETE',
        path: apiPath(operation, namespace, name),
        query,
        body: { text: JSON.stringify(body), contentType: 'application/json' },
        signal: AbortSignal.timeout(requestTimeoutMs),
      });
      return parseObject(operation, subject, text) as T;
    });
  };

  // StatefulSets, DaemonSets, ControllerRevisions, Pod deletion (./workloads.ts).
  const workloadParts: WorkloadClientParts = { get, list, patch, remove };

  const ops = READER_OPERATIONS;
  const reader: KubeReader = {
    cluster,
    getVersion: () => get(ops.getVersion),
    listNamespaces: (o) => list(ops.listNamespaces, undefined, o),
    getDeployment: (namespace, name) => get(ops.getDeployment, namespace, name),
    listDeployments: (namespace, o) => list(ops.listDeployments, namespace, o),
    listReplicaSets: (namespace, o) => list(ops.listReplicaSets, namespace, o),
    getDeploymentAsSent: (namespace, name) =>
      get<AsSent<V1Deployment>>(ops.getDeploymentAsSent, namespace, name),
    listReplicaSetsAsSent: (namespace, o) =>
      list<AsSent<V1ReplicaSet>>(ops.listReplicaSetsAsSent, namespace, o),
    getPod: (namespace, name) => get(ops.getPod, namespace, name),
    listPods: (namespace, o) => list(ops.listPods, namespace, o),
    readPodLog: (namespace, name, o = {}) =>
      read(ops.readPodLog, { namespace, name }, (caller) =>
        send(
          {
            method: 'GET',
            path: apiPath(ops.readPodLog, namespace, name),
            query: {
              container: o.container,
              previous: o.previous || undefined,
              tailLines: o.tailLines,
              sinceSeconds: o.sinceSeconds,
              limitBytes: o.limitBytes,
            },
          },
          caller,
        ),
      ),
    getService: (namespace, name) => get(ops.getService, namespace, name),
    listServices: (namespace, o) => list(ops.listServices, namespace, o),
    listEvents: (namespace, o) => list(ops.listEvents, namespace, o),
    listEventsV1: (namespace, o) => list(ops.listEventsV1, namespace, o),
    listHorizontalPodAutoscalers: (namespace, o) => list(ops.listHorizontalPodAutoscalers, namespace, o),
    listPodMetrics: (namespace, o) => list(ops.listPodMetrics, namespace, o),
    ...workloadReaderMethods(workloadParts),
  };

  const wops = WRITER_OPERATIONS;
  const writer: KubeWriter = {
    patchDeploymentJson: patchMethod(workloadParts, wops.patchDeploymentJson, PatchStrategy.JsonPatch),
    patchDeploymentStrategic: patchMethod(
      workloadParts,
      wops.patchDeploymentStrategic,
      PatchStrategy.StrategicMergePatch,
    ),
    patchDeploymentScale: patchMethod(workloadParts, wops.patchDeploymentScale, PatchStrategy.MergePatch),
    ...workloadWriterMethods(workloadParts),
  };

  // Everything the cluster says is sanitized here, once, before any tool reads it (the cache's
  // objects when they are stored, ./reflector.ts).
  const close = async () => {
    cache?.close();
    await transport.close();
  };
  const cache =
    options.readCache &&
    createReadCache(
      (resource, namespace) =>
        createListWatch({
          transport,
          operation: CACHED_OPERATIONS[resource],
          namespace,
          requestTimeoutMs,
          pageSize: DEFAULT_PAGE_SIZE,
          ...(options.readCache?.watchTimeoutSeconds !== undefined && {
            watchTimeoutSeconds: () => options.readCache!.watchTimeoutSeconds!,
          }),
        }),
      options.readCache,
    );
  if (!cache) return { reader: sanitizingReader(reader), writer: sanitizingWriter(writer), close };
  return {
    reader: sanitizingReader(reader),
    writer: sanitizingWriter(noteWritesIn(writer, cache)),
    cachedReader: sanitizingReader(cachingReader(reader, cache)),
    readCache: cache,
    close,
  };
}

/** The list (and watch) the read cache makes of each resource it holds. */
const CACHED_OPERATIONS = {
  deployments: READER_OPERATIONS.listDeployments,
  replicasets: READER_OPERATIONS.listReplicaSets,
  pods: READER_OPERATIONS.listPods,
  horizontalpodautoscalers: READER_OPERATIONS.listHorizontalPodAutoscalers,
} as const satisfies Record<CachedResource, KubeOperation>;

/** The query of the list page after `next` (undefined: the first page). */
function listQuery(options: ListOptions | undefined, next: string | undefined): KubeRequest['query'] {
  return {
    labelSelector: options?.labelSelector,
    fieldSelector: options?.fieldSelector,
    limit: options?.pageSize ?? DEFAULT_PAGE_SIZE,
    continue: next,
  };
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
