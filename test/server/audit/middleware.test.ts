import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import {
  approvalEventEntry,
  createAuditMiddleware,
  openAuditLog,
  type AuditLog,
} from '../../../server/audit/index.ts';
import type { ApprovalRequest } from '../../../server/gate/approval-request.ts';
import { localIdentity } from '../../../server/identity.ts';
import { createToolCallPipeline, type ToolCallMiddleware } from '../../../server/pipeline.ts';
import { approvalFixture } from '../../helpers/approvals.ts';
import { fixtureTools } from '../../helpers/fixture-tools.ts';
import { fakeKube, tempDataDir } from '../../helpers/server.ts';

const approved = approvalFixture({
  id: 'apr_approved00000000',
  status: 'executed',
  decision: {
    decision: 'allow',
    by: 'alice',
    at: '2025-01-31T02:12:00.000Z',
    reason: null,
    admin_fallback: false,
  },
  grant: { validity: 'once', expires_at: '2025-01-31T02:40:00.000Z' },
});
const denied = approvalFixture({
  id: 'apr_denied0000000000',
  status: 'denied',
  decision: {
    decision: 'deny',
    by: 'bob',
    at: '2025-01-31T02:12:30.000Z',
    reason: 'wrong revision',
    admin_fallback: false,
  },
});
const pending = approvalFixture({ id: 'apr_pending000000000' });
const requests = new Map<string, ApprovalRequest>([approved, denied, pending].map((r) => [r.id, r]));

const gateResult = (text: string, meta: Record<string, unknown>, isError = false): CallToolResult => ({
  content: [{ type: 'text', text }],
  ...(isError && { isError: true }),
  _meta: meta,
});

/** Stands in for the approval gate: what it decides per scenario, as results and notes. */
const gate: ToolCallMiddleware = async (call, next) => {
  const scenario = call.args.name;
  switch (scenario) {
    case 'held':
      call.notes.gate = { rule: 'ask-writes', decision: 'ask', approvalRequestId: pending.id };
      return gateResult('Approval required', { approval_status: 'pending', approval_request_id: pending.id });
    case 'approved': {
      call.notes.gate = { rule: 'ask-writes', decision: 'ask', approvalRequestId: approved.id };
      const result = await next();
      return { ...result, _meta: { approval_status: 'executed', approval_request_id: approved.id } };
    }
    case 'human-denied':
      return gateResult('denied by bob', { approval_status: 'denied', approval_request_id: denied.id }, true);
    case 'policy-denied':
      return gateResult(
        "Denied by policy rule 'no-kube-system'",
        { approval_status: 'denied', policy_rule: 'no-kube-system' },
        true,
      );
    default:
      call.notes.gate = { rule: 'default:read', decision: 'allow' };
      return next();
  }
};

