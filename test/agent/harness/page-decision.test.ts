/**
 * Harness mode, terminal and page in step: while `investigate --harness` asks about a paused
 * call, the call is also a pending approval request on the Sentinel server; when an approver decides
 * it there (the page, or `approvals approve|deny` from another terminal — both go through the same
 * approvals API), the prompt is withdrawn, the CLI says who decided, and the harness hears that
 * decision. Real pieces: the Sentinel server over the simulator, the real terminal prompter reading
 * a stdin that never answers (a late name is typed after the decision), the faithful fake TrueForge.
 */
import { PassThrough } from 'node:stream';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/program.ts';
import { TrueForgeClient } from '../../../trueforge/client.ts';
import { runHarnessInvestigation } from '../../../agent/harness/investigate.ts';
import { terminalPrompter } from '../../../agent/harness/prompter.ts';
import { SentinelServerClient } from '../../../agent/harness/sentinel-server.ts';
import { startSimulator, type Simulator } from '../../../deploy/sim/index.ts';
import { ApprovalListSchema, type ApprovalRequest } from '../../../server/gate/index.ts';
import { allTools } from '../../../tools/index.ts';
import { connectKube } from '../../../tools/kube/connect.ts';
import { captureProcessOutput } from '../../helpers/capture-output.ts';
import { FakeTrueForge, type TurnScript } from '../../helpers/fake-trueforge.ts';
import { tempDataDir } from '../../helpers/server.ts';
import { startGateServer, type GateServer } from '../../server/gate/fixtures/serve.ts';

const ROLLBACK = { namespace: 'shop', name: 'checkout', reason: 'revision 3 crashes on start' };

function proposeRollback(callId: string): TurnScript {
  return () => [
    {
      kind: 'message',
      text: 'Revision 3 crashes; revision 2 was healthy.',
      calls: [{ id: callId, name: 'rollback_deployment', arguments: ROLLBACK }],
    },
    { kind: 'approval', callIds: [callId] },
  ];
}

describe('harness mode: a decision on the page releases the terminal prompt', () => {
  const data = tempDataDir();
  const kubeconfig = join(data.dir, 'kubeconfig');
  let sim: Simulator;
  let server: GateServer;
  let harness: FakeTrueForge;
  const output = captureProcessOutput();

  beforeAll(async () => {
    sim = await startSimulator({ scenario: 'bad-image-rollout', timeScale: 0, kubeconfigPath: kubeconfig });
    server = await startGateServer({ kube: connectKube({ kubeconfig }), tools: allTools });
    harness = await new FakeTrueForge({ executeApprovedCalls: true, fallbackScript: () => [] }).start();
    await main([
      'node',
      'sentinel',
      'harness',
      'register',
      '--harness',
      harness.url,
      '--server',
      `${server.url}/mcp`,
      '--data-dir',
      server.dataDir,
    ]);
    expect(output.err).toBe('');
  });
  afterAll(async () => {
    await harness?.close();
    await server?.close();
    await sim?.close();
    data.cleanup();
  });

  const approvals = async (): Promise<ApprovalRequest[]> =>
    ApprovalListSchema.parse((await server.api(server.tokens.root, 'GET', '/approvals')).body).approvals;
  const rollbacks = () =>
    sim.mutationLog.filter(
      (m) => m.verb === 'patch' && m.resource === 'deployments.apps' && m.name === 'checkout',
    ).length;

  /**
   * Runs `investigate --harness` with alice's token and a stdin nobody types into; once the call is
   * pending on the server, `decide` decides it as another approver would, then a late name is typed.
   */
  async function investigateWhileDecidedElsewhere(callId: string, decide: (id: string) => Promise<void>) {
    const stdin = new PassThrough();
    let stderr = '';
    let stdout = '';
    const err = { write: (text: string) => void (stderr += text) };
    const grants = new SentinelServerClient({ url: `${server.url}/mcp`, token: server.tokens.alice });
    const prompter = terminalPrompter(stdin, err as unknown as NodeJS.WritableStream);
    const run = runHarnessInvestigation({
      client: new TrueForgeClient({ url: harness.url }),
      grants,
      prompter,
      output: { stdout: { write: (text: string) => void (stdout += text) }, stderr: err },
      symptom: 'checkout returns 502',
      dataDir: tempDataDir().dir,
      pollMs: 20,
    });
    let held: ApprovalRequest | undefined;
    while (!held) {
      await sleep(20);
      held = (await approvals()).find((r) => r.client_ref?.tool_call_id === callId && r.status === 'pending');
    }
    await decide(held.id);
    try {
      const result = await run;
      stdin.write('checkout\n'); // typed after the prompt was withdrawn: answers nothing
      return { result, stderr, stdout, id: held.id };
    } finally {
      prompter.close();
      await grants.close();
    }
  }

  it('approved on the page: the prompt is withdrawn, "approved on the page by root", the call runs once', async () => {
    harness.script(proposeRollback('call_rollback_31'), () => [
      { kind: 'message', text: 'Rolled back to revision 2.' },
    ]);
    const before = rollbacks();
    const { result, stderr, stdout, id } = await investigateWhileDecidedElsewhere(
      'call_rollback_31',
      async (id) => {
        const approved = await server.api(server.tokens.root, 'POST', `/approvals/${id}/approve`, {});
        expect(approved.status).toBe(200);
      },
    );
    // A rollback is dangerous: the question is the Deployment's name, withdrawn (its line ended).
    expect(stderr).toContain(`\nType 'checkout' to approve ${id} (Enter or n declines): \n`);
    expect(stderr).toContain(
      `approved on the page by root (approval request ${id}); the prompt is withdrawn`,
    );
    expect(stderr).not.toContain('Reason, shown to the agent');
    expect(result.status).toBe('done');
    expect(result.decisions.map((d) => [d.call.toolCallId, d.approval.status, d.grantId])).toEqual([
      ['call_rollback_31', 'allow', id],
    ]);
    expect(stdout).toContain('Rolled back to revision 2.');
    // The harness heard "allow", sent the call, and the server ran it on root's grant: once.
    expect(harness.executed.map((e) => e.toolCallId)).toContain('call_rollback_31');
    expect(rollbacks()).toBe(before + 1);
    const request = (await approvals()).find((r) => r.id === id);
    expect(request).toMatchObject({ status: 'executed', decision: { decision: 'allow', by: 'root' } });
  });

  it('denied on the page: "denied by root: <reason>", the harness hears the deny, nothing runs', async () => {
    harness.script(proposeRollback('call_rollback_32'), (context) => {
      const decision = context.input.find((item) => item.tool_call_id === 'call_rollback_32');
      return [
        {
          kind: 'message',
          text: `Not rolling back (${decision?.approval?.status}: ${decision?.approval?.reason}).`,
        },
      ];
    });
    const before = rollbacks();
    const sentBefore = harness.executed.length;
    const { result, stderr, stdout, id } = await investigateWhileDecidedElsewhere(
      'call_rollback_32',
      async (id) => {
        const denied = await server.api(server.tokens.root, 'POST', `/approvals/${id}/deny`, {
          reason: 'revision 2 has the cart bug too',
        });
        expect(denied.status).toBe(200);
      },
    );
    expect(stderr).toContain(
      `denied by root: revision 2 has the cart bug too (approval request ${id}); the prompt is withdrawn`,
    );
    expect(result.decisions.map((d) => [d.approval.status, d.deniedId])).toEqual([['deny', id]]);
    expect(stdout).toContain('Not rolling back (deny: revision 2 has the cart bug too).');
    expect(harness.executed.length).toBe(sentBefore);
    expect(rollbacks()).toBe(before);
  });
});
