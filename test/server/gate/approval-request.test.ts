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
import { FIXTURES } from '../../helpers/approvals.ts';

const example: ApprovalRequest = FIXTURES.rollback_deployment;

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
