/**
 * Harness mode end to end, on the real pieces: the Sentinel server with its gate and the production
 * tools over the Kubernetes simulator (bad-image-rollout), `sentinel harness register` and
 * `sentinel investigate --harness` through the CLI, and a fake TrueForge harness that — like a live
 * one — sends allowed calls to the registered MCP connector with the connector's token.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/program.ts';
import { startSimulator, type Simulator } from '../../../deploy/sim/index.ts';
import { ApprovalListSchema, PendingResultMetaSchema } from '../../../server/gate/index.ts';
import { allTools } from '../../../tools/index.ts';
import { connectKube } from '../../../tools/kube/connect.ts';
import { captureProcessOutput } from '../../helpers/capture-output.ts';
import { FakeTrueForge, type TurnScript } from '../../helpers/fake-trueforge.ts';
import { tempDataDir } from '../../helpers/server.ts';
import { startGateServer, type GateServer } from '../../server/gate/fixtures/serve.ts';

const CHECKOUT = { namespace: 'shop', name: 'checkout', reason: 'revision 3 crashes on start' };

const proposeRollback: TurnScript = () => [
  {
    kind: 'message',
    text: 'The newest revision crashes; revision 2 was healthy.',
    calls: [{ id: 'call_rb', name: 'rollback_deployment', arguments: CHECKOUT }],
  },
  { kind: 'approval', callIds: ['call_rb'] },
];
const conclude: TurnScript = () => [{ kind: 'message', text: 'Rolled back; checkout is recovering.' }];

describe('harness mode end to end (server gate, production tools, simulator)', () => {
  const data = tempDataDir();
  const kubeconfig = join(data.dir, 'kubeconfig');
  let sim: Simulator;
  let server: GateServer;
  let harness: FakeTrueForge;
  const output = captureProcessOutput();

  beforeAll(async () => {
    sim = await startSimulator({ scenario: 'bad-image-rollout', timeScale: 0, kubeconfigPath: kubeconfig });
    server = await startGateServer({ kube: connectKube({ kubeconfig }), tools: allTools });
    harness = await new FakeTrueForge({ executeApprovedCalls: true }).start();
  });
  afterAll(async () => {
    await harness?.close();
    await server?.close();
    await sim?.close();
    data.cleanup();
  });

  const patches = () =>
    sim.mutationLog.filter(
      (m) => m.verb === 'patch' && m.resource === 'deployments.apps' && m.name === 'checkout',
    );

  it('registers, investigates and rolls back once on the human yes; a replay by the harness is held again', async () => {
    const mcpUrl = `${server.url}/mcp`;
    await main([
      'node',
      'sentinel',
      'harness',
      'register',
      '--harness',
      harness.url,
      '--server',
      mcpUrl,
      '--data-dir',
      server.dataDir,
    ]);
    expect(output.err).toBe('');
    expect(output.out).toContain("Agent 'sentinel' created");
    output.clear();

    harness.script(proposeRollback, conclude);
    const before = patches().length;
    await main([
      'node',
      'sentinel',
      'investigate',
      'checkout returns 502',
      '--harness',
      harness.url,
      '--server',
      mcpUrl,
      '--token',
      server.tokens.alice,
      '--data-dir',
      data.dir,
      '--yes',
      '--confirm',
      'checkout',
    ]);
    expect(process.exitCode).toBeUndefined();
    // The rollback's risk came from the server's tools/list (destructive): --confirm named it.
    expect(output.err).toContain('approved (--yes --confirm checkout)');
    expect(output.err).not.toContain('taken as dangerous');

    // The human was asked about exactly what the server would do, resolved against the cluster.
    expect(output.err).toMatch(
      /\nRoll back Deployment shop\/checkout from revision 3 \(\S+\/checkout:2\.4\.1\) to revision 2 \(\S+\/checkout:2\.4\.0\)\?\n/,
    );
    expect(output.out).toBe(
      'The newest revision crashes; revision 2 was healthy.\nRolled back; checkout is recovering.\n',
    );

    // The grant was made by the human for requester trueforge, and the harness's call consumed it.
    const { approvals } = ApprovalListSchema.parse(
      (await server.api(server.tokens.root, 'GET', '/approvals')).body,
    );
    expect(approvals).toHaveLength(1);
    expect(approvals[0]).toMatchObject({
      requester: 'trueforge',
      created_by: 'alice',
      tool: 'rollback_deployment',
      arguments: { namespace: 'shop', name: 'checkout', to_revision: 2 },
      status: 'executed',
    });
    expect(harness.executed).toHaveLength(1);
    expect((harness.executed[0]!.result as { _meta?: unknown })._meta).toMatchObject({
      approval_status: 'executed',
      approval_request_id: approvals[0]!.id,
    });
    expect(patches().length).toBe(before + 1);
    const connection = connectKube({ kubeconfig });
    if (!connection.configured) throw new Error(connection.reason);
    const deployment = await connection.reader.getDeployment('shop', 'checkout');
    expect(deployment.spec?.template?.spec?.containers?.[0]?.image).toMatch(/checkout:2\.4\.0$/);
    expect(deployment.metadata?.annotations?.['sentinel.dev/approval-request-id']).toBe(approvals[0]!.id);

    // A harness replaying the approved call (OBSERVED.md, safety defect 1) meets the server's gate.
    const connector = harness.mcpServers.get('sentinel') as {
      url: string;
      auth: { headers: Record<string, string> };
    };
    const replay = new Client({ name: 'tfy-agent-mcp-client', version: '0' });
    await replay.connect(
      new StreamableHTTPClientTransport(new URL(connector.url), {
        requestInit: { headers: connector.auth.headers },
      }),
    );
    try {
      const again = await replay.callTool({ name: 'rollback_deployment', arguments: CHECKOUT });
      expect(PendingResultMetaSchema.parse(again._meta).approval_status).toBe('pending');
    } finally {
      await replay.close();
    }
    expect(patches().length).toBe(before + 1);
  });
});
