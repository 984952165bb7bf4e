/**
 * Several `sentinel serve` replicas on one PostgreSQL act as one server: against the embedded
 * simulator, counting what the cluster actually received.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type MutationRecord, type Simulator } from '../../../deploy/sim/index.ts';
import { openPostgresAuditLog } from '../../../server/audit/postgres.ts';
import { PendingResultMetaSchema } from '../../../server/gate/index.ts';
import { connectKube } from '../../../tools/kube/index.ts';
import { describeWithPostgres } from '../../helpers/postgres.ts';
import { connectClient, tempDataDir } from '../../helpers/server.ts';
import { startGateServer, type GateServer } from './fixtures/serve.ts';

const checkout = { namespace: 'shop', name: 'checkout' };

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
});
