import { describe, expect, it } from 'vitest';
import { ClusterSchema } from '../../core/index.ts';
import { ClusterSchema as ApprovalClusterSchema } from '../../server/gate/approval-request.ts';
import { ClusterSchema as ToolsClusterSchema } from '../../tools/investigate/common.ts';
import { AuditRecordSchema } from '../../server/audit/record.ts';

describe('ClusterSchema', () => {
  it('is one schema for the tools, the approval request and the audit record', () => {
    expect(ToolsClusterSchema).toBe(ClusterSchema);
    expect(ApprovalClusterSchema).toBe(ClusterSchema);
    expect(AuditRecordSchema.shape.cluster.unwrap().shape).toEqual(ClusterSchema.shape);
  });

  it('reads a cluster, and the audit record reads it strictly', () => {
    const cluster = { context: 'kind-shop', server: 'https://127.0.0.1:6443' };
    expect(ClusterSchema.parse(cluster)).toEqual(cluster);
    expect(ClusterSchema.safeParse({ context: 'x' }).success).toBe(false);
    expect(AuditRecordSchema.shape.cluster.safeParse({ ...cluster, extra: 1 }).success).toBe(false);
  });
});