describe('audit middleware', () => {
  let dir: string;
  let cleanup: () => void;
  let log: AuditLog;
  beforeEach(() => {
    ({ dir, cleanup } = tempDataDir());
    log = openAuditLog(dir);
  });
  afterEach(() => {
    log.close();
    cleanup();
  });

  function pipeline() {
    const { registry } = fixtureTools();
    const audit = createAuditMiddleware({
      log,
      now: () => new Date('2025-01-31T02:13:00.000Z'),
      approval: async (id) => requests.get(id),
    });
    const run = createToolCallPipeline({
      registry,
      kube: () => fakeKube(),
      middlewares: [audit, gate],
      logger: pino({ level: 'silent' }),
    });
    return (name: string, args: Record<string, unknown>) =>
      run({
        requestId: `req-${String(args.name)}`,
        identity: localIdentity,
        name,
        arguments: args,
        signal: new AbortController().signal,
      });
  }

  it('writes one record per call: allowed, held, approved, denied (human and policy), failed', async () => {
    const call = pipeline();
    await call('read_thing', { namespace: 'shop', name: 'allowed' });
    await call('pause_thing', { namespace: 'shop', name: 'held' });
    await call('pause_thing', { namespace: 'shop', name: 'approved' });
    await call('pause_thing', { namespace: 'shop', name: 'human-denied' });
    await call('pause_thing', { namespace: 'kube-system', name: 'policy-denied' });
    await call('failing_thing', {});
    const records = log.records();
    const summary = records.map((r) => [
      r.tool,
      r.outcome,
      r.rule,
      r.decision,
      r.approval_request_id,
      r.approver,
      r.decision_time,
    ]);
    expect(summary).toEqual([
      ['read_thing', 'succeeded', 'default:read', 'allow', null, null, null],
      ['pause_thing', 'held', 'ask-writes', 'ask', pending.id, null, null],
      ['pause_thing', 'succeeded', 'ask-writes', 'ask', approved.id, 'alice', '2025-01-31T02:12:00.000Z'],
      ['pause_thing', 'denied', 'prod-destructive', 'ask', denied.id, 'bob', '2025-01-31T02:12:30.000Z'],
      ['pause_thing', 'denied', 'no-kube-system', 'deny', null, null, null],
      ['failing_thing', 'failed', 'default:read', 'allow', null, null, null],
    ]);
    const first = records[0]!;
    expect(first).toMatchObject({
      kind: 'tool_call',
      time: '2025-01-31T02:13:00.000Z',
      request_id: 'req-allowed',
      identity: 'local',
      cluster: { context: 'test-context', server: 'https://127.0.0.1:6443' },
      arguments: { namespace: 'shop', name: 'allowed' },
      error: null,
    });
    expect(first.duration_ms).toBeGreaterThanOrEqual(0);
    expect(records[5]!.error).toEqual({
      code: 'not_found',
      message: "Deployment 'web' not found in namespace 'prod'.",
    });
    expect(records[4]!.error).toEqual({ code: 'denied', message: "Denied by policy rule 'no-kube-system'" });
    expect(log.verify().broken).toBeUndefined();
  });

  it('redacts arguments', async () => {
    const call = pipeline();
    await call('read_thing', { namespace: 'shop', name: 'password=hunter2' });
    expect(log.records()[0]!.arguments).toEqual({ namespace: 'shop', name: 'password=[REDACTED]' });
  });

  it('never changes the result when the record cannot be written, and logs and counts the failure', async () => {
    const { registry } = fixtureTools();
    const broken = {
      append: () => Promise.reject(new Error('disk full')),
    } as unknown as AuditLog;
    const errors: unknown[] = [];
    const failures: unknown[] = [];
    const logger = pino({ level: 'error' }, { write: (line: string) => errors.push(JSON.parse(line)) });
    const run = createToolCallPipeline({
      registry,
      kube: () => fakeKube(),
      middlewares: [
        createAuditMiddleware({ log: broken, logger, onWriteError: (error) => failures.push(error) }),
      ],
      logger: pino({ level: 'silent' }),
    });
    const result = await run({
      requestId: 'r',
      identity: localIdentity,
      name: 'read_thing',
      arguments: { namespace: 'a', name: 'b' },
      signal: new AbortController().signal,
    });
    expect(result.isError).toBeUndefined();
    expect(errors).toEqual([
      expect.objectContaining({ msg: 'audit record not written', tool: 'read_thing' }),
    ]);
    expect(failures).toEqual([new Error('disk full')]);
  });
});

describe('approval event records', () => {
  const now = new Date('2025-01-31T02:45:00.000Z');
  it('records creation, decisions, withdrawal and expiry; skips reuse', () => {
    expect(approvalEventEntry({ type: 'approval_created', request: pending }, now)).toMatchObject({
      kind: 'approval',
      outcome: 'created',
      identity: 'investigator',
      decision: 'ask',
      time: pending.created_at,
      rule: 'prod-destructive',
    });
    expect(approvalEventEntry({ type: 'approval_reused', request: pending }, now)).toBeUndefined();
    expect(approvalEventEntry({ type: 'approval_decided', request: denied }, now)).toMatchObject({
      outcome: 'denied',
      identity: 'bob',
      decision: 'deny',
      reason: 'wrong revision',
      approver: 'bob',
      time: '2025-01-31T02:12:30.000Z',
    });
    expect(approvalEventEntry({ type: 'approval_decided', request: approved }, now)).toMatchObject({
      outcome: 'approved',
      identity: 'alice',
      decision: 'allow',
    });
    expect(
      approvalEventEntry({ type: 'approval_withdrawn', request: { ...pending, status: 'withdrawn' } }, now),
    ).toMatchObject({ outcome: 'withdrawn', identity: 'investigator' });
    expect(
      approvalEventEntry({ type: 'approval_expired', request: { ...pending, status: 'expired' } }, now),
    ).toMatchObject({
      outcome: 'expired',
      identity: 'sentinel',
      time: now.toISOString(),
      approver: null,
    });
    expect(
      approvalEventEntry({ type: 'approval_expired', request: { ...approved, status: 'expired' } }, now),
    ).toMatchObject({ outcome: 'grant_expired' });
  });
});
