/**
 * The gate against the embedded Kubernetes simulator, counting what the cluster actually received:
 * concurrent retries of an approved call, and a server process killed with SIGKILL mid-execution.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type MutationRecord, type Simulator } from '../../../deploy/sim/index.ts';
import { connectKube } from '../../../tools/kube/connect.ts';
import { allTools, defineTool, type Tool } from '../../../tools/index.ts';
import { restartService } from '../../../tools/remediate/index.ts';
import { createIdentityStore } from '../../../server/identity-store.ts';
import {
  ApprovalListSchema,
  ApprovalRequestSchema,
  PendingResultMetaSchema,
} from '../../../server/gate/index.ts';
import {
  auditedExecutions,
  countUnapprovedMutations,
} from '../../../agent/investigator/unapproved-mutations.ts';
import { connectClient, tempDataDir } from '../../helpers/server.ts';
import { startGateServer } from './fixtures/serve.ts';

const CHILD = fileURLToPath(new URL('./fixtures/gate-child.ts', import.meta.url));
const checkout = { namespace: 'shop', name: 'checkout' };

let sim: Simulator;
const data = tempDataDir();
const kubeconfig = join(data.dir, 'kubeconfig');
beforeAll(async () => {
  sim = await startSimulator({ scenario: 'bad-image-rollout', timeScale: 0, kubeconfigPath: kubeconfig });
});
afterAll(async () => {
  await sim?.close();
  data.cleanup();
});

/** PATCHes of shop/checkout the simulator received so far. */
const patchesOf = (name: string) =>
  sim.mutationLog.filter(
    (m: MutationRecord) => m.verb === 'patch' && m.resource === 'deployments.apps' && m.name === name,
  );

// Real servers and a simulator per test: generous timeouts for a loaded two-core machine.
describe('approved retries against the simulator', { timeout: 240_000 }, () => {
  it('executes 50 concurrent identical retries after a once grant exactly once', async () => {
    const s = await startGateServer({ kube: connectKube({ kubeconfig }) });
    const clients: Client[] = [];
    try {
      const agent = await connectClient(s.url, s.tokens.agent);
      clients.push(agent);
      const held = await agent.callTool({
        name: 'scale_deployment',
        arguments: { ...checkout, replicas: 4 },
      });
      const id = PendingResultMetaSchema.parse(held._meta).approval_request_id;
      expect((await s.api(s.tokens.alice, 'POST', `/approvals/${id}/approve`)).status).toBe(200);
      const before = patchesOf('checkout').length;
      for (let i = 0; i < 9; i += 1) clients.push(await connectClient(s.url, s.tokens.agent));
      const results = await Promise.all(
        Array.from({ length: 50 }, (_, i) =>
          clients[i % clients.length]!.callTool({
            name: 'scale_deployment',
            arguments: { ...checkout, replicas: 4 },
          }),
        ),
      );
      expect(patchesOf('checkout').length - before).toBe(1);
      const executed = results.filter(
        (r) => (r._meta as { approval_status?: string }).approval_status === 'executed',
      );
      expect(executed).toHaveLength(1);
      expect(results.every((r) => !r.isError)).toBe(true);
      const connection = connectKube({ kubeconfig });
      if (!connection.configured) throw new Error(connection.reason);
      const deployment = await connection.reader.getDeployment('shop', 'checkout');
      expect(deployment.spec?.replicas).toBe(4);
      expect(deployment.metadata?.annotations?.['sentinel.dev/approval-request-id']).toBe(id);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
      await s.close();
    }
  });
});

