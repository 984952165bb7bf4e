/**
 * Every state change of an approval request or an execution leaves an audit record (issue 13,
 * finding 3): expiries found by a call rather than by the sweep, cancellations by revocation or by a
 * re-keyed requester, supersedes, and executions settled by the restart reconciler after a crash.
 * Real gate, real SQLite store and audit log, a fake cluster and a clock the test moves.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import pino from 'pino';
import {
  auditEventListener,
  auditSettledListener,
  createAuditMiddleware,
  openAuditLog,
  type AuditLog,
  type AuditRecord,
} from '../../../server/audit/index.ts';
import { approvedExecutions } from '../../../agent/investigator/unapproved-mutations.ts';
import { createApprovalsHub } from '../../../server/gate/events.ts';
import { createGate, openSqliteStore, parsePolicy, type Gate } from '../../../server/gate/index.ts';
import type { Identity } from '../../../server/identity.ts';
import { createToolCallPipeline } from '../../../server/pipeline.ts';
import { createRegistry, defineTool, type Tool } from '../../../tools/index.ts';
import { BASE_POLICY, identities as fixtureIdentities } from '../gate/fixtures/pipeline.ts';
import { FakeCluster } from '../gate/fixtures/fake-cluster.ts';
import { fixtureDeployment, fixtureTools } from '../gate/fixtures/tools.ts';
import { tempDataDir } from '../../helpers/server.ts';

const MINUTE = 60_000;
const checkout = { namespace: 'shop', name: 'checkout' };
const forever = () => new Promise<never>(() => {});

/** `scale_deployment` hangs after its PATCH reached the cluster, `pause_rollout` before sending. */
function hanging(tool: Tool): Tool {
  if (tool.name !== 'scale_deployment' && tool.name !== 'pause_rollout') return tool;
  return defineTool({
    ...tool,
    async handler(args, ctx) {
      if (ctx.dryRun) return tool.handler(args, ctx);
      if (tool.name === 'pause_rollout') return forever();
      await tool.handler(args, ctx);
      return forever();
    },
  }) as unknown as Tool;
}

