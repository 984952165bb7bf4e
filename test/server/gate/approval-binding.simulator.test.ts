/**
 * What an approval binds, against the simulator with the production tools: what the approver saw
 * (the target's uid, revisions, template digests, images, the ReplicaSet restored, replica counts),
 * not `metadata.generation`. An autoscaler scaling the Deployment between approval and execution
 * moves its generation; an approved rollback or restart must still run, an approved scale must not
 * (its `replicas_from` moved), and someone else's rollout must make any of them stale.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import { afterAll, afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../deploy/sim/index.ts';
import { allTools } from '../../../tools/index.ts';
import { connectKube } from '../../../tools/kube/connect.ts';
import type { KubeReader, KubeWriter } from '../../../tools/kube/types.ts';
import { PendingResultMetaSchema } from '../../../server/gate/index.ts';
import { connectClient, tempDataDir } from '../../helpers/server.ts';
import { startGateServer, type GateServer } from './fixtures/serve.ts';

const checkout = { namespace: 'shop', name: 'checkout' };
const data = tempDataDir();
let sim: Simulator | undefined;
let s: GateServer;
let agent: Client;
let kube: { reader: KubeReader; writer: KubeWriter };

// A fresh simulator and server per test (each test changes shop/checkout): generous timeout for a
// loaded two-core machine.
beforeEach(async () => {
  const kubeconfig = join(data.dir, `kubeconfig-${Date.now()}-${Math.random()}`);
  sim = await startSimulator({ scenario: 'bad-image-rollout', timeScale: 0, kubeconfigPath: kubeconfig });
  const connection = connectKube({ kubeconfig });
  if (!connection.configured) throw new Error(connection.reason);
  kube = connection;
  s = await startGateServer({ kube: connection, tools: allTools });
  agent = await connectClient(s.url, s.tokens.agent);
}, 120_000);
afterEach(async () => {
  await agent?.close();
  await s?.close();
  await sim?.close();
});
afterAll(() => data.cleanup());

const text = (result: unknown): string =>
  ((result as { content?: { type: string; text?: string }[] }).content ?? [])
    .map((item) => item.text ?? '')
    .join('\n');

/** Holds the call and approves its request; returns the request id. */
async function approved(tool: string, args: Record<string, unknown>): Promise<string> {
  const held = await agent.callTool({ name: tool, arguments: args });
  if (held.isError) throw new Error(text(held));
  const id = PendingResultMetaSchema.parse(held._meta).approval_request_id;
  expect((await s.api(s.tokens.alice, 'POST', `/approvals/${id}/approve`)).status).toBe(200);
  return id;
}

/** What an HorizontalPodAutoscaler does: `spec.replicas` through the scale subresource. */
async function autoscale(replicas: number): Promise<number> {
  const before = (await kube.reader.getDeployment('shop', 'checkout')).metadata?.generation ?? 0;
  await kube.writer.patchDeploymentScale('shop', 'checkout', { spec: { replicas } }, { fieldManager: 'hpa' });
  const after = (await kube.reader.getDeployment('shop', 'checkout')).metadata?.generation ?? 0;
  expect(after).toBeGreaterThan(before); // the autoscaler's change moves metadata.generation
  return after;
}

/** Rewrites a stored request's effect as a Sentinel before this change recorded it: its target carried the generation. */
function oldShape(id: string, generation: number): void {
  const db = new DatabaseSync(join(s.dataDir, 'sentinel.db'));
  try {
    const row = db.prepare('SELECT preview_json FROM approval_requests WHERE id = ?').get(id) as {
      preview_json: string;
    };
    const preview = JSON.parse(row.preview_json);
    preview.effect.target.generation = generation;
    db.prepare('UPDATE approval_requests SET preview_json = ? WHERE id = ?').run(JSON.stringify(preview), id);
  } finally {
    db.close();
  }
}

