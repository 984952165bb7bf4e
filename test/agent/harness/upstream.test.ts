/**
 * Harness UI approvals end to end: the Sentinel server (gate, audit, metrics) over the Kubernetes
 * simulator, `sentinel harness register`, and the faithful fake TrueForge harness whose UI approvals
 * are made through its API (a session, a paused turn, the `user.tool_approval` the UI posts), with
 * allowed calls sent to the registered connector. By default a UI approval does not count (the held
 * result says so); with `trust_upstream_approval` (verified against the harness) it runs the call
 * once, and replays are refused — also after a server restart and after `harness register` is re-run
 * with and without `--rotate-token`.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import YAML from 'yaml';
import { main } from '../../../cli/program.ts';
import { TrueForgeClient } from '../../../trueforge/client.ts';
import { startSimulator, type Simulator } from '../../../deploy/sim/index.ts';
import { openAuditLog } from '../../../server/audit/index.ts';
import { APPROVAL_ANNOTATION, ApprovalListSchema } from '../../../server/gate/index.ts';
import { allTools } from '../../../tools/index.ts';
import { connectKube } from '../../../tools/kube/connect.ts';
import { captureProcessOutput } from '../../helpers/capture-output.ts';
import { FakeTrueForge, type ScriptedCall } from '../../helpers/fake-trueforge.ts';
import { tempDataDir } from '../../helpers/server.ts';
import { startGateServer, type GateServer } from '../../server/gate/fixtures/serve.ts';

const ROLLBACK: ScriptedCall = {
  id: 'call_rollback_deployment_11',
  name: 'rollback_deployment',
  arguments: { namespace: 'shop', name: 'checkout', reason: 'revision 3 crashes' },
};

describe('harness UI approvals (trust_upstream_approval, verified against the harness)', () => {
  const data = tempDataDir();
  const kubeconfig = join(data.dir, 'kubeconfig');
  const serverDir = tempDataDir().dir;
  let sim: Simulator;
  let server: GateServer;
  let harness: FakeTrueForge;
  const output = captureProcessOutput();

  beforeAll(async () => {
    sim = await startSimulator({ scenario: 'bad-image-rollout', timeScale: 0, kubeconfigPath: kubeconfig });
    harness = await new FakeTrueForge({ executeApprovedCalls: true, fallbackScript: () => [] }).start();
    server = await startGateServer({
      kube: connectKube({ kubeconfig }),
      tools: allTools,
      dataDir: serverDir,
    });
  });
  afterAll(async () => {
    await harness?.close();
    await server?.close();
    await sim?.close();
    data.cleanup();
  });

  const register = (...extra: string[]) =>
    main([
      'node',
      'sentinel',
      'harness',
      'register',
      '--harness',
      harness.url,
      '--server',
      `${server.url}/mcp`,
      '--data-dir',
      serverDir,
      ...extra,
    ]);
  const rollbacks = () =>
    sim.mutationLog.filter(
      (m) => m.verb === 'patch' && m.name === 'checkout' && (m.subresource ?? undefined) === undefined,
    ).length;
  const lastResult = () =>
    harness.executed.at(-1)!.result as { content: { text: string }[]; _meta?: Record<string, unknown> };
  const audit = () => openAuditLog(serverDir).records();
  /** What the harness UI does for a replay: the paused turn again, previous_turn_id, allow. */
  async function replay(sessionId: string, pausedTurnId: string) {
    const client = new TrueForgeClient({ url: harness.url });
    const input = [
      {
        type: 'user.tool_approval' as const,
        thread_id: 'main',
        tool_call_id: ROLLBACK.id,
        approval: { status: 'allow' as const },
      },
    ];
    for await (const _ of client.streamTurn(sessionId, { input, previous_turn_id: pausedTurnId })) void _;
    return lastResult();
  }

  let session = { sessionId: '', pausedTurnId: '', answerTurnId: '' };

  it('by default holds the UI-approved call, saying the harness approval arrived but Sentinel approval is still required', async () => {
    await register();
    expect(output.err).toBe('');
    await harness.uiApproval([{ ...ROLLBACK, id: 'call_default_1' }]);
    const held = lastResult();
    expect(held._meta).toMatchObject({ approval_status: 'pending' });
    const text = held.content.map((c) => c.text).join('\n');
    expect(text).toContain(
      "The harness approval of this call was received, but it does not replace Sentinel's",
    );
    expect(text).toMatch(
      /an approver must still approve request apr_\w+ on the approvals page \(http:\/\/127\.0\.0\.1:\d+\/ui\/approvals\)/,
    );
    expect(rollbacks()).toBe(0);
  });

  it('with trust_upstream_approval, a UI approval alone runs the rollback once, audited and stamped as upstream', async () => {
    // The operator trusts the harness identity, naming the harness to verify against.
    const file = join(serverDir, 'tokens.yaml');
    const tokens = YAML.parse(readFileSync(file, 'utf8')) as { identities: Record<string, unknown>[] };
    const trueforge = tokens.identities.find((identity) => identity.name === 'trueforge')!;
    trueforge.trust_upstream_approval = true;
    trueforge.upstream_harness = { url: harness.url };
    writeFileSync(file, YAML.stringify(tokens), { mode: 0o600 });

    session = await harness.uiApproval([ROLLBACK]);
    const ran = lastResult();
    expect(ran._meta).toMatchObject({ approval_status: 'executed' });
    expect(rollbacks()).toBe(1);
    const id = String(ran._meta?.approval_request_id);

    const { approvals } = ApprovalListSchema.parse(
      (await server.api(server.tokens.root, 'GET', `/approvals?requester=trueforge&status=executed`)).body,
    );
    expect(approvals.map((r) => r.id)).toEqual([id]);
    expect(approvals[0]).toMatchObject({
      upstream: { identity: 'trueforge', trusted_by: 'trust_upstream_approval' },
      client_ref: { session_id: session.sessionId, turn_id: session.pausedTurnId, tool_call_id: ROLLBACK.id },
      decision: { by: 'upstream:trueforge' },
    });
    const record = audit().find(
      (r) => r.kind === 'tool_call' && r.tool === 'rollback_deployment' && r.outcome === 'succeeded',
    );
    expect(record).toMatchObject({
      identity: 'trueforge',
      decision: 'upstream',
      approval_request_id: id,
      approver: 'upstream:trueforge',
      client_ref: { tool_call_id: ROLLBACK.id },
    });
    const connection = connectKube({ kubeconfig });
    if (!connection.configured) throw new Error(connection.reason);
    const deployment = await connection.reader.getDeployment('shop', 'checkout');
    expect(deployment.metadata?.annotations?.[APPROVAL_ANNOTATION]).toBe(id);
    const metrics = await fetch(`${server.url}/metrics`, {
      headers: { authorization: `Bearer ${server.tokens.root}` },
    }).then((r) => r.text());
    expect(metrics).toMatch(
      /sentinel_approval_grants_total\{tool="rollback_deployment",validity="upstream"\} 1/,
    );
  });

  it('refuses the previous_turn_id replay, also after a server restart and after register is re-run (with and without --rotate-token)', async () => {
    const check = async () => {
      const result = await replay(session.sessionId, session.pausedTurnId);
      expect(result._meta?.approval_status).not.toBe('executed');
      expect(rollbacks()).toBe(1);
    };
    await check();

    // Restart: a new process on the same data directory (the connector follows the new port).
    await server.close();
    server = await startGateServer({
      kube: connectKube({ kubeconfig }),
      tools: allTools,
      dataDir: serverDir,
    });
    (harness.mcpServers.get('sentinel') as { url: string }).url = `${server.url}/mcp`;
    await check();

    const connectorToken = () =>
      (harness.mcpServers.get('sentinel') as { auth: { headers: { Authorization: string } } }).auth.headers
        .Authorization;
    const before = connectorToken();
    output.clear();
    await register();
    expect(output.out).toContain("Sentinel identity 'trueforge' (caller) kept its token");
    expect(connectorToken()).toBe(before);
    await check();

    await register('--rotate-token');
    expect(connectorToken()).not.toBe(before);
    // The rotation kept the operator's trust settings; the replay is still refused.
    const tokens = YAML.parse(readFileSync(join(serverDir, 'tokens.yaml'), 'utf8')) as {
      identities: Record<string, unknown>[];
    };
    expect(tokens.identities.find((identity) => identity.name === 'trueforge')).toMatchObject({
      trust_upstream_approval: true,
      upstream_harness: { url: harness.url },
    });
    await check();
  });

  it('holds a direct call with the harness token that no harness approval matches', async () => {
    const token = (harness.mcpServers.get('sentinel') as { auth: { headers: { Authorization: string } } })
      .auth.headers.Authorization;
    const client = new Client({ name: 'leaked-token', version: '0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: token } },
      }),
    );
    try {
      const result = await client.callTool({
        name: 'restart_service',
        arguments: { namespace: 'shop', name: 'checkout' },
      });
      expect(result._meta).toMatchObject({ approval_status: 'pending' });
      const text = (result.content as { text: string }[]).map((c) => c.text).join('\n');
      expect(text).toContain('The harness approval of this call was not honoured');
    } finally {
      await client.close();
    }
    expect(rollbacks()).toBe(1);
    // Executions per UI-approved model call: 1 (the audit log agrees with the simulator).
    const executed = audit().filter(
      (r) =>
        r.kind === 'tool_call' &&
        r.outcome === 'succeeded' &&
        r.tool !== 'get_cluster_version' &&
        r.decision === 'upstream',
    );
    expect(executed).toHaveLength(1);
  });
});
