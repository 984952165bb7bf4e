/**
 * Where the cluster configuration is, found without reading it (so without
 * `@kubernetes/client-node`): kubeconfig files from `--kubeconfig`, `KUBECONFIG` or
 * `~/.kube/config`, else the in-cluster service account when running in a Pod — kubectl's order.
 * ./connect.ts reads what this finds; the server uses it at start-up to say where the cluster comes
 * from (or why there is none) before the Kubernetes client is loaded.
 */
import { existsSync } from 'node:fs';
import { homedir } from 'node:os';
import { delimiter, join } from 'node:path';

const SERVICE_ACCOUNT_TOKEN = '/var/run/secrets/kubernetes.io/serviceaccount/token';

const HOW_TO_CONFIGURE =
  'Point Sentinel at a cluster with --kubeconfig <file> (and --context <name>), set KUBECONFIG, create ~/.kube/config (e.g. `kind create cluster`), or run it in a Pod with a service account; `sentinel sim` starts an embedded simulator and writes a kubeconfig for it.';

/** Where the configuration comes from. */
export type ConfigSource = { kind: 'kubeconfig'; files: string[] } | { kind: 'in-cluster' };

/** What `locateKubeconfig` looks at. */
export interface LocateOptions {
  /** Path of a kubeconfig file (`--kubeconfig`); wins over `KUBECONFIG` and `~/.kube/config`. */
  kubeconfig?: string;
  /** Prefix of the service account mount path (tests point it at a temporary directory); default none. */
  inClusterPathPrefix?: string;
}

/**
 * The configuration's source, or why there is none (`{ reason }`, which says what is missing or
 * wrong and how to configure a cluster): no kubeconfig file and not in a Pod, a `--kubeconfig` file
 * that does not exist, `KUBECONFIG` naming no existing file. Reads the environment (`KUBECONFIG`,
 * `HOME`, `KUBERNETES_SERVICE_HOST`) and checks files exist; never parses them. Never throws.
 */
export function locateKubeconfig(options: LocateOptions = {}): { source: ConfigSource } | { reason: string } {
  let files: string[];
  try {
    files = kubeconfigFiles(options);
  } catch (error) {
    return { reason: unusable(error) };
  }
  if (files.length > 0) return { source: { kind: 'kubeconfig', files } };
  const prefix = options.inClusterPathPrefix ?? '';
  if (!process.env.KUBERNETES_SERVICE_HOST || !existsSync(`${prefix}${SERVICE_ACCOUNT_TOKEN}`)) {
    return {
      reason: notConfiguredReason(
        'No Kubernetes cluster is configured: no kubeconfig file was found and Sentinel is not running in a Pod.',
      ),
    };
  }
  return { source: { kind: 'in-cluster' } };
}

/** kubeconfig files in kubectl's precedence: --kubeconfig, then KUBECONFIG (existing files), then ~/.kube/config. */
function kubeconfigFiles(options: LocateOptions): string[] {
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

/** `kubeconfig '/home/me/.kube/config'` or `the in-cluster service account`. */
export function describeSource(source: ConfigSource): string {
  return source.kind === 'in-cluster'
    ? 'the in-cluster service account'
    : `kubeconfig ${source.files.map((f) => `'${f}'`).join(', ')}`;
}

/** A not-configured reason: the problem, then how to configure a cluster. */
export function notConfiguredReason(problem: string): string {
  return `${problem} ${HOW_TO_CONFIGURE}`;
}

/** The reason for a configuration that cannot be used (`error` from reading or checking it). */
export function unusable(error: unknown): string {
  const message = error instanceof Error ? error.message.replace(/\.$/, '') : String(error);
  return notConfiguredReason(`The Kubernetes configuration cannot be used: ${message}.`);
}
