/**
 * Finding the cluster: kubeconfig from `--kubeconfig`, `KUBECONFIG` or `~/.kube/config`, the
 * `--context` to use, or the in-cluster service account when running in a Pod — the same order as
 * kubectl. With none of them the result says so and how to configure one; it never falls back to an
 * unauthenticated `http://localhost:8080` the way `KubeConfig.loadFromDefault()` does.
 */
import { KubeConfig } from '@kubernetes/client-node';
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';
import {
  createKubeClient,
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_RETRY_POLICY,
  type RetryPolicy,
} from './client.ts';
import type { KubeConnection } from './types.ts';

/** Context name reported for the in-cluster service account. */
export const IN_CLUSTER_CONTEXT = 'in-cluster';
const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

export interface ConnectOptions {
  /** Path of a kubeconfig file (`--kubeconfig`); wins over `KUBECONFIG` and `~/.kube/config`. */
  kubeconfig?: string;
  /** kubeconfig context to use (`--context`); default: the file's current-context. */
  context?: string;
  /** Timeout of each API request in ms; default 10 000. */
  requestTimeoutMs?: number;
  /** Retry policy for reads; default 3 retries, 200 ms doubling to at most 2 s. */
  retry?: Partial<RetryPolicy>;
  /** Prefix of the service account mount path (tests point it at a temporary directory); default none. */
  inClusterPathPrefix?: string;
}

/** Where the configuration came from, for /healthz and `sentinel serve` logs. */
type Source = { kind: 'kubeconfig'; files: string[] } | { kind: 'in-cluster' };

const HOW_TO_CONFIGURE =
  'Point Sentinel at a cluster with --kubeconfig <file> (and --context <name>), set KUBECONFIG, create ~/.kube/config (e.g. `kind create cluster`), or run it in a Pod with a service account; `sentinel sim` starts an embedded simulator and writes a kubeconfig for it.';

/**
 * Connects to the cluster described by the options (nothing is sent to the cluster yet).
 * Returns `{ configured: true, cluster, reader, writer, source }`, or `{ configured: false, reason }`
 * when no configuration exists or it cannot be used (missing file, unknown context, context without
 * a server) — the reason says what is wrong and how to configure a cluster. Never throws.
 */
export function connectKube(options: ConnectOptions = {}): KubeConnection {
  const kubeConfig = new KubeConfig();
  let source: Source;
  try {
    const files = kubeconfigFiles(options);
    if (files.length > 0) {
      loadFiles(kubeConfig, files);
      source = { kind: 'kubeconfig', files };
    } else {
      const prefix = options.inClusterPathPrefix ?? '';
      if (!process.env.KUBERNETES_SERVICE_HOST || !existsSync(`${prefix}${SERVICE_ACCOUNT_TOKEN}`)) {
        return notConfigured(
          'No Kubernetes cluster is configured: no kubeconfig file was found and Sentinel is not running in a Pod.',
        );
      }
      // Same as client-go's rest.InClusterConfig: KUBERNETES_SERVICE_HOST/PORT and the mounted token and CA.
      kubeConfig.loadFromCluster(prefix);
      source = { kind: 'in-cluster' };
    }
  } catch (error) {
    return notConfigured(`The Kubernetes configuration cannot be used: ${messageOf(error)}.`);
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
  const { reader, writer } = createKubeClient(kubeConfig, {
    cluster,
    requestTimeoutMs: options.requestTimeoutMs ?? DEFAULT_REQUEST_TIMEOUT_MS,
    retry: { ...DEFAULT_RETRY_POLICY, ...options.retry },
  });
  return { configured: true, cluster, reader, writer, source: describeSource(source) };
}

/** kubeconfig files in kubectl's precedence: --kubeconfig, then KUBECONFIG (existing files), then ~/.kube/config. */
function kubeconfigFiles(options: ConnectOptions): string[] {
  if (options.kubeconfig !== undefined) {
    if (!existsSync(options.kubeconfig))
      throw new Error(`kubeconfig file '${options.kubeconfig}' does not exist`);
    return [options.kubeconfig];
  }
  const fromEnv = process.env.KUBECONFIG;
  if (fromEnv) {
    const listed = fromEnv.split(delimiter).filter(Boolean);
    const present = listed.filter((file) => existsSync(file));
    if (present.length === 0)
      throw new Error(`none of the KUBECONFIG files exist (${listed.join(delimiter)})`);
    return present;
  }
  const defaultFile = join(homedir(), '.kube', 'config');
  return existsSync(defaultFile) ? [defaultFile] : [];
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

function describeSource(source: Source): string {
  return source.kind === 'in-cluster'
    ? 'the in-cluster service account'
    : `kubeconfig ${source.files.map((f) => `'${f}'`).join(', ')}`;
}

function notConfigured(problem: string): KubeConnection {
  return { configured: false, reason: `${problem} ${HOW_TO_CONFIGURE}` };
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message.replace(/\.$/, '') : String(error);
}