describe('every state change leaves an audit record', () => {
  let dir: string;
  let cleanup: () => void;
  let log: AuditLog;
  let clock: Date;
  let cluster: FakeCluster;
  let people: Record<string, Identity>;
  let gates: Gate[];

  /** A gate over the store in `dir`, recording into `log` (a second one is the restarted server). */
  function startGate(tools: readonly Tool[] = fixtureTools) {
    const now = () => clock;
    const registry = createRegistry(tools);
    const hub = createApprovalsHub();
    const gate = createGate({
      registry,
      policy: parsePolicy(BASE_POLICY, 'policy.yaml', registry).policy,
      store: openSqliteStore({ dataDir: dir }),
      now,
      onEvent: (event) => hub.publish(event),
      findIdentity: (name) => people[name],
    });
    gates.push(gate);
    hub.provide(gate.approvals);
    hub.subscribe(auditEventListener(log, { now }));
    hub.subscribeSettled(auditSettledListener(log, { now }));
    const pipeline = createToolCallPipeline({
      registry,
      kube: () => ({
        configured: true,
        cluster: cluster.cluster,
        reader: cluster.reader,
        writer: cluster.writer,
      }),
      middlewares: [createAuditMiddleware({ log, now }), gate.middleware],
      logger: pino({ level: 'silent' }),
    });
    let sequence = 0;
    const call = (identity: Identity, name: string, args: Record<string, unknown>) =>
      pipeline({
        requestId: `req-${++sequence}`,
        identity,
        name,
        arguments: args,
        signal: new AbortController().signal,
      });
    return { gate, call };
  }

  beforeEach(() => {
    ({ dir, cleanup } = tempDataDir());
    clock = new Date('2025-01-31T02:10:00.000Z');
    cluster = new FakeCluster();
    cluster.add(fixtureDeployment('shop', 'checkout'));
    people = { ...fixtureIdentities };
    gates = [];
    log = openAuditLog(dir);
  });
  afterEach(async () => {
    for (const gate of gates) await gate.close().catch(() => undefined);
    log.close();
    cleanup();
  });

  const idOf = (result: { _meta?: Record<string, unknown> }) => result._meta!.approval_request_id as string;
  const lifecycle = (id: string) =>
    log
      .records()
      .filter((r) => r.kind === 'approval' && r.approval_request_id === id)
      .map((r) => r.outcome);

  it('records an expiry that a later identical call came across before the sweep did', async () => {
    const { gate, call } = startGate();
    const first = idOf(await call(people.agent!, 'scale_deployment', { ...checkout, replicas: 5 }));
    clock = new Date(clock.getTime() + 31 * MINUTE);
    const second = idOf(await call(people.agent!, 'scale_deployment', { ...checkout, replicas: 5 }));
    expect(second).not.toBe(first);
    await gate.approvals.sweep();
    expect(lifecycle(first)).toEqual(['created', 'expired']);
    expect(lifecycle(second)).toEqual(['created']);
  });

  it('records an unused grant that ended before its retry, as grant_expired', async () => {
    const { gate, call } = startGate();
    const id = idOf(await call(people.agent!, 'scale_deployment', { ...checkout, replicas: 5 }));
    await gate.approvals.approve(id, people.alice!, {});
    clock = new Date(clock.getTime() + 31 * MINUTE);
    await call(people.agent!, 'pause_rollout', checkout); // any held call expires what is due
    await gate.close(); // shutdown reports what expired since the last sweep
    expect(lifecycle(id)).toEqual(['created', 'approved', 'grant_expired']);
  });

  it('records the cancellation of a pending request when its requester comes back with a new token', async () => {
    const { call } = startGate();
    const before = { ...people.agent!, credential: 'old-token' };
    const id = idOf(await call(before, 'scale_deployment', { ...checkout, replicas: 5 }));
    const after = { ...people.agent!, credential: 'new-token' };
    people.agent = after;
    const fresh = idOf(await call(after, 'scale_deployment', { ...checkout, replicas: 5 }));
    expect(fresh).not.toBe(id);
    const cancelled = log.records().find((r) => r.approval_request_id === id && r.outcome === 'cancelled');
    expect(cancelled).toMatchObject({
      identity: 'sentinel',
      reason: expect.stringMatching(/different token/),
    });
  });

  it('records cancellations by revocation', async () => {
    const { gate, call } = startGate();
    const pending = idOf(await call(people.agent!, 'scale_deployment', { ...checkout, replicas: 5 }));
    const granted = idOf(await call(people.agent!, 'pause_rollout', checkout));
    await gate.approvals.approve(granted, people.alice!, {});
    delete people.agent;
    await gate.approvals.sweep();
    expect(lifecycle(pending)).toEqual(['created', 'cancelled']);
    expect(lifecycle(granted)).toEqual(['created', 'approved', 'cancelled']);
    expect(log.records().at(-1)?.reason).toMatch(/identity 'agent' was revoked/);
  });

  it('records a supersede, linked to the request that replaced it', async () => {
    const { call } = startGate();
    const id = idOf(await call(people.agent!, 'scale_deployment', { ...checkout, replicas: 5 }));
    await cluster.writer.patchDeploymentStrategic(
      'shop',
      'checkout',
      { spec: { replicas: 2 } },
      { fieldManager: 'test' },
    );
    const fresh = idOf(await call(people.agent!, 'scale_deployment', { ...checkout, replicas: 5 }));
    expect(fresh).not.toBe(id);
    expect(lifecycle(id)).toEqual(['created', 'superseded']);
    expect(log.records().find((r) => r.outcome === 'superseded')?.reason).toMatch(/effect changed/);
  });

  it('records executions the restart reconciler settles, with the execution id and the evidence', async () => {
    const crashed = startGate(fixtureTools.map(hanging));
    const scale = idOf(await crashed.call(people.agent!, 'scale_deployment', { ...checkout, replicas: 5 }));
    const pause = idOf(await crashed.call(people.agent!, 'pause_rollout', checkout));
    await crashed.gate.approvals.approve(scale, people.alice!, {});
    await crashed.gate.approvals.approve(pause, people.alice!, {});
    // Both retries hang inside their handlers; the server "crashes" and restarts.
    void crashed.call(people.agent!, 'scale_deployment', { ...checkout, replicas: 5 });
    void crashed.call(people.agent!, 'pause_rollout', checkout);
    for (let i = 0; i < 100 && cluster.deployment('shop', 'checkout').spec?.replicas !== 5; i++) {
      await new Promise((resolve) => setImmediate(resolve));
    }
    expect(cluster.deployment('shop', 'checkout').spec?.replicas).toBe(5);
    const generation = cluster.deployment('shop', 'checkout').metadata?.generation;

    // The crashed process is gone: its store closes and hands the running executions over
    // (an execution of a live process is never settled by another, sqlite-owner.ts).
    await crashed.gate.close();
    const restarted = startGate();
    const report = await restarted.gate.reconcile(cluster.reader);
    expect(report.applied).toHaveLength(1);
    expect(report.notApplied).toHaveLength(1);
    const settled = log.records().filter((r) => r.kind === 'execution');
    expect(settled).toEqual([
      expect.objectContaining({
        identity: 'agent',
        tool: 'scale_deployment',
        approval_request_id: scale,
        approver: 'alice',
        outcome: 'succeeded',
        reason: expect.stringMatching(/reached the cluster/),
        execution: expect.objectContaining({
          id: expect.stringMatching(/^exe_/),
          authorization: 'once',
          settled_by: 'reconcile',
          evidence: {
            namespace: 'shop',
            name: 'checkout',
            generation_before: 1,
            generation_observed: generation,
            approval_request_annotation: scale,
          },
        }),
      }),
      expect.objectContaining({
        tool: 'pause_rollout',
        approval_request_id: pause,
        outcome: 'interrupted',
        execution: expect.objectContaining({
          evidence: expect.objectContaining({ approval_request_annotation: scale }),
        }),
      }),
    ]);
    // The eval's accounting: the change that reached the cluster is an approved execution.
    expect(approvedExecutions(log.records() as AuditRecord[]).map((e) => e.approvalRequestId)).toEqual([
      scale,
    ]);
    expect(log.verify().broken).toBeUndefined();
  });
});
