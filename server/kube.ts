/**
 * The server's cluster connection: from kubeconfig / in-cluster config through the Kubernetes layer,
 * or "not configured" with a reason that tools answer `unavailable` with and /healthz shows; made on
 * first need (`lazyCluster`), so the server answers before the Kubernetes client is loaded; and the
 * bounded reachability probe behind /healthz and /readyz.
 */
import { setTimeout as delay } from 'node:timers/promises';
import { toSentinelError } from '../core/index.ts';
import { connectKube, type KubeConnection, type ReadCacheOptions } from '../tools/index.ts';

/** The default of an embedded server given no connection: no cluster, and how to configure one. */
export function notConfigured(): KubeConnection {
  return {
    configured: false,
    reason:
      'No Kubernetes cluster is configured. Start the server with --kubeconfig <file> and/or --context <name> (or set KUBECONFIG), then call the tool again.',
  };
}

/** Which cluster `sentinel serve` should talk to. */
export interface ClusterOptions {
  /** kubeconfig file; default KUBECONFIG or ~/.kube/config, then the in-cluster service account. */
  kubeconfig?: string;
  /** kubeconfig context; default the current context. */
  context?: string;
  /** `--read-cache` as resolved (serve-options.ts `readCacheMode`): `watch` for the watch-backed cache of read tools; absent: none. */
  readCache?: 'off' | 'watch';
  /** With `watch`: told each reflector's state change and failure (the server log, read-cache-log.ts). */
  readCacheEvents?: Pick<ReadCacheOptions, 'onStateChange' | 'onError'>;
}

/**
 * Connects to the cluster named by the options through the Kubernetes layer (`connectKube`: same
 * precedence as kubectl), loading it on the first call. Never rejects: an unusable configuration is
 * reported as not configured, with the reason; so is a Kubernetes client that cannot be loaded.
 */
export async function connectCluster(options: ClusterOptions): Promise<KubeConnection> {
  try {
    return await connectKube({
      ...(options.kubeconfig !== undefined && { kubeconfig: options.kubeconfig }),
      ...(options.context !== undefined && { context: options.context }),
      ...(options.readCache !== undefined && {
        readCache: { mode: options.readCache, ...options.readCacheEvents },
      }),
    });
  } catch (error) {
    return {
      configured: false,
      reason: `The Kubernetes client could not be loaded: ${toSentinelError(error).message} Reinstall the dependencies (npm ci) and restart the server.`,
    };
  }
}

/**
 * How the server reaches its cluster connection: the connection itself once it is made, or a promise
 * of it while it is being made (the Kubernetes layer loading, the kubeconfig being read). Callers
 * that need the cluster `await` it; /healthz tells the two apart to answer without waiting.
 */
export type ClusterAccess = (() => KubeConnection | Promise<KubeConnection>) & {
  /**
   * The connection, or the promise of it, if one was started; undefined before the first need.
   * Lets /healthz report without starting the connection (`lazyCluster` has it; a plain function
   * without it is taken as always started).
   */
  peek?: () => KubeConnection | Promise<KubeConnection> | undefined;
};

/**
 * A `ClusterAccess` that makes the connection with `connect` on its first call — the first tool
 * call, /readyz, an approvals preview (not /healthz: liveness peeks) — and returns it, once made, from then on (`connect`
 * runs once; calls meanwhile share its promise). `connect` must not reject (`connectCluster` does
 * not). `onConnected` is told the connection once (e.g. to log which cluster, or why none).
 */
export function lazyCluster(
  connect: () => Promise<KubeConnection>,
  onConnected?: (connection: KubeConnection) => void,
): ClusterAccess {
  let connected: KubeConnection | undefined;
  let connecting: Promise<KubeConnection> | undefined;
  const access = () =>
    connected ??
    (connecting ??= connect().then((connection) => {
      connected = connection;
      onConnected?.(connection);
      return connection;
    }));
  return Object.assign(access, { peek: () => connected ?? connecting });
}

