/**
 * Harness mode over a long session, on the real pieces: the Sentinel server (gate, audit) with the
 * production tools over the Kubernetes simulator, the harness client and the real Sentinel server
 * client, and the faithful fake TrueForge harness (turns listed oldest first, answered turns keeping
 * their old required_actions, `previous_turn_id` replays re-running calls, allowed calls sent to the
 * registered connector with its token). Every count comes from the simulator's mutation log, the
 * fake's record of what it sent to the MCP server, and the server's hash-chained audit log.
 *
 * The promise checked: one human decision per model call, executed at most once — across resumes,
 * kills at the prompt, replays, concurrent CLI processes and a lost ledger.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { main } from '../../../cli/program.ts';
import { TrueForgeClient } from '../../../trueforge/client.ts';
import { runHarnessInvestigation } from '../../../agent/harness/investigate.ts';
import { SentinelServerClient } from '../../../agent/harness/sentinel-server.ts';
import { startSimulator, type Simulator } from '../../../deploy/sim/index.ts';
import { openAuditLog } from '../../../server/audit/index.ts';
import { ApprovalListSchema, clientRefKey, type ApprovalRequest } from '../../../server/gate/index.ts';
import { allTools } from '../../../tools/index.ts';
import { connectKube } from '../../../tools/kube/connect.ts';
import { captureProcessOutput } from '../../helpers/capture-output.ts';
import { FakeTrueForge, type TurnScript } from '../../helpers/fake-trueforge.ts';
import { scriptedPrompter } from '../../helpers/recording-grants.ts';
import { tempDataDir } from '../../helpers/server.ts';
import { startGateServer, type GateServer } from '../../server/gate/fixtures/serve.ts';

const ROLLBACK = { namespace: 'shop', name: 'checkout', reason: 'revision 3 crashes on start' };
const SCALE = { namespace: 'shop', name: 'checkout', replicas: 5 };
const RESTART = { namespace: 'shop', name: 'checkout' };
const SCALE_BY_ONE = { namespace: 'shop', name: 'checkout', replicas: 4 };

const proposeRollback: TurnScript = () => [
  {
    kind: 'message',
    text: 'Revision 3 crashes; revision 2 was healthy.',
    calls: [{ id: 'call_rollback_deployment_11', name: 'rollback_deployment', arguments: ROLLBACK }],
  },
  { kind: 'approval', callIds: ['call_rollback_deployment_11'] },
];
const proposeScale: TurnScript = () => [
  {
    kind: 'message',
    text: 'Rolled back. More replicas would absorb the backlog.',
    calls: [{ id: 'call_scale_deployment_12', name: 'scale_deployment', arguments: SCALE }],
  },
  { kind: 'approval', callIds: ['call_scale_deployment_12'] },
];
const conclude: TurnScript = () => [{ kind: 'message', text: 'Checkout is recovering.' }];
/** The typed-name question of a dangerous call on Deployment checkout, held on the page as apr_…. */
const typeCheckout = expect.stringMatching(/\nType 'checkout' to approve apr_\w+ \(Enter or n declines\): $/);

/**
 * A harness client whose turn answers wait until `release()`: `reached` settles when the CLI is about
 * to answer, so a test can let another process answer the same paused turn first.
 */
class HeldTurnsClient extends TrueForgeClient {
  readonly reached: Promise<void>;
  private arrived!: () => void;
  private readonly gate: Promise<void>;
  release!: () => void;

  constructor(url: string) {
    super({ url });
    this.reached = new Promise((resolve) => (this.arrived = resolve));
    this.gate = new Promise((resolve) => (this.release = resolve));
  }

  override async *streamTurn(...args: Parameters<TrueForgeClient['streamTurn']>) {
    this.arrived();
    await this.gate;
    yield* super.streamTurn(...args);
  }
}