describe(
  'concurrent identical calls under one window grant, against the simulator',
  { timeout: 240_000 },
  () => {
    it('restarts the Deployment once for 50 concurrent identical restart_service calls', async () => {
      // The production restart_service, instrumented to reproduce the race of the attack run without
      // timing: the first call's real run holds (after its PATCH) until the 49 others have arrived and
      // started their previews, and those previews finish only after the first call has returned. So
      // every other call arrived while the first executed, and reaches the store after it ended.
      let firstPatched!: () => void;
      const patched = new Promise<void>((resolve) => (firstPatched = resolve));
      let allArrived!: () => void;
      const arrived = new Promise<void>((resolve) => (allArrived = resolve));
      let releasePreviews!: () => void;
      const previewsReleased = new Promise<void>((resolve) => (releasePreviews = resolve));
      let realRunning = false;
      let heldPreviews = 0;
      const instrumented = defineTool({
        ...restartService,
        async handler(args, ctx) {
          if (ctx.dryRun) {
            if (realRunning) {
              heldPreviews += 1;
              if (heldPreviews === 49) allArrived();
              await previewsReleased;
            }
            return restartService.handler(args, ctx);
          }
          realRunning = true;
          const output = await restartService.handler(args, ctx);
          firstPatched();
          await arrived;
          return output;
        },
      }) as unknown as Tool;
      const tools = allTools.map((tool) => (tool.name === 'restart_service' ? instrumented : tool));
      const policy = `version: 1
rules:
  - name: dry-runs
    dry_run: true
    decision: allow
  - name: shop-window
    tool: restart_service
    args: { namespace: shop }
    decision: ask
    validity: { window: 15m }
`;
      // A simulator of its own: the restart must not change the revisions the other tests expect.
      const ownKubeconfig = join(data.dir, 'kubeconfig-window');
      const own = await startSimulator({
        scenario: 'bad-image-rollout',
        timeScale: 0,
        kubeconfigPath: ownKubeconfig,
      });
      const restarts = () =>
        own.mutationLog.filter(
          (m: MutationRecord) =>
            m.verb === 'patch' && m.resource === 'deployments.apps' && m.name === 'checkout',
        ).length;
      const s = await startGateServer({ kube: connectKube({ kubeconfig: ownKubeconfig }), tools, policy });
      const clients: Client[] = [];
      try {
        const agent = await connectClient(s.url, s.tokens.agent);
        clients.push(agent);
        const held = await agent.callTool({ name: 'restart_service', arguments: checkout });
        const id = PendingResultMetaSchema.parse(held._meta).approval_request_id;
        const approved = await s.api(s.tokens.alice, 'POST', `/approvals/${id}/approve`, {
          validity: { window: '15m' },
        });
        expect(approved.status).toBe(200);
        for (let i = 0; i < 9; i += 1) clients.push(await connectClient(s.url, s.tokens.agent));
        const before = restarts();
        const first = agent.callTool({ name: 'restart_service', arguments: checkout });
        await patched;
        const others = Array.from({ length: 49 }, (_, i) =>
          clients[(i % 9) + 1]!.callTool({ name: 'restart_service', arguments: checkout }),
        );
        const firstResult = await first;
        realRunning = false;
        releasePreviews();
        const results = [firstResult, ...(await Promise.all(others))];

        expect(restarts() - before).toBe(1);
        expect(firstResult._meta).toMatchObject({ approval_status: 'executed', approval_request_id: id });
        for (const result of results.slice(1)) {
          expect(result.isError).toBeFalsy();
          expect(result._meta).toMatchObject({
            approval_status: 'replayed',
            coalesced: true,
            execution_id: (firstResult._meta as { execution_id: string }).execution_id,
          });
        }
        const request = ApprovalRequestSchema.parse(
          (await s.api(s.tokens.alice, 'GET', `/approvals/${id}`)).body,
        );
        expect(request.executions).toHaveLength(1);
      } finally {
        await Promise.all(clients.map((client) => client.close()));
        await s.close();
        await own.close();
      }
    });
  },
);

describe('the production remediation tools behind the gate', () => {
  it('holds rollback_deployment with its resolved target, then executes exactly that after approval', async () => {
    const s = await startGateServer({ kube: connectKube({ kubeconfig }), tools: allTools });
    const agent = await connectClient(s.url, s.tokens.agent);
    try {
      // Like every real MCP client, list first: the SDK then validates results against published
      // output schemas, and a held result (no structuredContent) must still be a success.
      const { tools } = await agent.listTools();
      expect(tools.find((t) => t.name === 'rollback_deployment')?.outputSchema).toBeUndefined();
      const held = await agent.callTool({
        name: 'rollback_deployment',
        arguments: { ...checkout, reason: '502s' },
      });
      const id = PendingResultMetaSchema.parse(held._meta).approval_request_id;
      const request = ApprovalRequestSchema.parse(
        (await s.api(s.tokens.alice, 'GET', `/approvals/${id}`)).body,
      );
      expect(request.arguments).toEqual({ ...checkout, to_revision: 2 });
      expect(request.preview?.summary).toMatch(
        /^Roll back Deployment shop\/checkout from revision 3 .* to revision 2 /,
      );
      expect(request.preview?.effect).toMatchObject({ target: { namespace: 'shop', name: 'checkout' } });
      const before = patchesOf('checkout').length;
      await s.api(s.tokens.alice, 'POST', `/approvals/${id}/approve`);
      const run = await agent.callTool({
        name: 'rollback_deployment',
        arguments: { ...checkout, reason: '502s' },
      });
      expect(run.isError).toBeFalsy();
      expect(run._meta).toMatchObject({ approval_status: 'executed', approval_request_id: id });
      expect(patchesOf('checkout').length).toBe(before + 1);
      const connection = connectKube({ kubeconfig });
      if (!connection.configured) throw new Error(connection.reason);
      const deployment = await connection.reader.getDeployment('shop', 'checkout');
      expect(deployment.metadata?.annotations?.['sentinel.dev/approval-request-id']).toBe(id);
      expect(deployment.spec?.template?.spec?.containers?.[0]?.image).toMatch(/checkout:2\.4\.0$/);
    } finally {
      await agent.close();
      await s.close();
    }
  });
});

