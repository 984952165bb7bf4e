/**
 * "Did you mean …?" for a Kubernetes object a tool did not find: the names that exist in the same
 * namespace, read from the cluster, closest first (core/suggest.ts) — the way kubectl users look
 * them up with `kubectl get deployments -n <ns>` after a typo. And for a namespace that does not
 * exist: the namespaces that do (`kubectl get namespaces`).
 */
import { didYouMean, SentinelError } from '../core/index.ts';
import type { KubeReader } from './kube/index.ts';

/** The reads that list the names of a kind in one namespace. */
const NAMES_OF: Record<
  string,
  (kube: KubeReader, namespace: string) => Promise<{ metadata?: { name?: string } }[]>
> = {
  Deployment: (kube, namespace) => kube.listDeployments(namespace),
  Service: (kube, namespace) => kube.listServices(namespace),
};

/**
 * A `not_found` for `namespace` when the cluster lists its namespaces and `namespace` is not
 * among them, with the close names appended ("Namespace 'shpo' not found on cluster 'kind'.
 * list_namespaces shows the namespaces that exist. Did you mean 'shop'?"); undefined when it exists
 * or the namespaces cannot be listed (a namespaced Role cannot grant `list namespaces`: then
 * nothing is claimed). One `list namespaces` call. Never throws.
 */
export async function missingNamespace(
  kube: KubeReader,
  namespace: string,
): Promise<SentinelError | undefined> {
  let names: string[];
  try {
    names = (await kube.listNamespaces()).flatMap((item) => item.metadata?.name ?? []);
  } catch {
    return undefined; // forbidden, unreachable, a reader without that list: no claim
  }
  if (names.includes(namespace)) return undefined;
  return new SentinelError(
    'not_found',
    `Namespace '${namespace}' not found on cluster '${kube.cluster.context}'. list_namespaces shows the namespaces that exist.${didYouMean(namespace, names)}`,
    { kind: 'Namespace', name: namespace },
  );
}

/**
 * `error` with the close names of its object appended (" Did you mean 'checkout'?") when it is a
 * `not_found` for a Deployment or Service naming its namespace and name, and a name that exists
 * there is close; when the namespace itself does not exist, the namespace's `not_found` (with the
 * close namespaces, `missingNamespace`) instead; otherwise `error` itself. The lookup is one or two
 * list calls with `kube`; when they fail (forbidden, unreachable) the error stays as it was. Never
 * throws.
 */
export async function withCloseNames(error: unknown, kube: KubeReader): Promise<unknown> {
  if (!(error instanceof SentinelError) || error.code !== 'not_found') return error;
  const { kind, namespace, resourceName: name } = error;
  if (kind === 'Namespace' || !namespace) return error;
  const noNamespace = await missingNamespace(kube, namespace);
  if (noNamespace)
    return new SentinelError('not_found', noNamespace.message, {
      cause: error,
      kind: 'Namespace',
      name: namespace,
    });
  const names = kind && NAMES_OF[kind];
  if (!names || !name) return error;
  let items: { metadata?: { name?: string } }[];
  try {
    items = await names(kube, namespace);
  } catch {
    return error; // forbidden, unreachable, a reader without that list: no suggestion
  }
  const hint = didYouMean(
    name,
    items.flatMap((item) => item.metadata?.name ?? []),
  );
  if (!hint) return error;
  return new SentinelError(error.code, `${error.message}${hint}`, {
    cause: error,
    kind,
    namespace,
    name,
    ...(error.details && { details: error.details }),
  });
}

/**
 * For a namespace-scoped list that came back empty (Kubernetes answers an empty list for a
 * namespace that does not exist, as `kubectl get pods -n shpo` shows "No resources found"): throws
 * the namespace's `not_found` with the close namespaces when it does not exist (`missingNamespace`);
 * returns when it does, or when that cannot be told.
 */
export async function assertNamespaceExists(kube: KubeReader, namespace: string): Promise<void> {
  const missing = await missingNamespace(kube, namespace);
  if (missing) throw missing;
}
