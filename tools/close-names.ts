/**
 * "Did you mean …?" for a Kubernetes object a tool did not find: the names that exist in the same
 * namespace, read from the cluster, closest first (core/suggest.ts) — the way kubectl users look
 * them up with `kubectl get deployments -n <ns>` after a typo.
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
 * `error` with the close names of its object appended (" Did you mean 'checkout'?") when it is a
 * `not_found` for a Deployment or Service naming its namespace and name, and a name that exists
 * there is close; otherwise `error` itself. The lookup is one list call with `kube`; when it fails
 * (forbidden, unreachable) the error stays as it was. Never throws.
 */
export async function withCloseNames(error: unknown, kube: KubeReader): Promise<unknown> {
  if (!(error instanceof SentinelError) || error.code !== 'not_found') return error;
  const { kind, namespace, resourceName: name } = error;
  const names = kind && NAMES_OF[kind];
  if (!names || !namespace || !name) return error;
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
