/**
 * `get_cluster_version`: which Kubernetes the server is connected to.
 */
import { z } from 'zod';
import { defineTool, toolInput } from '../define-tool.ts';
import { ClusterSchema, clusterLine } from './common.ts';

export const ClusterVersionSchema = z.object({
  cluster: ClusterSchema,
  git_version: z.string().describe('Kubernetes version of the API server, e.g. `v1.31.2`'),
  major: z.string(),
  minor: z.string(),
  platform: z.string().describe('OS/architecture of the API server binary, e.g. `linux/amd64`'),
});
export type ClusterVersion = z.infer<typeof ClusterVersionSchema>;

/**
 * Mirrors the server half of `kubectl version`: `GET /version` on the API server. No arguments.
 * Returns the cluster (context, API server URL), gitVersion, major/minor and platform. Errors:
 * `unavailable` when no cluster is configured or it cannot be reached, `unauthorized` / `forbidden`
 * from the API server, `timeout`.
 */
export const getClusterVersion = defineTool({
  name: 'get_cluster_version',
  title: 'Get the Kubernetes version',
  description:
    'Returns the Kubernetes version of the cluster this server is connected to (the server half of ' +
    '`kubectl version`): kubeconfig context, API server URL, gitVersion (e.g. v1.31.2) and platform. ' +
    'Takes no arguments; use it to check which cluster the other tools act on.',
  risk: 'read',
  input: toolInput({}),
  output: ClusterVersionSchema,
  handler: async (_args, { kube, cluster }) => {
    const version = await kube.getVersion();
    const result: ClusterVersion = {
      cluster: { context: cluster.context, server: cluster.server },
      git_version: version.gitVersion,
      major: version.major,
      minor: version.minor,
      platform: version.platform,
    };
    return {
      text: `${clusterLine(cluster)}\nKubernetes ${result.git_version} (${result.platform})`,
      structured: result,
    };
  },
});
