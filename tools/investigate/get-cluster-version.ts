/**
 * `get_cluster_version`: which Kubernetes the server is connected to.
 */
import { z } from 'zod';
import { defineTool, toolInput } from '../define-tool.ts';

export const ClusterVersionSchema = z.object({
  /** kubeconfig context name. */
  context: z.string(),
  /** API server URL. */
  server: z.string(),
  /** e.g. `v1.31.2`. */
  git_version: z.string(),
  major: z.string(),
  minor: z.string(),
  /** e.g. `linux/amd64`. */
  platform: z.string(),
});
export type ClusterVersion = z.infer<typeof ClusterVersionSchema>;

/**
 * Mirrors `kubectl version` (server part): `GET /version` on the API server. No arguments. Returns
 * the context, API server URL, gitVersion, major/minor and platform. Errors: `unavailable` when no
 * cluster is configured or it cannot be reached, `unauthorized`/`forbidden` from the API server.
 */
export const getClusterVersion = defineTool({
  name: 'get_cluster_version',
  title: 'Get the Kubernetes version',
  description:
    'Returns the Kubernetes version of the cluster this server is connected to (like `kubectl version`): ' +
    'kubeconfig context, API server URL, gitVersion (e.g. v1.31.2) and platform. Takes no arguments; ' +
    'use it to check which cluster the other tools act on.',
  risk: 'read',
  input: toolInput({}),
  output: ClusterVersionSchema,
  handler: async (_args, { kube, cluster }) => {
    const version = await kube.getVersion();
    const result: ClusterVersion = {
      context: cluster.context,
      server: cluster.server,
      git_version: version.gitVersion,
      major: version.major,
      minor: version.minor,
      platform: version.platform,
    };
    return {
      text: `Kubernetes ${result.git_version} (${result.platform}) — context ${result.context}, API server ${result.server}`,
      structured: result,
    };
  },
});
