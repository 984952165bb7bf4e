/**
 * The kubeconfig the simulator writes: one cluster (its HTTPS URL and CA as
 * `certificate-authority-data`), one user (bearer token), one context. Same shape `kind` and
 * `kubectl config` write, so client-node and kubectl load it unchanged.
 */
import { stringify } from 'yaml';

export interface KubeconfigInput {
  server: string;
  caPem: string;
  token: string;
  /** Context, cluster and user name (default `sentinel-sim`). */
  contextName?: string;
  /** Default namespace of the context (kubectl's `-n` fallback). */
  namespace?: string;
  /** More users, each with a context of its own name on the same cluster (`kubectl --context NAME`). */
  users?: { name: string; token: string }[];
}

/** kubeconfig YAML for the simulator. */
export function buildKubeconfig(input: KubeconfigInput): string {
  const name = input.contextName ?? 'sentinel-sim';
  return stringify({
    apiVersion: 'v1',
    kind: 'Config',
    clusters: [
      {
        name,
        cluster: {
          server: input.server,
          'certificate-authority-data': Buffer.from(input.caPem).toString('base64'),
        },
      },
    ],
    users: [
      { name, user: { token: input.token } },
      ...(input.users ?? []).map((user) => ({ name: user.name, user: { token: user.token } })),
    ],
    contexts: [
      {
        name,
        context: { cluster: name, user: name, ...(input.namespace && { namespace: input.namespace }) },
      },
      ...(input.users ?? []).map((user) => ({
        name: user.name,
        context: { cluster: name, user: user.name, ...(input.namespace && { namespace: input.namespace }) },
      })),
    ],
    'current-context': name,
    preferences: {},
  });
}