describe('harness sessions: one decision per model call, at most one execution', () => {
  const data = tempDataDir();
  const kubeconfig = join(data.dir, 'kubeconfig');
  let sim: Simulator;
  let server: GateServer;
  let harness: FakeTrueForge;
  let trueforgeToken: string;
  const output = captureProcessOutput();

  beforeAll(async () => {
    sim = await startSimulator({ scenario: 'bad-image-rollout', timeScale: 0, kubeconfigPath: kubeconfig });
    server = await startGateServer({ kube: connectKube({ kubeconfig }), tools: allTools });
    harness = await new FakeTrueForge({ executeApprovedCalls: true, fallbackScript: () => [] }).start();
  });
  afterAll(async () => {
    await harness?.close();
    await server?.close();
    await sim?.close();
    data.cleanup();
  });

  /** One `sentinel investigate --harness` process: its own data directory (ledger), alice's token. */
  async function cli(options: {
    answers?: string[];
    yes?: boolean;
    confirm?: string[];
    resume?: string;
    symptom?: string;
    dataDir: string;
    client?: TrueForgeClient;
  }) {
    let stderr = '';
    let stdout = '';
    const ask = scriptedPrompter(options.answers ?? []);
    const grants = new SentinelServerClient({ url: `${server.url}/mcp`, token: server.tokens.alice });
    try {
      const result = await runHarnessInvestigation({
        client: options.client ?? new TrueForgeClient({ url: harness.url }),
        grants,
        prompter: ask,
        output: {
          stdout: { write: (t: string) => (stdout += t) },
          stderr: { write: (t: string) => (stderr += t) },
        },
        symptom: options.symptom,
        resumeSessionId: options.resume,
        autoApprove: options.yes ?? false,
        confirm: options.confirm,
        dataDir: options.dataDir,
      });
      return { result, stderr, stdout, asked: ask.asked };
    } finally {
      await grants.close();
    }
  }

  const checkoutChanges = (subresource?: string) =>
    sim.mutationLog.filter(
      (m) =>
        m.verb === 'patch' &&
        m.resource === 'deployments.apps' &&
        m.name === 'checkout' &&
        (m.subresource ?? undefined) === subresource,
    ).length;
  const approvals = async (): Promise<ApprovalRequest[]> =>
    ApprovalListSchema.parse((await server.api(server.tokens.root, 'GET', '/approvals')).body).approvals;
  const audit = () => openAuditLog(server.dataDir).records();
  /** Successful tool calls of `tool` in the audit log (executions the server ran). */
  const auditedExecutions = (tool: string) =>
    audit().filter(
      (r) =>
        r.kind === 'tool_call' &&
        r.tool === tool &&
        r.outcome === 'succeeded' &&
        r.arguments.dry_run !== true,
    ).length;

  let sessionId = '';
  const ledgerA = tempDataDir().dir;

  it('registers the harness connector (identity trueforge, a caller)', async () => {
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
    const connector = harness.mcpServers.get('sentinel') as { auth: { headers: { Authorization: string } } };
    trueforgeToken = connector.auth.headers.Authorization.replace(/^Bearer /, '');
    expect(trueforgeToken).not.toBe('');
  });

  it('three turns, two pauses: a kill at each prompt, a resume after each turn; yes to the rollback, no to the scale', async () => {
    // Turn 1 pauses on the rollback; the process stops at the prompt (input ends).
    harness.script(proposeRollback);
    const killed1 = await cli({ symptom: 'checkout returns 502', dataDir: ledgerA });
    expect(killed1.result.status).toBe('pending');
    sessionId = killed1.result.sessionId;
    expect(killed1.stderr).toContain('Roll back Deployment shop/checkout from revision 3');
    // While the prompt was up the call was also on the approvals page; it stays pending there.
    const held = await approvals();
    expect(held.map((r) => [r.tool, r.status, r.requester, r.client_ref?.tool_call_id])).toEqual([
      ['rollback_deployment', 'pending', 'trueforge', 'call_rollback_deployment_11'],
    ]);
    expect(killed1.stderr).toContain(
      `also waiting on the approvals page (${server.url}/ui/approvals) as approval request ${held[0]!.id}`,
    );

    // Resume after the kill: the same question, answered yes; turn 2 pauses on the scale; killed.
    harness.script(proposeScale);
    const resumed1 = await cli({ resume: sessionId, answers: ['checkout'], dataDir: ledgerA });
    // The rollback, then the scale (input ends): each dangerous, so the Deployment's name is asked.
    expect(resumed1.asked).toEqual([typeCheckout, typeCheckout]);
    expect(resumed1.result.status).toBe('pending');
    // Every prompt shows tool, resolved arguments, sentence, preview, cluster and harness reference.
    expect(resumed1.stderr).toMatch(
      /\nRoll back Deployment shop\/checkout from revision 3 \(\S+\) to revision 2 \(\S+\)\?\n/,
    );
    expect(resumed1.stderr).toContain(
      '    Tool: rollback_deployment name=checkout namespace=shop to_revision=2 (as the Sentinel server resolved it)',
    );
    expect(resumed1.stderr).toMatch(/ {4}Cluster: context \S+, API server http/);
    expect(resumed1.stderr).toContain(
      `    Harness: TrueForge session ${sessionId}, turn ${killed1.result.turnId}, tool call call_rollback_deployment_11 (${harness.url})`,
    );
    expect(resumed1.stderr).toContain('Scale Deployment shop/checkout from 3 to 5 replicas?');
    expect(checkoutChanges()).toBe(1);

    // Resume after the second kill: the turn-1 pause is history (still listing its old
    // required_actions), so only the scale is asked; no, with a reason.
    harness.script(conclude);
    const resumed2 = await cli({
      resume: sessionId,
      answers: ['n', 'fix forward instead'],
      dataDir: ledgerA,
    });
    expect(resumed2.result.status).toBe('done');
    expect(resumed2.asked).toEqual([typeCheckout, 'Reason, shown to the agent (optional): ']);
    expect(resumed2.stderr).not.toContain('Roll back Deployment');
    expect(resumed2.stderr).toMatch(
      /declined; recorded at the Sentinel server as approval request apr_\w+ \(denied by alice\)/,
    );
    expect(resumed2.stdout).toContain('Checkout is recovering.');

    // Resume after the last turn: nothing pending, nothing asked, nothing sent.
    const posts = harness.turnBodies().length;
    const resumed3 = await cli({ resume: sessionId, dataDir: ledgerA });
    expect(resumed3.result.status).toBe('done');
    expect(resumed3.asked).toEqual([]);
    expect(harness.turnBodies()).toHaveLength(posts);

    // Counts: one execution for the approved model call, none for the denied one.
    expect(checkoutChanges()).toBe(1);
    expect(checkoutChanges('scale')).toBe(0);
    expect(harness.executed.map((e) => e.toolCallId)).toEqual(['call_rollback_deployment_11']);
    expect(auditedExecutions('rollback_deployment')).toBe(1);
    expect(auditedExecutions('scale_deployment')).toBe(0);
    const requests = await approvals();
    expect(requests.map((r) => [r.tool, r.status, r.client_ref?.tool_call_id])).toEqual([
      ['scale_deployment', 'denied', 'call_scale_deployment_12'],
      ['rollback_deployment', 'executed', 'call_rollback_deployment_11'],
    ]);
    // The denial is in the audit log: who declined what, with the reason.
    const denial = audit().find((r) => r.kind === 'approval' && r.outcome === 'denied');
    expect(denial).toMatchObject({
      identity: 'alice',
      tool: 'scale_deployment',
      approver: 'alice',
      reason: 'fix forward instead',
      approval_request_id: requests[0]!.id,
    });
  });

  it('an identical call through POST /mcp with the harness identity gets the isError denial text', async () => {
    const client = new Client({ name: 'direct', version: '0' });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(`${server.url}/mcp`), {
        requestInit: { headers: { authorization: `Bearer ${trueforgeToken}` } },
      }),
    );
    try {
      const result = await client.callTool({ name: 'scale_deployment', arguments: SCALE });
      expect(result.isError).toBe(true);
      const text = (result.content as { text: string }[]).map((c) => c.text).join('\n');
      expect(text).toContain('was denied by alice: fix forward instead');
      expect(text).toContain(
        'A human reviewed and declined this exact scale_deployment call. It was not run and nothing changed.',
      );
      expect(text).toContain(
        'Do not attempt it again. Tell the user it was declined and offer alternatives.',
      );
    } finally {
      await client.close();
    }
    expect(checkoutChanges('scale')).toBe(0);
  });

  it('replaying every resumed turn with previous_turn_id (allow, and the deny flipped to allow) executes nothing new', async () => {
    const client = new TrueForgeClient({ url: harness.url });
    const turns = await client.listTurns(sessionId);
    const paused = turns.filter((t) => t.state.status === 'done' && t.state.required_actions.length > 0);
    expect(paused).toHaveLength(2);
    const sentBefore = harness.executed.length;
    for (const turn of paused) {
      const state = turn.state as { required_actions: { tool_calls: { id: string }[] }[] };
      for (const action of state.required_actions) {
        const input = action.tool_calls.map((call) => ({
          type: 'user.tool_approval' as const,
          thread_id: 'main',
          tool_call_id: call.id,
          approval: { status: 'allow' as const },
        }));
        for await (const _ of client.streamTurn(sessionId, { input, previous_turn_id: turn.id })) void _;
      }
    }
    // The harness did re-send both calls (its replay defect) ...
    expect(harness.executed.length).toBe(sentBefore + 2);
    // ... and the server ran neither: one rollback, no scale, as before.
    expect(checkoutChanges()).toBe(1);
    expect(checkoutChanges('scale')).toBe(0);
    expect(auditedExecutions('rollback_deployment')).toBe(1);
    expect(auditedExecutions('scale_deployment')).toBe(0);
    for (const sent of harness.executed.slice(sentBefore)) {
      expect((sent.result as { _meta?: { approval_status?: string } })._meta?.approval_status).not.toBe(
        'executed',
      );
    }
  });

  it('one tool call answered from two CLI processes at once, and from a second data directory: one grant, one execution', async () => {
    const restartProposal: TurnScript = () => [
      {
        kind: 'message',
        text: 'A rolling restart clears the stuck connections.',
        calls: [{ id: 'call_restart_service_21', name: 'restart_service', arguments: RESTART }],
      },
      { kind: 'approval', callIds: ['call_restart_service_21'] },
    ];
    harness.script(restartProposal);
    const first = await cli({ symptom: 'checkout slow', dataDir: tempDataDir().dir });
    expect(first.result.status).toBe('pending');
    const session = first.result.sessionId;
    const restartsBefore = checkoutChanges();

    // Two processes, two data directories, the same paused turn, both answering yes at once.
    harness.script(conclude); // one answer is taken
    const both = await Promise.allSettled([
      cli({ resume: session, yes: true, confirm: ['checkout'], dataDir: tempDataDir().dir }),
      cli({ resume: session, yes: true, confirm: ['checkout'], dataDir: tempDataDir().dir }),
    ]);
    // The harness takes the first answer and refuses the second (it chains to the last turn, never
    // naming the answered one: no replay, defect 1); the process refused follows the turn taken.
    expect(both.map((b) => (b.status === 'fulfilled' ? b.value.result.status : b.reason))).toEqual([
      'done',
      'done',
    ]);
    expect(harness.executed.filter((e) => e.toolCallId === 'call_restart_service_21')).toHaveLength(1);

    const ref = {
      harness_url: harness.url,
      session_id: session,
      turn_id: first.result.turnId,
      tool_call_id: 'call_restart_service_21',
    };
    const granted = ApprovalListSchema.parse(
      (
        await server.api(
          server.tokens.root,
          'GET',
          `/approvals?client_ref=${encodeURIComponent(clientRefKey(ref))}`,
        )
      ).body,
    ).approvals;
    expect(granted).toHaveLength(1);
    expect(granted[0]!.status).toBe('executed');
    expect(checkoutChanges()).toBe(restartsBefore + 1);

    // A third machine (empty ledger) asking for the same tool call: the server's first answer
    // stands — shown as decided, not asked, no second grant.
    const grants = new SentinelServerClient({ url: `${server.url}/mcp`, token: server.tokens.alice });
    try {
      const again = await grants.preapprove({ tool: 'restart_service', arguments: RESTART }, undefined, ref);
      expect(again).toMatchObject({ id: granted[0]!.id, existing: { decision: 'allow', by: 'alice' } });
    } finally {
      await grants.close();
    }
    expect((await approvals()).filter((r) => r.tool === 'restart_service')).toHaveLength(1);
    expect(checkoutChanges()).toBe(restartsBefore + 1);
  });

  it('a paused turn answered by another process while this one decided: answered once, one approval request, one execution', async () => {
    const scaleRequests = async () => (await approvals()).filter((r) => r.tool === 'scale_deployment').length;
    const requestsBefore = await scaleRequests();
    harness.script(() => [
      {
        kind: 'message',
        text: 'One more replica absorbs the backlog.',
        calls: [{ id: 'call_scale_deployment_22', name: 'scale_deployment', arguments: SCALE_BY_ONE }],
      },
      { kind: 'approval', callIds: ['call_scale_deployment_22'] },
    ]);
    const first = await cli({ symptom: 'checkout queue grows', dataDir: tempDataDir().dir });
    expect(first.result.status).toBe('pending');
    const session = first.result.sessionId;
    const scalesBefore = checkoutChanges('scale');

    // Process B decides (its grant is the server's first answer) and is held just before it answers
    // the harness; process A, on another machine, finds B's grant and answers the harness first.
    const slow = new HeldTurnsClient(harness.url);
    harness.script(conclude);
    const b = cli({
      resume: session,
      yes: true,
      confirm: ['checkout'],
      dataDir: tempDataDir().dir,
      client: slow,
    });
    await slow.reached;
    const a = await cli({ resume: session, yes: true, confirm: ['checkout'], dataDir: tempDataDir().dir });
    expect(a.result.status).toBe('done');
    slow.release();
    const late = await b;

    // B's answer is no replay of the answered turn (the harness would send the call again, and the
    // server would hold it as a new request): the harness sent the call once, on one request.
    expect(harness.executed.filter((e) => e.toolCallId === 'call_scale_deployment_22')).toHaveLength(1);
    expect(await scaleRequests()).toBe(requestsBefore + 1);
    expect(checkoutChanges('scale')).toBe(scalesBefore + 1);
    // B follows the turn A's answer started instead.
    expect(late.result.status).toBe('done');
    expect(late.stderr).toContain(`Turn ${first.result.turnId} was answered meanwhile`);
  });

  it('a call granted by a process that died before answering the harness is not asked again elsewhere', async () => {
    const pauseProposal: TurnScript = () => [
      {
        kind: 'message',
        calls: [{ id: 'call_pause_rollout_31', name: 'pause_rollout', arguments: RESTART }],
      },
      { kind: 'approval', callIds: ['call_pause_rollout_31'] },
    ];
    harness.script(pauseProposal);
    const first = await cli({ symptom: 'pause it', dataDir: tempDataDir().dir });
    const ref = {
      harness_url: harness.url,
      session_id: first.result.sessionId,
      turn_id: first.result.turnId,
      tool_call_id: 'call_pause_rollout_31',
    };
    // The grant is made (as the dying process did) but the harness never heard.
    const grants = new SentinelServerClient({ url: `${server.url}/mcp`, token: server.tokens.alice });
    const made = await grants.preapprove({ tool: 'pause_rollout', arguments: RESTART }, undefined, ref);
    await grants.close();

    harness.script(conclude);
    const elsewhere = await cli({ resume: first.result.sessionId, dataDir: tempDataDir().dir });
    expect(elsewhere.asked).toEqual([]);
    expect(elsewhere.stderr).toMatch(
      new RegExp(`already approved by alice \\d+ min ago \\(request ${made.id}\\); not asked again`),
    );
    expect(elsewhere.result.status).toBe('done');
    expect(harness.executed.filter((e) => e.toolCallId === 'call_pause_rollout_31')).toHaveLength(1);
    expect(auditedExecutions('pause_rollout')).toBe(1);
  });

  it('executions per approved model call = 1, per denied model call = 0 (audit log against the simulator)', async () => {
    // Approved: the rollback, the restart, the scale by one (call_scale_deployment_22), the pause.
    for (const tool of ['rollback_deployment', 'restart_service', 'scale_deployment', 'pause_rollout']) {
      expect(auditedExecutions(tool)).toBe(1);
    }
    // Denied: the scale to 5 (call_scale_deployment_12), which never ran.
    const denied = (await approvals()).filter((r) => r.status === 'denied');
    expect(denied.map((r) => r.client_ref?.tool_call_id)).toEqual(['call_scale_deployment_12']);
    const ranOnDenied = audit().filter(
      (r) => r.kind === 'tool_call' && r.approval_request_id === denied[0]!.id && r.outcome === 'succeeded',
    );
    expect(ranOnDenied).toHaveLength(0);
    // Every change that ran did so on a human's approval request.
    const changes = audit().filter(
      (r) =>
        r.kind === 'tool_call' &&
        r.outcome === 'succeeded' &&
        allTools.find((t) => t.name === r.tool)?.risk !== 'read' &&
        r.arguments.dry_run !== true,
    );
    expect(changes).toHaveLength(4);
    for (const change of changes) expect(change).toMatchObject({ approver: 'alice', decision: 'ask' });
  });
});
