/**
 * Several `sentinel serve` replicas on one PostgreSQL act as one server: against the embedded
 * simulator, counting what the cluster actually received.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { fileURLToPath } from 'node:url';
import { afterAll, afterEach, beforeAll, expect, it } from 'vitest';
import { createIdentityStore } from '../../../server/identity-store.ts';
import { startSimulator, type MutationRecord, type Simulator } from '../../../deploy/sim/index.ts';
import { openPostgresAuditLog } from '../../../server/audit/postgres.ts';
import { PendingResultMetaSchema } from '../../../server/gate/index.ts';
import { connectKube } from '../../../tools/kube/connect.ts';
import { describeWithPostgres } from '../../helpers/postgres.ts';
import { connectClient, tempDataDir } from '../../helpers/server.ts';
import { startGateServer, type GateServer } from './fixtures/serve.ts';

const checkout = { namespace: 'shop', name: 'checkout' };
const CHILD = fileURLToPath(new URL('./fixtures/gate-child.ts', import.meta.url));

describeWithPostgres('replicas on one PostgreSQL', (postgres) => {
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
  const patchesOf = (name: string) =>
    sim.mutationLog.filter(
      (m: MutationRecord) => m.verb === 'patch' && m.resource === 'deployments.apps' && m.name === name,
    );

  /** Three replicas on one new database, sharing the identities file (as a mounted Secret would). */
  async function startReplicas(): Promise<{ replicas: GateServer[]; store: string; close(): Promise<void> }> {
    const store = await postgres().newDatabase();
    const shared = tempDataDir();
    const replicas: GateServer[] = [];
    for (let i = 0; i < 3; i += 1) {
      replicas.push(await startGateServer({ dataDir: shared.dir, store, kube: connectKube({ kubeconfig }) }));
    }
    return {
      replicas,
      store,
      async close() {
        for (const replica of replicas) await replica.close();
        shared.cleanup();
      },
    };
  }

  it(
    'executes 150 concurrent identical retries of one approved call, spread over three replicas, exactly once; the audit chain stays linear',
    { timeout: 300_000 },
    async () => {
      const { replicas, store, close } = await startReplicas();
      const [a, b] = replicas as [GateServer, GateServer, GateServer];
      const { tokens } = a;
      const clients: Client[] = [];
      try {
        const agent = await connectClient(a.url, tokens.agent);
        clients.push(agent);
        const held = await agent.callTool({
          name: 'scale_deployment',
          arguments: { ...checkout, replicas: 6 },
        });
        const id = PendingResultMetaSchema.parse(held._meta).approval_request_id;
        expect((await b.api(tokens.alice, 'GET', `/approvals/${id}`)).body.status).toBe('pending');
        expect((await b.api(tokens.alice, 'POST', `/approvals/${id}/approve`)).status).toBe(200);
        const before = patchesOf('checkout').length;
        for (const replica of replicas) {
          for (let i = 0; i < 3; i += 1) clients.push(await connectClient(replica.url, tokens.agent));
        }
        const results = await Promise.all(
          Array.from({ length: 150 }, (_, i) =>
            clients[1 + (i % (clients.length - 1))]!.callTool({
              name: 'scale_deployment',
              arguments: { ...checkout, replicas: 6 },
            }),
          ),
        );
        expect(patchesOf('checkout').length - before).toBe(1);
        const statuses = results.map((r) => (r._meta as { approval_status?: string }).approval_status);
        expect(statuses.filter((status) => status === 'executed')).toHaveLength(1);
        expect(results.filter((r) => r.isError)).toEqual([]);
        for (const replica of replicas) {
          expect((await replica.api(tokens.alice, 'GET', `/approvals/${id}`)).body).toMatchObject({
            status: 'executed',
            executions: [{ status: 'succeeded' }],
          });
        }
        await Promise.all(clients.splice(0).map((client) => client.close()));
        for (const replica of replicas) await replica.server.close();
        const audit = await openPostgresAuditLog({ url: store });
        const report = await audit.verify();
        expect(report.broken).toBeUndefined();
        expect(report.records).toBeGreaterThanOrEqual(152);
        const records = await audit.records();
        expect(records.filter((r) => r.kind === 'tool_call' && r.tool === 'scale_deployment')).toHaveLength(
          151,
        );
        await audit.close();
      } finally {
        await Promise.all(clients.map((client) => client.close()));
        await close();
      }
    },
  );

  const children: ChildProcess[] = [];
  afterEach(() => {
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
  });
  /** A `sentinel serve` process on the shared store; `hang`: its scale_deployment never returns after its PATCH. */
  async function startReplicaProcess(dataDir: string, store: string, hang: boolean) {
    const child = spawn(
      process.execPath,
      ['--disable-warning=ExperimentalWarning', CHILD, dataDir, kubeconfig, store],
      {
        env: { ...process.env, SENTINEL_TEST_HANG: hang ? '1' : '0' },
        stdio: ['ignore', 'pipe', 'inherit'],
      },
    );
    children.push(child);
    for await (const line of createInterface({ input: child.stdout! })) {
      if (line.startsWith('listening ')) return { child, url: line.slice('listening '.length) };
    }
    throw new Error('replica exited before listening');
  }
  async function waitFor<T>(probe: () => Promise<T | undefined>, what: string): Promise<T> {
    const deadline = Date.now() + 90_000;
    for (;;) {
      const value = await probe();
      if (value !== undefined) return value;
      if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  it(
    'settles a call of a replica killed with SIGKILL mid-execution from the cluster, on one surviving replica, never twice',
    { timeout: 300_000 },
    async () => {
      const store = await postgres().newDatabase();
      const shared = tempDataDir();
      try {
        const identities = createIdentityStore({ tokensFile: join(shared.dir, 'tokens.yaml') });
        const agentToken = identities.add({ name: 'agent', roles: ['caller'] }).token;
        const aliceToken = identities.add({ name: 'alice', roles: ['approver'] }).token;
        const a = await startReplicaProcess(shared.dir, store, true);
        const b = await startReplicaProcess(shared.dir, store, false);
        const c = await startReplicaProcess(shared.dir, store, false);
        const api = async (url: string, method: string, path: string) => {
          const response = await fetch(`${url}${path}`, {
            method,
            headers: { authorization: `Bearer ${aliceToken}` },
          });
          return (await response.json()) as Record<string, unknown>;
        };
        let agent = await connectClient(a.url, agentToken);
        const call = () =>
          agent.callTool({ name: 'scale_deployment', arguments: { ...checkout, replicas: 5 } });
        const id = PendingResultMetaSchema.parse((await call())._meta).approval_request_id;
        expect((await api(b.url, 'POST', `/approvals/${id}/approve`)).status).toBe('approved');
        const before = patchesOf('checkout').length;
        const hanging = call().catch(() => undefined);
        await waitFor(async () => (patchesOf('checkout').length > before ? true : undefined), 'the PATCH');
        expect((await api(c.url, 'GET', `/approvals/${id}`)).status).toBe('executing');
        a.child.kill('SIGKILL');
        await once(a.child, 'exit');
        await agent.close().catch(() => undefined);
        await hanging;
        const settled = await waitFor(async () => {
          const request = await api(b.url, 'GET', `/approvals/${id}`);
          return request.status === 'executing' ? undefined : request;
        }, 'a survivor to settle the execution');
        expect(settled).toMatchObject({
          status: 'executed',
          executions: [{ status: 'succeeded', outcome: expect.stringContaining('reached the cluster') }],
        });
        // The same call again, on another survivor: nothing runs a second time.
        agent = await connectClient(c.url, agentToken);
        expect((await call())._meta).toMatchObject({ approval_status: 'not_required' });
        await agent.close();
        expect(patchesOf('checkout').length).toBe(before + 1);
        for (const replica of [b, c]) {
          replica.child.kill('SIGTERM');
          await once(replica.child, 'exit');
        }
        const audit = await openPostgresAuditLog({ url: store });
        expect((await audit.verify()).broken).toBeUndefined();
        const settledRecords = (await audit.records()).filter(
          (record) => record.kind === 'execution' && record.approval_request_id === id,
        );
        expect(settledRecords).toHaveLength(1);
        await audit.close();
      } finally {
        shared.cleanup();
      }
    },
  );

  it(
    'honours a login link issued by replica A on replica B, once, and the session it starts on both',
    { timeout: 120_000 },
    async () => {
      const { replicas, close } = await startReplicas();
      const [a, b] = replicas as [GateServer, GateServer, GateServer];
      try {
        const link = /(http:\/\/127\.0\.0\.1:\d+\/ui\/login\?ticket=[\w-]+)/.exec(a.stderr.join(''))![1]!;
        expect(link.startsWith(a.url)).toBe(true);
        const onB = link.replace(a.url, b.url);
        const login = await fetch(onB, { redirect: 'manual' });
        expect(login.status).toBe(303);
        const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
        // Spent: neither replica accepts it again.
        expect((await fetch(link, { redirect: 'manual' })).status).toBe(401);
        expect((await fetch(onB, { redirect: 'manual' })).status).toBe(401);
        for (const replica of [a, b]) {
          const snapshot = await fetch(`${replica.url}/ui/api/approvals`, { headers: { cookie } });
          expect(snapshot.status).toBe(200);
        }
      } finally {
        await close();
      }
    },
  );

  it(
    "updates the approvals page's live stream on replica B when replica A approves",
    { timeout: 120_000 },
    async () => {
      const { replicas, close } = await startReplicas();
      const [a, b] = replicas as [GateServer, GateServer, GateServer];
      const agent = await connectClient(a.url, a.tokens.agent);
      try {
        const held = await agent.callTool({
          name: 'scale_deployment',
          arguments: { ...checkout, replicas: 8 },
        });
        const id = PendingResultMetaSchema.parse(held._meta).approval_request_id;
        const login = await fetch(`${b.url}/ui/login`, {
          method: 'POST',
          redirect: 'manual',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({ token: a.tokens.alice }).toString(),
        });
        expect(login.status).toBe(303);
        const cookie = login.headers.get('set-cookie')!.split(';')[0]!;
        const events = await fetch(`${b.url}/ui/events`, { headers: { cookie } });
        const reader = events.body!.getReader();
        const decoder = new TextDecoder();
        let text = '';
        const nextSnapshot = async () => {
          while (!text.includes('\n\n')) text += decoder.decode((await reader.read()).value);
          const [event, rest] = [text.slice(0, text.indexOf('\n\n')), text.slice(text.indexOf('\n\n') + 2)];
          text = rest;
          return event;
        };
        const first = await nextSnapshot();
        expect(first).toMatch(/^event: snapshot\n/);
        expect(first).toContain(id);
        expect((await a.api(a.tokens.alice, 'POST', `/approvals/${id}/approve`)).status).toBe(200);
        // The next snapshot B sends shows the request approved (pushed by A's NOTIFY).
        let snapshot = await nextSnapshot();
        while (!/approved/.test(snapshot)) snapshot = await nextSnapshot();
        expect(snapshot).toContain(id);
        await reader.cancel();
      } finally {
        await agent.close();
        await close();
      }
    },
  );
});
