/**
 * Why an image pull fails, in the words a kubelet with containerd records. The kubelet's image
 * manager (pkg/kubelet/images/image_manager.go, EnsureImageExists) emits Warning `Failed`
 * `Failed to pull image "<image>": <err>` with the CRI runtime's error, then `Error: ErrImagePull`
 * and, in back-off, `Error: ImagePullBackOff`. The CRI errors below are containerd's (its CRI
 * `PullImage`: `failed to pull and unpack image "<ref>": failed to resolve reference "<ref>": …`,
 * the resolver's `unexpected status from <METHOD> request to <url>: <status>`, the authorizer's
 * `failed to fetch oauth token`). Before pulling, the kubelet's `getPullSecretsForPod`
 * (pkg/kubelet/kubelet_pods.go) records Warning `FailedToRetrieveImagePullSecret` "Unable to
 * retrieve some image pull secrets (<names>); attempting to pull the image may not succeed." for
 * each `imagePullSecrets` entry whose Secret does not exist.
 */
import type { ObjectStore } from '../store.ts';
import type { KubeObject, Pod } from '../types.ts';

/** Why the registry refuses: no such image or tag, credentials refused (401), access denied (403). */
export type PullFailureCause = 'notFound' | 'unauthorized' | 'forbidden';

/** `nginx:1.27` → registry `registry-1.docker.io`, reference `docker.io/library/nginx:1.27`, path `library/nginx`, tag `1.27`. */
function parseImage(image: string): { ref: string; host: string; path: string; tag: string } {
  const [name, digest] = image.split('@') as [string, string | undefined];
  const slash = name.indexOf('/');
  const first = slash < 0 ? '' : name.slice(0, slash);
  const qualified = first.includes('.') || first.includes(':') || first === 'localhost';
  const domain = qualified ? first : 'docker.io';
  let rest = qualified ? name.slice(slash + 1) : name;
  if (domain === 'docker.io' && !rest.includes('/')) rest = `library/${rest}`;
  const colon = rest.lastIndexOf(':');
  const [path, tag] = digest
    ? [rest.includes(':') ? rest.slice(0, colon) : rest, digest]
    : colon < 0
      ? [rest, 'latest']
      : [rest.slice(0, colon), rest.slice(colon + 1)];
  const ref = `${domain}/${path}${digest ? `@${digest}` : `:${tag}`}`;
  return { ref, host: domain === 'docker.io' ? 'registry-1.docker.io' : domain, path, tag };
}

/** containerd's CRI error for a pull of `image` that fails for `cause`. */
export function pullErrorMessage(image: string, cause: PullFailureCause): string {
  const { ref, host, path, tag } = parseImage(image);
  const prefix = `failed to pull and unpack image "${ref}": failed to resolve reference "${ref}"`;
  switch (cause) {
    case 'notFound':
      return `rpc error: code = NotFound desc = ${prefix}: ${ref}: not found`;
    case 'unauthorized':
      return `rpc error: code = Unknown desc = ${prefix}: failed to authorize: failed to fetch oauth token: unexpected status from POST request to https://${host}/token: 401 Unauthorized`;
    case 'forbidden':
      return `rpc error: code = Unknown desc = ${prefix}: unexpected status from HEAD request to https://${host}/v2/${path}/manifests/${tag}: 403 Forbidden`;
  }
}

/** The `imagePullSecrets` of `pod` whose Secret does not exist in its namespace, in spec order. */
export function missingPullSecrets(store: ObjectStore, pod: Pod): string[] {
  const refs = (pod.spec['imagePullSecrets'] ?? []) as { name?: string }[];
  const namespace = pod.metadata.namespace ?? 'default';
  return refs
    .map((ref) => ref.name ?? '')
    .filter((name) => name !== '' && !store.peekOne<KubeObject>('secrets', namespace, name));
}

/** The kubelet's FailedToRetrieveImagePullSecret message for `names`. */
export function missingPullSecretsMessage(names: readonly string[]): string {
  return `Unable to retrieve some image pull secrets (${names.join(', ')}); attempting to pull the image may not succeed.`;
}
