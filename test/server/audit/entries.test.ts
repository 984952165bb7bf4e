/**
 * What an entry records of a call and of its approval request: the call's arguments as they arrived
 * (the `idempotency_key` kept, a secret in it removed), what its execution ran, and the requester's
 * reason on the request's events. Through the real serialisation (`sealRecord`), so a record that
 * verifies is what is asserted.
 */
import { describe, expect, it } from 'vitest';
import {
  approvalEventEntry,
  AuditRecordSchema,
  GENESIS_HASH,
  toolCallEntry,
} from '../../../server/audit/index.ts';
import { prepareEntry, sealRecord } from '../../../server/audit/seal.ts';
import type { StoredExecution } from '../../../server/gate/store/types.ts';
import { localIdentity } from '../../../server/identity.ts';
import type { ToolCall } from '../../../server/pipeline.ts';
import type { AuditEntry } from '../../../server/audit/index.ts';
import { approvalFixture } from '../../helpers/approvals.ts';
import { fixtureTools } from '../../helpers/fixture-tools.ts';

const tool = fixtureTools().registry.get('scale_thing')!;
const started = new Date('2025-01-31T02:14:00.000Z');

function call(args: Record<string, unknown>, notes: ToolCall['notes'] = {}): ToolCall {
  return { requestId: 'req-9', identity: localIdentity, tool, args, cluster: undefined, notes };
}

/** The entry as stored and read back (sealed, parsed by the strict schema). */
function stored(entry: AuditEntry) {
  const { json } = sealRecord(prepareEntry(entry), 1, GENESIS_HASH);
  return AuditRecordSchema.parse(JSON.parse(json));
}

const finished = (toolCall: ToolCall) =>
  stored(toolCallEntry({ call: toolCall, result: { content: [] }, startedAt: started, durationMs: 3 }));

describe('toolCallEntry', () => {
  it('keeps the idempotency_key a call carried (its name reads like a secret, its value is not one)', () => {
    const entry = finished(call({ namespace: 'shop', name: 'web', replicas: 2, idempotency_key: 'k-42' }));
    expect(entry.arguments.idempotency_key).toBe('k-42');
  });

  it('still removes a credential pasted into the idempotency_key', () => {
    const entry = finished(
      call({ namespace: 'shop', name: 'web', idempotency_key: 'Bearer abcdef0123456789abcdef' }),
    );
    expect(entry.arguments.idempotency_key).not.toContain('abcdef0123456789abcdef');
  });

  it('records what the execution ran beside the arguments the call arrived with', () => {
    const execution: StoredExecution = {
      id: 'exe_0123456789abcdef',
      requestId: 'apr_0123456789abcdef',
      requester: 'local',
      credential: '',
      cluster: '',
      clusterServer: '',
      tool: 'scale_thing',
      callKey: 'k',
      arguments: { namespace: 'shop', name: 'web', replicas: 2, reason: 'approved reason', password: 'p4ss' },
      authorization: 'once',
      status: 'succeeded',
      idempotencyKey: null,
      consumedGrant: true,
      effect: null,
      startedAt: '2025-01-31T02:14:00.001Z',
      finishedAt: null,
      outcome: 'scaled',
      result: null,
    };
    const entry = finished(call({ namespace: 'shop', name: 'web', reason: 'retry reason' }, { execution }));
    expect(entry.arguments.reason).toBe('retry reason');
    expect(entry.execution).toEqual({
      id: 'exe_0123456789abcdef',
      authorization: 'once',
      status: 'succeeded',
      started_at: '2025-01-31T02:14:00.001Z',
      settled_by: null,
      evidence: null,
      arguments: {
        namespace: 'shop',
        name: 'web',
        replicas: 2,
        reason: 'approved reason',
        password: '[REDACTED]',
      },
    });
  });

  it('has no execution for a call that started none', () => {
    expect(finished(call({ namespace: 'shop', name: 'web' }))).not.toHaveProperty('execution');
  });
});

describe('approvalEventEntry', () => {
  it("records the request's resolved call with the requester's reason", () => {
    const request = approvalFixture({ reason: 'checkout returns 502 since 02:10' });
    const entry = approvalEventEntry({ type: 'approval_created', request }, started)!;
    expect(stored(entry).arguments).toEqual({
      ...request.arguments,
      reason: 'checkout returns 502 since 02:10',
    });
  });

  it('adds no reason when the requester gave none', () => {
    const request = approvalFixture({ reason: null });
    const entry = approvalEventEntry({ type: 'approval_created', request }, started)!;
    expect(stored(entry).arguments).toEqual(request.arguments);
  });
});