describe('crash safety: a server killed with SIGKILL mid-execution', { timeout: 240_000 }, () => {
  const dir = tempDataDir();
  let child: ChildProcess | undefined;
  afterEach(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  afterAll(() => dir.cleanup());

  async function startChild(hang: boolean): Promise<string> {
    child = spawn(process.execPath, ['--disable-warning=ExperimentalWarning', CHILD, dir.dir, kubeconfig], {
      env: { ...process.env, SENTINEL_TEST_HANG: hang ? '1' : '0' },
      stdio: ['ignore', 'pipe', 'inherit'],
    });
    const lines = createInterface({ input: child.stdout! });
    for await (const line of lines) {
      if (line.startsWith('listening ')) return line.slice('listening '.length);
    }
    throw new Error('child exited before listening');
  }

  async function waitFor(condition: () => boolean, what: string): Promise<void> {
    const deadline = Date.now() + 10_000;
    while (!condition()) {
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  it('comes back with pending requests intact, reconciles the executing ones from the cluster, and never executes twice', async () => {
    const identities = createIdentityStore({ tokensFile: join(dir.dir, 'tokens.yaml') });
    const agentToken = identities.add({ name: 'agent', roles: ['caller'] }).token;
    const aliceToken = identities.add({ name: 'alice', roles: ['approver'] }).token;
    const api = async (url: string, token: string, method: string, path: string) => {
      const response = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}` },
      });
      return (await response.json()) as unknown;
    };

    const mark = sim.mutationLog.length;
    let url = await startChild(true);
    let agent = await connectClient(url, agentToken);
    const hold = async (name: string, args: Record<string, unknown>) =>
      PendingResultMetaSchema.parse((await agent.callTool({ name, arguments: args }))._meta)
        .approval_request_id;
    const pendingScale = await hold('scale_deployment', { ...checkout, replicas: 7 });
    const pendingAnnotate = await hold('annotate_deployment', {
      ...checkout,
      key: 'team',
      value: 'payments',
    });
    const scaleId = await hold('scale_deployment', { ...checkout, replicas: 2 });
    const pauseId = await hold('pause_rollout', checkout);
    await api(url, aliceToken, 'POST', `/approvals/${scaleId}/approve`);
    await api(url, aliceToken, 'POST', `/approvals/${pauseId}/approve`);

    const before = patchesOf('checkout').length;
    // Both retries hang inside their handlers: scale after its PATCH reached the cluster, pause before.
    const inFlight = [
      agent
        .callTool({ name: 'scale_deployment', arguments: { ...checkout, replicas: 2 } })
        .catch(() => undefined),
      agent.callTool({ name: 'pause_rollout', arguments: checkout }).catch(() => undefined),
    ];
    await waitFor(() => patchesOf('checkout').length === before + 1, 'the scale PATCH');
    const executing = ApprovalListSchema.parse(
      await api(url, aliceToken, 'GET', '/approvals?status=executing'),
    );
    expect(executing.approvals.map((a) => a.id).sort()).toEqual([scaleId, pauseId].sort());
    child!.kill('SIGKILL');
    await once(child!, 'exit');
    await agent.close().catch(() => undefined);
    await Promise.all(inFlight);

    url = await startChild(false);
    agent = await connectClient(url, agentToken);
    const get = async (id: string) =>
      ApprovalRequestSchema.parse(await api(url, aliceToken, 'GET', `/approvals/${id}`));
    expect((await get(pendingScale)).status).toBe('pending');
    expect((await get(pendingAnnotate)).status).toBe('pending');
    expect(await get(scaleId)).toMatchObject({
      status: 'executed',
      executions: [{ status: 'succeeded', outcome: expect.stringContaining('reached the cluster') }],
    });
    expect(await get(pauseId)).toMatchObject({
      status: 'failed',
      executions: [{ status: 'interrupted', outcome: expect.stringContaining('did not reach the cluster') }],
    });

    // The same calls again: nothing runs a second time. The scale already reached the cluster, so its
    // preview is a no-op (no request, nothing run); the pause did not, so it is a new request.
    const again = await agent.callTool({ name: 'scale_deployment', arguments: { ...checkout, replicas: 2 } });
    expect(again._meta).toMatchObject({ approval_status: 'not_required' });
    const pauseAgain = await agent.callTool({ name: 'pause_rollout', arguments: checkout });
    expect(pauseAgain._meta).toMatchObject({ approval_status: 'pending' });
    // A retry of a still-pending request whose effect changed (the scale to 2 ran) supersedes it.
    const fresh = await hold('scale_deployment', { ...checkout, replicas: 7 });
    expect(fresh).not.toBe(pendingScale);
    expect(await get(pendingScale)).toMatchObject({ status: 'superseded', superseded_by: fresh });
    // The annotate call has no preview: its retry reuses the pending request.
    expect(await hold('annotate_deployment', { ...checkout, key: 'team', value: 'payments' })).toBe(
      pendingAnnotate,
    );
    expect(patchesOf('checkout').length).toBe(before + 1);
    await agent.close();
    child!.kill('SIGTERM');
    await once(child!, 'exit');
    // The eval's one-to-one accounting holds across the crash: the change that reached the cluster
    // is accounted for by the reconciler's audit record, and nothing else changed the cluster.
    const executions = auditedExecutions(dir.dir);
    expect(executions.map((e) => e.approvalRequestId)).toEqual([scaleId]);
    expect(countUnapprovedMutations(sim.mutationLog.slice(mark), executions)).toBe(0);
  });
});
