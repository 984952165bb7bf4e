/**
 * The cluster a call runs against and a result describes: kubeconfig context and API server URL.
 * One schema for the tools' outputs, the approval request and the audit record (which reads it
 * strictly: `z.strictObject(ClusterSchema.shape)`).
 */
import { z } from 'zod';

export const ClusterSchema = z.object({
  context: z.string().describe('kubeconfig context name (`in-cluster` inside a Pod)'),
  server: z.string().describe('API server URL'),
});
export type Cluster = z.infer<typeof ClusterSchema>;