/** What /healthz says about the cluster: its configuration and whether its API server answers. */
export type ClusterHealth =
  /** The connection is being made (first need just now): configuration not known yet. */
  | { configured: null; connecting: true; reason: string }
  /** No connection yet: nothing has needed the cluster (liveness alone does not start it). */
  | { configured: null; connecting: false; reason: string }
  | { configured: false; reason: string }
  | {
      configured: true;
      context: string;
      server: string;
      /** Whether `GET /version` answered within the probe's timeout. */
      reachable: boolean;
      /** The API server's `gitVersion` when reachable. */
      version?: string;
      /** Why it is not reachable (the Kubernetes layer's plain-language error, or the timeout). */
      error?: string;
      /** ISO 8601 time of the probe this answer comes from (answers are cached briefly). */
      checked_at: string;
    };

export interface ClusterProbeOptions {
  /** Longest a health check waits for `GET /version`, in ms. Default 2000. */
  timeoutMs?: number;
  /** How long a probe's answer is reused, in ms, so /healthz cannot hammer the API server. Default 5000. */
  cacheMs?: number;
}

/**
 * Reports the cluster's health for /healthz and /readyz; see `createClusterProbe`. `connect: false`
 * (liveness) answers `connecting: false` instead of starting a connection nothing needed yet.
 */
export type ClusterProbe = (options?: { connect?: boolean }) => Promise<ClusterHealth>;

type Reachability = Pick<Extract<ClusterHealth, { configured: true }>, 'reachable' | 'version' | 'error'>;

/** What the probe answers while the connection is being made. */
const CONNECTING: ClusterHealth = {
  configured: null,
  connecting: true,
  reason:
    'Connecting: the Kubernetes client is loading and the kubeconfig is being read (started by the first tool call or readiness check); ask again in a moment.',
};

/** What the probe answers, without connecting, before anything needed the cluster. */
const NOT_CONNECTED: ClusterHealth = {
  configured: null,
  connecting: false,
  reason:
    'Not connected yet: the cluster is connected on first use (a tool call or GET /readyz); liveness does not load the Kubernetes client.',
};

/**
 * A bounded, cached reachability check of the current cluster: `GET /version` through the
 * Kubernetes layer (mirrors `kubectl version`'s server half). A check waits at most `timeoutMs`; at
 * most one request is in flight (a slow API server is not asked again until it answers, and checks
 * meanwhile report the timeout), and an answer is reused for `cacheMs` per cluster. While the
 * connection is still being made (`kube()` returns a promise) it answers `connecting` at once
 * without waiting for it — the check starts the connection, unless called with `connect: false`
 * (liveness: /healthz), which answers `connecting: false` until something else needed the cluster,
 * so an idle server polled by a liveness probe never loads the Kubernetes client. Never throws.
 */
export function createClusterProbe(kube: ClusterAccess, options: ClusterProbeOptions = {}): ClusterProbe {
  const timeoutMs = options.timeoutMs ?? 2000;
  const cacheMs = options.cacheMs ?? 5000;
  let cached: { key: string; at: number; result: Reachability; checkedAt: string } | undefined;
  let inFlight: { key: string; answer: Promise<Reachability> } | undefined;

  return async ({ connect = true } = {}) => {
    const connection = connect || !kube.peek ? kube() : kube.peek();
    if (connection === undefined) return NOT_CONNECTED;
    if (connection instanceof Promise) return CONNECTING;
    if (!connection.configured) return { configured: false, reason: connection.reason };
    const { context, server } = connection.cluster;
    const key = `${context}\n${server}`;
    if (!cached || cached.key !== key || Date.now() - cached.at >= cacheMs) {
      if (!inFlight || inFlight.key !== key) {
        const answer = connection.reader.getVersion().then(
          (info): Reachability => ({ reachable: true, version: info.gitVersion }),
          (error: unknown): Reachability => ({ reachable: false, error: toSentinelError(error).message }),
        );
        const probe = { key, answer };
        inFlight = probe;
        void answer.finally(() => {
          if (inFlight === probe) inFlight = undefined;
        });
      }
      const timer = new AbortController();
      const result = await Promise.race([
        inFlight.answer,
        delay(timeoutMs, undefined, { signal: timer.signal }).then(
          (): Reachability => ({
            reachable: false,
            error: `The API server at ${server} did not answer GET /version within ${timeoutMs} ms.`,
          }),
          () => ({ reachable: false }) as Reachability, // aborted: the probe answered first
        ),
      ]);
      timer.abort();
      cached = { key, at: Date.now(), result, checkedAt: new Date().toISOString() };
    }
    return { configured: true, context, server, ...cached.result, checked_at: cached.checkedAt };
  };
}