describe('an approval binds what the approver saw, not metadata.generation', { timeout: 240_000 }, () => {
  it('runs an approved rollback after an autoscaler scaled the Deployment', async () => {
    const args = { ...checkout, reason: '502s' };
    const id = await approved('rollback_deployment', args);
    await autoscale(5);
    const run = await agent.callTool({ name: 'rollback_deployment', arguments: args });
    expect(text(run)).not.toContain('stale');
    expect(run._meta).toMatchObject({ approval_status: 'executed', approval_request_id: id });
    const deployment = await kube.reader.getDeployment('shop', 'checkout');
    expect(deployment.spec?.template?.spec?.containers?.[0]?.image).toMatch(/checkout:2\.4\.0$/);
    expect(deployment.spec?.replicas).toBe(5); // the rollback left the autoscaler's count alone
  });

  it('runs an approved restart after an autoscaler scaled the Deployment', async () => {
    const id = await approved('restart_service', checkout);
    await autoscale(4);
    const run = await agent.callTool({ name: 'restart_service', arguments: checkout });
    expect(text(run)).not.toContain('stale');
    expect(run._meta).toMatchObject({ approval_status: 'executed', approval_request_id: id });
  });

  it("refuses an approved rollback as stale after someone else's rollout, naming both template digests whole", async () => {
    const args = { ...checkout, reason: '502s' };
    await approved('rollback_deployment', args);
    const before = await kube.reader.getDeployment('shop', 'checkout');
    const container = before.spec!.template!.spec!.containers[0]!.name;
    await kube.writer.patchDeploymentStrategic(
      'shop',
      'checkout',
      { spec: { template: { spec: { containers: [{ name: container, image: 'shop/checkout:2.4.2' }] } } } },
      { fieldManager: 'kubectl' },
    );
    const run = await agent.callTool({ name: 'rollback_deployment', arguments: args });
    expect(run.isError).toBe(true);
    expect(run._meta).toMatchObject({ approval_status: 'stale' });
    expect(text(run)).toMatch(/from_template: "[0-9a-f]{16}" → "[0-9a-f]{16}"/);
    expect(text(run)).not.toContain('...');
    expect(text(run)).not.toContain('generation');
    expect(text(run)).toContain('A fresh approval is needed');
    const after = await kube.reader.getDeployment('shop', 'checkout');
    expect(after.spec?.template?.spec?.containers?.[0]?.image).toBe('shop/checkout:2.4.2'); // not run
  });

  it('refuses an approved scale as stale after an autoscaler moved the count, naming replicas_from', async () => {
    const args = { ...checkout, replicas: 6 };
    const from = (await kube.reader.getDeployment('shop', 'checkout')).spec?.replicas ?? 1;
    await approved('scale_deployment', args);
    await autoscale(from + 1);
    const run = await agent.callTool({ name: 'scale_deployment', arguments: args });
    expect(run._meta).toMatchObject({ approval_status: 'stale' });
    expect(text(run)).toContain(`replicas_from: ${from} → ${from + 1}`);
    expect(text(run)).not.toContain('generation');
    expect((await kube.reader.getDeployment('shop', 'checkout')).spec?.replicas).toBe(from + 1);
  });

  it('records the generation read just before the call with the execution, for crash reconciliation', async () => {
    const args = { ...checkout, reason: '502s' };
    const id = await approved('rollback_deployment', args);
    const moved = await autoscale(5);
    await agent.callTool({ name: 'rollback_deployment', arguments: args });
    const db = new DatabaseSync(join(s.dataDir, 'sentinel.db'), { readOnly: true });
    try {
      const row = db.prepare('SELECT effect_json FROM executions WHERE request_id = ?').get(id) as {
        effect_json: string;
      };
      expect(JSON.parse(row.effect_json)).toMatchObject({ generation_before: moved });
    } finally {
      db.close();
    }
  });

  it('refuses a request approved before this change (its effect binds target.generation) as stale once, then holds a new one', async () => {
    const args = { ...checkout, reason: '502s' };
    const id = await approved('rollback_deployment', args);
    const generation = (await kube.reader.getDeployment('shop', 'checkout')).metadata?.generation;
    oldShape(id, generation!);
    expect((await s.api(s.tokens.alice, 'GET', `/approvals/${id}/check`)).status).toBe(200);
    const stale = await agent.callTool({ name: 'rollback_deployment', arguments: args });
    expect(stale._meta).toMatchObject({ approval_status: 'stale', approval_request_id: id });
    expect(text(stale)).toContain(`target.generation: ${generation} → absent`);
    const again = await agent.callTool({ name: 'rollback_deployment', arguments: args });
    expect(again.isError).toBeFalsy();
    expect(again._meta).toMatchObject({ approval_status: 'pending' });
    expect(PendingResultMetaSchema.parse(again._meta).approval_request_id).not.toBe(id);
  });

  it('supersedes a pending request recorded before this change at the next identical call; its check names the field', async () => {
    const args = { ...checkout, reason: '502s' };
    const held = await agent.callTool({ name: 'rollback_deployment', arguments: args });
    const id = PendingResultMetaSchema.parse(held._meta).approval_request_id;
    const generation = (await kube.reader.getDeployment('shop', 'checkout')).metadata?.generation;
    oldShape(id, generation!);
    const check = await s.api(s.tokens.alice, 'GET', `/approvals/${id}/check`);
    expect(check.status).toBe(200);
    expect(JSON.stringify(check.body)).toContain(
      `target.generation now absent, the preview said ${generation}`,
    );
    const again = await agent.callTool({ name: 'rollback_deployment', arguments: args });
    const next = PendingResultMetaSchema.parse(again._meta).approval_request_id;
    expect(next).not.toBe(id);
    expect((await s.api(s.tokens.alice, 'GET', `/approvals/${id}`)).body).toMatchObject({
      status: 'superseded',
      superseded_by: next,
    });
  });
});
