/**
 * Pieces every investigation tool shares: the cluster identity in the output schema and the first
 * line of every result, so each answer says which cluster it describes.
 */
import { z } from 'zod';
import type { ClusterIdentity } from '../define-tool.ts';

/** The cluster a result describes (kubeconfig context and API server URL). */
export const ClusterSchema = z.object({
  context: z.string().describe('kubeconfig context name (`in-cluster` inside a Pod)'),
  server: z.string().describe('API server URL'),
});
export type Cluster = z.infer<typeof ClusterSchema>;

/** `Cluster 'kind-shop' (https://127.0.0.1:6443)` — the first line of every tool's text. */
export function clusterLine(cluster: ClusterIdentity): string {
  return `Cluster '${cluster.context}' (${cluster.server})`;
}
