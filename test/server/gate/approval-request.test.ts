import { describe, expect, it } from 'vitest';
import {
  ApprovalRequestSchema,
  ApproveBodySchema,
  CreateApprovalBodySchema,
  DenyBodySchema,
  DurationSchema,
  durationMs,
  type ApprovalRequest,
} from '../../../server/gate/approval-request.ts';

const example: ApprovalRequest = {
  id: 'apr_0123456789abcdef',
  status: 'pending',
  requester: 'investigator',
  created_by: 'investigator',
  cluster: { context: 'kind-sentinel', server: 'https://127.0.0.1:6443' },
  tool: 'rollback_deployment',
  risk: 'destructive',
  arguments: { namespace: 'shop', name: 'checkout', to_revision: 6 },
  requested_arguments: { namespace: 'shop', name: 'checkout' },
  reason: 'errors since 02:10',
  policy: {
    rule: 'default:destructive',
    rules: ['default:destructive'],
    reason: 'r',
    validity: 'once',
    approvers: ['role:approver'],
  },
  preview: { summary: 'Roll back', changes: [], warnings: [], effect: { generation: 7 }, text: 'preview' },
  created_at: '2025-01-31T02:10:00.000Z',
  expires_at: '2025-01-31T02:40:00.000Z',
  decision: null,
  grant: null,
  executions: [],
};

describe('ApprovalRequestSchema', () => {
  it('accepts a pending request and rejects an unknown status', () => {
    expect(ApprovalRequestSchema.parse(example)).toEqual(example);
    expect(ApprovalRequestSchema.safeParse({ ...example, status: 'maybe' }).success).toBe(false);
  });

  it('validates durations and grant validities', () => {
    expect(durationMs('15m')).toBe(900_000);
    expect(DurationSchema.safeParse('soon').success).toBe(false);
    expect(DurationSchema.safeParse('0s').success).toBe(false);
    expect(ApproveBodySchema.parse({ validity: { window: '15m' } })).toEqual({ validity: { window: '15m' } });
    expect(ApproveBodySchema.safeParse({ validity: 'twice' }).success).toBe(false);
    expect(ApproveBodySchema.safeParse({ valid: 'once' }).success).toBe(false);
  });

  it('requires a non-empty deny reason and defaults create arguments', () => {
    expect(DenyBodySchema.safeParse({ reason: '  ' }).success).toBe(false);
    expect(CreateApprovalBodySchema.parse({ requester: 'harness', tool: 'restart_service' })).toEqual({
      requester: 'harness',
      tool: 'restart_service',
      arguments: {},
    });
  });
});
