/**
 * Audit records and metrics through the real approval gate, with a clock the test moves: a scripted
 * sequence of calls and decisions (allowed, held, approved, executed, denied, expired, re-requested,
 * withdrawn, policy-denied, failed), then the audit log and the metric values it must leave.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import {
  auditEventListener,
  createAuditMiddleware,
  openAuditLog,
  type AuditLog,
} from '../../server/audit/index.ts';
import { createApprovalsHub } from '../../server/gate/events.ts';
import { createGate, openSqliteStore, parsePolicy, type Gate } from '../../server/gate/index.ts';
import {
  approvalMetricsListener,
  createMetrics,
  createMetricsMiddleware,
  type SentinelMetrics,
} from '../../server/metrics/index.ts';
import { createToolCallPipeline } from '../../server/pipeline.ts';
import { createRegistry } from '../../tools/registry.ts';
import { BASE_POLICY, identities } from './gate/fixtures/pipeline.ts';
import { FakeCluster } from './gate/fixtures/fake-cluster.ts';
import { fixtureDeployment, fixtureTools } from './gate/fixtures/tools.ts';
import { tempDataDir } from '../helpers/server.ts';

const MINUTE = 60_000;

describe('audit and metrics through the approval gate', () => {
  let dir: string;
  let cleanup: () => void;
  let log: AuditLog;
  let gate: Gate;
  let metrics: SentinelMetrics;
  let clock: Date;
  let call: (
    identity: string,
    tool: string,
    args: Record<string, unknown>,
  ) => Promise<{ _meta?: Record<string, unknown>; isError?: boolean }>;

  beforeEach(() => {
    ({ dir, cleanup } = tempDataDir());
    clock = new Date('2025-01-31T02:10:00.000Z');
    const now = () => clock;
    const registry = createRegistry(fixtureTools);
    const cluster = new FakeCluster();
    cluster.add(fixtureDeployment('shop', 'checkout'));
    const hub = createApprovalsHub();
    gate = createGate({
      registry,
      policy: parsePolicy(BASE_POLICY, 'policy.yaml', registry).policy,
      store: openSqliteStore({ file: ':memory:' }),
      now,
      onEvent: (event) => hub.publish(event),
      findIdentity: (name) => identities[name],
    });
    hub.provide(gate.approvals);
    metrics = createMetrics({ processMetrics: false });
    log = openAuditLog(dir);
    hub.subscribe(approvalMetricsListener(metrics));
    hub.subscribe(auditEventListener(log, { now }));
    const pipeline = createToolCallPipeline({
      registry,
      kube: () => ({
        configured: true,
        cluster: cluster.cluster,
        reader: cluster.reader,
        writer: cluster.writer,
      }),
      middlewares: [createMetricsMiddleware(metrics), createAuditMiddleware({ log, now }), gate.middleware],
      logger: pino({ level: 'silent' }),
    });
    let sequence = 0;
    call = (identity, name, args) =>
      pipeline({
        requestId: `req-${++sequence}`,
        identity: identities[identity]!,
        name,
        arguments: args,
        signal: new AbortController().signal,
      });
  });
  afterEach(async () => {
    await gate.close();
    log.close();
    cleanup();
  });

  const idOf = (result: { _meta?: Record<string, unknown> }) => result._meta!.approval_request_id as string;
  const checkout = { namespace: 'shop', name: 'checkout' };

  async function script() {
    await call('agent', 'get_version', {}); // allowed
    const a = idOf(await call('agent', 'scale_deployment', { ...checkout, replicas: 5 })); // held
    clock = new Date(clock.getTime() + 90_000);
    await gate.approvals.approve(a, identities.alice!, {}); // approved after 90 s
    await call('agent', 'scale_deployment', { ...checkout, replicas: 5 }); // executed
    const b = idOf(await call('agent', 'scale_deployment', { ...checkout, replicas: 0 })); // held
    clock = new Date(clock.getTime() + 30_000);
    await gate.approvals.deny(b, identities.bob!, 'we need the capacity'); // denied after 30 s
    await call('agent', 'scale_deployment', { ...checkout, replicas: 0 }); // denied (human)
    const c = idOf(await call('agent', 'pause_rollout', checkout)); // held
    clock = new Date(clock.getTime() + 31 * MINUTE);
    await gate.approvals.sweep(); // c expires unanswered
    const d = idOf(await call('agent', 'pause_rollout', checkout)); // re-request after expiry
    await gate.approvals.withdraw(d, identities.agent!);
    await call('agent', 'scale_deployment', { namespace: 'kube-system', name: 'coredns', replicas: 1 }); // policy deny
    await call('agent', 'get_version', { unexpected: true }); // invalid: rejected before the middlewares
    await call('agent', 'rollback_deployment', { namespace: 'shop', name: 'ghost' }); // preview fails
    return { a, b, c, d };
  }

  it('leaves one audit record per call and per approval event, chained and verifiable', async () => {
    const { a, b, c, d } = await script();
    const records = log.records();
    const rows = records.map((r) => [
      r.kind,
      r.tool,
      r.outcome,
      r.identity,
      r.rule,
      r.decision,
      r.approval_request_id,
      r.approver,
    ]);
    expect(rows).toEqual([
      ['tool_call', 'get_version', 'succeeded', 'agent', 'default:read', 'allow', null, null],
      ['approval', 'scale_deployment', 'created', 'agent', 'default:destructive', 'ask', a, null],
      ['tool_call', 'scale_deployment', 'held', 'agent', 'default:destructive', 'ask', a, null],
      ['approval', 'scale_deployment', 'approved', 'alice', 'default:destructive', 'allow', a, 'alice'],
      ['tool_call', 'scale_deployment', 'succeeded', 'agent', 'default:destructive', 'ask', a, 'alice'],
      ['approval', 'scale_deployment', 'created', 'agent', 'scale-to-zero', 'ask', b, null],
      ['tool_call', 'scale_deployment', 'held', 'agent', 'scale-to-zero', 'ask', b, null],
      ['approval', 'scale_deployment', 'denied', 'bob', 'scale-to-zero', 'deny', b, 'bob'],
      ['tool_call', 'scale_deployment', 'denied', 'agent', 'scale-to-zero', 'ask', b, 'bob'],
      ['approval', 'pause_rollout', 'created', 'agent', 'default:write', 'ask', c, null],
      ['tool_call', 'pause_rollout', 'held', 'agent', 'default:write', 'ask', c, null],
      ['approval', 'pause_rollout', 'expired', 'sentinel', 'default:write', 'ask', c, null],
      ['approval', 'pause_rollout', 'created', 'agent', 'default:write', 'ask', d, null],
      ['tool_call', 'pause_rollout', 'held', 'agent', 'default:write', 'ask', d, null],
      ['approval', 'pause_rollout', 'withdrawn', 'agent', 'default:write', 'ask', d, null],
      ['tool_call', 'scale_deployment', 'denied', 'agent', 'system-namespaces', 'deny', null, null],
      ['tool_call', 'rollback_deployment', 'failed', 'agent', 'default:destructive', 'ask', null, null],
    ]);
    const executed = records[4]!;
    expect(executed.decision_time).toBe('2025-01-31T02:11:30.000Z');
    expect(executed.arguments).toEqual({ ...checkout, replicas: 5, dry_run: false });
    expect(records[7]!.reason).toBe('we need the capacity');
    expect(records[15]!.error).toEqual({
      code: 'denied',
      message: "Denied by policy rule 'system-namespaces': System namespaces are off limits.",
    });
    expect(records[16]!.error?.message).toMatch(/ghost/);
    expect(log.verify()).toEqual({ records: 17, head: records[16]!.hash });
  });

  it('reports the gate in the metrics after the sequence', async () => {
    await script();
    const json = await metrics.registry.getMetricsAsJSON();
    const values = (name: string) =>
      Object.fromEntries(
        json
          .find((m) => m.name === name)!
          .values.filter((v) => !('le' in v.labels))
          .map((v) => [
            Object.values(v.labels).join('/') +
              ((v as { metricName?: string }).metricName?.endsWith('_count')
                ? ':count'
                : (v as { metricName?: string }).metricName?.endsWith('_sum')
                  ? ':sum'
                  : ''),
            v.value,
          ]),
      );
    expect(values('sentinel_tool_calls_total')).toEqual({
      'get_version/succeeded': 1,
      'scale_deployment/held': 2,
      'scale_deployment/succeeded': 1,
      'scale_deployment/denied': 2,
      'pause_rollout/held': 2,
      'rollback_deployment/failed': 1,
    });
    expect(values('sentinel_approval_requests_created_total')).toEqual({
      scale_deployment: 2,
      pause_rollout: 2,
    });
    expect(values('sentinel_approval_requests_settled_total')).toEqual({
      'scale_deployment/approved': 1,
      'scale_deployment/denied': 1,
      'pause_rollout/expired': 1,
      'pause_rollout/withdrawn': 1,
    });
    expect(values('sentinel_approval_decision_seconds')).toEqual({
      'scale_deployment/allow:sum': 90,
      'scale_deployment/allow:count': 1,
      'scale_deployment/deny:sum': 30,
      'scale_deployment/deny:count': 1,
    });
    expect(values('sentinel_approval_rerequests_after_expiry_total')).toEqual({ pause_rollout: 1 });
    expect(values('sentinel_approval_grants_total')).toEqual({ 'scale_deployment/once': 1 });
    const text = await metrics.registry.metrics();
    expect(text).toContain('sentinel_tool_call_duration_seconds_count{tool="scale_deployment"} 5');
    expect(text).toContain(
      'sentinel_approval_decision_seconds_bucket{le="120",tool="scale_deployment",decision="allow"} 1',
    );
    expect(text).toContain(
      'sentinel_approval_decision_seconds_bucket{le="60",tool="scale_deployment",decision="allow"} 0',
    );
  });
});
