/**
 * Audit log fixtures: a complete `AuditEntry` (an allowed, successful `list_pods` call) to vary.
 */
import type { AuditEntry } from '../../server/audit/index.ts';

/** An allowed, successful `list_pods` call by `investigator`, with `overrides` applied. */
export function auditEntry(overrides: Partial<AuditEntry> = {}): AuditEntry {
  return {
    kind: 'tool_call',
    time: '2025-01-31T02:10:00.000Z',
    request_id: 'req-1',
    identity: 'investigator',
    cluster: { context: 'kind-sentinel', server: 'https://127.0.0.1:6443' },
    tool: 'list_pods',
    arguments: { namespace: 'shop' },
    rule: 'default:read',
    decision: 'allow',
    approval_request_id: null,
    approver: null,
    decision_time: null,
    reason: null,
    outcome: 'succeeded',
    duration_ms: 12.5,
    error: null,
    ...overrides,
  };
}
