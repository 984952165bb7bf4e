/**
 * Finding the cluster: kubeconfig from `--kubeconfig`, `KUBECONFIG` or `~/.kube/config`, the
 * `--context` to use, or the in-cluster service account when running in a Pod — the same order as
 * kubectl. With none of them the result says so and how to configure one; it never falls back to an
 * unauthenticated `http://localhost:8080` the way `KubeConfig.loadFromDefault()` does.
 */
import { KubeConfig } from '@kubernetes/client-node';
import {
  createKubeClient,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_RETRY_POLICY,
  type RetryPolicy,
} from './client.ts';
import type { ReadCacheMode, ReadCacheOptions } from './read-cache.ts';
import { describeSource, locateKubeconfig, notConfiguredReason, unusable } from './locate.ts';
import type { KubeConnection } from './types.ts';

/** Context name reported for the in-cluster service account. */
export const IN_CLUSTER_CONTEXT = 'in-cluster';

export interface ConnectOptions {
  /** Path of a kubeconfig file (`--kubeconfig`); wins over `KUBECONFIG` and `~/.kube/config`. */
  kubeconfig?: string;
  /** kubeconfig context to use (`--context`); default: the file's current-context. */
  context?: string;
  /** Timeout of each API request in ms; default 10 000. */
  requestTimeoutMs?: number;
  /** Retry policy for reads; default 3 retries, 200 ms doubling to at most 2 s. */
  retry?: Partial<RetryPolicy>;
  /**
   * `watch`: the watch-backed read cache (./read-cache.ts) behind the connection's `cachedReader`;
   * default `off` (none). The options tune it (tests).
   */
  readCache?: ReadCacheMode | ({ mode: ReadCacheMode } & ReadCacheOptions);
  /** Prefix of the service account mount path (tests point it at a temporary directory); default none. */
  inClusterPathPrefix?: string;
}

/**
 * Connects to the cluster described by the options (nothing is sent to the cluster yet).
 * Returns `{ configured: true, cluster, reader, writer, source }`, or `{ configured: false, reason }`
 * when no configuration exists or it cannot be used (missing file, unknown context, context without
 * a server) — the reason says what is wrong and how to configure a cluster. Never throws.
 */
export function connectKube(options: ConnectOptions = {}): KubeConnection {
  const located = locateKubeconfig(options);
  if ('reason' in located) return { configured: false, reason: located.reason };
  const { source } = located;
  const kubeConfig = new KubeConfig();
  try {
    if (source.kind === 'kubeconfig') {
      loadFiles(kubeConfig, source.files);
    } else {
      // Same as client-go's rest.InClusterConfig: KUBERNETES_SERVICE_HOST/PORT and the mounted token and CA.
      kubeConfig.loadFromCluster(options.inClusterPathPrefix ?? '');
    }
  } catch (error) {
    return { configured: false, reason: unusable(error) };
  }

  if (options.context !== undefined) {
    if (!kubeConfig.getContextObject(options.context)) {
      const known = kubeConfig.getContexts().map((c) => c.name);
      return notConfigured(
        `Context '${options.context}' is not in ${describeSource(source)}; it has ${known.length ? known.map((n) => `'${n}'`).join(', ') : 'no contexts'}.`,
      );
    }
    kubeConfig.setCurrentContext(options.context);
  }
  const contextName = kubeConfig.getCurrentContext();
  if (!contextName || !kubeConfig.getContextObject(contextName)) {
    return notConfigured(`${describeSource(source)} has no current context; pass --context <name>.`);
  }
  const clusterConfig = kubeConfig.getCurrentCluster();
  if (!clusterConfig?.server) {
    return notConfigured(
      `Context '${contextName}' in ${describeSource(source)} names no cluster with a server URL.`,
    );
  }

  const cluster = {
    context: source.kind === 'in-cluster' ? IN_CLUSTER_CONTEXT : contextName,
    server: clusterConfig.server,
  };
  const { mode = 'off', ...cacheOptions } =
    typeof options.readCache === 'string' ? { mode: options.readCache } : (options.readCache ?? {});
  const { reader, writer, cachedReader, readCache, close } = createKubeClient(kubeConfig, {
    cluster,
    requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
    ...(mode === 'watch' && { readCache: cacheOptions }),
  });
  return {
    configured: true,
    cluster,
    reader,
    writer,
    ...(cachedReader && { cachedReader }),
    ...(readCache && { readCache }),
    close,
    source: describeSource(source),
  };
}

/** Loads and merges files like kubectl: the first file that sets current-context wins. */
function loadFiles(kubeConfig: KubeConfig, files: string[]): void {
  const [first, ...rest] = files as [string, ...string[]];
  kubeConfig.loadFromFile(first);
  for (const file of rest) {
    const next = new KubeConfig();
    next.loadFromFile(file);
    kubeConfig.mergeConfig(next, Boolean(kubeConfig.currentContext));
  }
}

function notConfigured(problem: string): KubeConnection {
  return { configured: false, reason: notConfiguredReason(problem) };
}
