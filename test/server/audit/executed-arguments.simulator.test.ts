/**
 * The audit record of an approved call that executed tells what ran (fresh-user finding): `reason`
 * and `idempotency_key` are never matched, so a retry that spells them differently still consumes
 * the grant. What runs is the approved request's resolved call with the requester's reason — the
 * one the approver read, stamped on the Deployment (`sentinel.dev/reason`). The executed entry keeps
 * the retry's arguments as sent (`arguments`) and records what ran (`execution.arguments`); the
 * approval events of its request carry the requester's reason. Against the embedded simulator.
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../deploy/sim/index.ts';
import { allTools } from '../../../tools/index.ts';
import { connectKube } from '../../../tools/kube/connect.ts';
import { openAuditLog, type AuditRecord } from '../../../server/audit/index.ts';
import { PendingResultMetaSchema } from '../../../server/gate/index.ts';
import { connectClient, tempDataDir } from '../../helpers/server.ts';
import { startGateServer, type GateServer } from '../gate/fixtures/serve.ts';

const checkout = { namespace: 'shop', name: 'checkout' };
const data = tempDataDir();
const kubeconfig = join(data.dir, 'kubeconfig');
let sim: Simulator;
let s: GateServer;
beforeAll(async () => {
  sim = await startSimulator({ scenario: 'bad-image-rollout', timeScale: 0, kubeconfigPath: kubeconfig });
  s = await startGateServer({ kube: connectKube({ kubeconfig }), tools: allTools });
});
afterAll(async () => {
  await s?.close();
  await sim?.close();
  data.cleanup();
});

/** The audit log's records, checked to verify (the server is running: SQLite's WAL lets a reader in). */
function records(): AuditRecord[] {
  const log = openAuditLog(s.dataDir, { mustExist: true });
  try {
    expect(log.verify().broken).toBeUndefined();
    return log.records();
  } finally {
    log.close();
  }
}

/** The Deployment's annotations as the cluster has them now. */
async function annotations(): Promise<Record<string, string>> {
  const kube = connectKube({ kubeconfig });
  if (!kube.configured) throw new Error(kube.reason);
  const deployment = await kube.reader.getDeployment('shop', 'checkout');
  return deployment.metadata?.annotations ?? {};
}

/** Holds `first`, approves it as alice, retries with `retry`; returns the request id. */
async function holdApproveRetry(
  first: Record<string, unknown>,
  retry: Record<string, unknown>,
): Promise<{
  id: string;
  executed: Awaited<ReturnType<Awaited<ReturnType<typeof connectClient>>['callTool']>>;
}> {
  const agent = await connectClient(s.url, s.tokens.agent);
  try {
    const held = await agent.callTool({ name: 'rollback_deployment', arguments: first });
    if (held.isError) throw new Error(JSON.stringify(held));
    const id = PendingResultMetaSchema.parse(held._meta).approval_request_id;
    expect((await s.api(s.tokens.alice, 'POST', `/approvals/${id}/approve`)).status).toBe(200);
    const executed = await agent.callTool({ name: 'rollback_deployment', arguments: retry });
    return { id, executed };
  } finally {
    await agent.close();
  }
}

describe(
  'the executed entry of an approved call retried with other free-text arguments',
  { timeout: 120_000 },
  () => {
    it('keeps the retry as sent, records what ran with the approved reason, and links the request', async () => {
      const { id, executed } = await holdApproveRetry(
        { ...checkout, reason: 'A: checkout 502s since the 2.4.1 rollout' },
        { ...checkout, reason: 'B: rolling back as approved' },
      );
      expect(executed._meta).toMatchObject({ approval_status: 'executed', approval_request_id: id });
      // What ran carried the reason the approver read.
      expect((await annotations())['sentinel.dev/reason']).toBe('A: checkout 502s since the 2.4.1 rollout');

      const log = records();
      const calls = log.filter((r) => r.kind === 'tool_call' && r.approval_request_id === id);
      expect(calls.map((r) => r.outcome)).toEqual(['held', 'succeeded']);
      const [held, ran] = calls as [AuditRecord, AuditRecord];
      expect(held.arguments).toMatchObject({ reason: 'A: checkout 502s since the 2.4.1 rollout' });
      // The executing call as it arrived ...
      expect(ran.arguments).toEqual({ ...checkout, dry_run: false, reason: 'B: rolling back as approved' });
      // ... and what it ran: the approved request's resolved call, with the requester's reason.
      expect(ran.execution).toMatchObject({
        authorization: 'once',
        status: 'succeeded',
        settled_by: null,
        evidence: null,
        arguments: { ...checkout, to_revision: 2, reason: 'A: checkout 502s since the 2.4.1 rollout' },
      });
      expect(ran.execution?.id).toBe(executed._meta?.execution_id);
      // The request's own events carry the reason it was approved with.
      const events = log.filter((r) => r.kind === 'approval' && r.approval_request_id === id);
      expect(events.map((r) => r.outcome)).toEqual(['created', 'approved']);
      for (const event of events) {
        expect(event.arguments).toMatchObject({ reason: 'A: checkout 502s since the 2.4.1 rollout' });
      }
    });

    it('records a dry run as a call that executed nothing', async () => {
      const before = await annotations();
      const agent = await connectClient(s.url, s.tokens.agent);
      try {
        const preview = await agent.callTool({
          name: 'rollback_deployment',
          arguments: { ...checkout, dry_run: true, reason: 'just looking' },
        });
        expect(preview.isError).toBeFalsy();
      } finally {
        await agent.close();
      }
      const entry = records().at(-1)!;
      expect(entry).toMatchObject({ kind: 'tool_call', outcome: 'succeeded', approval_request_id: null });
      expect(entry.arguments).toMatchObject({ dry_run: true, reason: 'just looking' });
      expect(entry).not.toHaveProperty('execution');
      expect(await annotations()).toEqual(before);
    });

    it('records the idempotency_key the executing call carried, and what ran without it', async () => {
      // Back to revision 1 (2.3.9): a change the first test's rollback left to make.
      const { id, executed } = await holdApproveRetry(
        { ...checkout, to_revision: 1, reason: 'undo', idempotency_key: 'key-held' },
        { ...checkout, to_revision: 1, reason: 'undo', idempotency_key: 'key-retry' },
      );
      expect(executed._meta).toMatchObject({ approval_status: 'executed', approval_request_id: id });
      const calls = records().filter((r) => r.kind === 'tool_call' && r.approval_request_id === id);
      expect(calls.map((r) => [r.outcome, r.arguments.idempotency_key])).toEqual([
        ['held', 'key-held'],
        ['succeeded', 'key-retry'],
      ]);
      const ran = calls[1]!;
      expect(ran.execution?.arguments).toEqual({ ...checkout, to_revision: 1, reason: 'undo' });
      // The key the execution is stored under is the retry's: reusing it replays that execution.
      const agent = await connectClient(s.url, s.tokens.agent);
      try {
        const again = await agent.callTool({
          name: 'rollback_deployment',
          arguments: { ...checkout, to_revision: 1, reason: 'undo', idempotency_key: 'key-retry' },
        });
        expect(again._meta).toMatchObject({ idempotent_replay: true, execution_id: ran.execution?.id });
      } finally {
        await agent.close();
      }
    });
  },
);
