import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TrueForgeClient } from '../../../trueforge/client.ts';
import { DEFAULT_DENY_REASON } from '../../../agent/harness/decisions.ts';
import {
  runHarnessInvestigation,
  type HarnessInvestigationOptions,
} from '../../../agent/harness/investigate.ts';
import type { ApprovalDecision } from '../../../trueforge/schemas.ts';
import { SentinelError } from '../../../tools/errors.ts';
import {
  FakeTrueForge,
  type ScriptContext,
  type Step,
  type TurnScript,
} from '../../helpers/fake-trueforge.ts';
import { RecordingGrants, scriptedPrompter } from '../../helpers/recording-grants.ts';

const ROLLBACK = { namespace: 'shop', name: 'checkout', reason: 'bad image in revision 7' };
const SCALE = { namespace: 'shop', name: 'cart', replicas: 4 };
const ROLLBACK_QUESTION =
  'Roll back Deployment shop/checkout from revision 7 (checkout:2.4.1) to revision 6 (checkout:2.4.0)?';
const SCALE_QUESTION = 'Scale Deployment shop/cart from 2 to 4 replicas?';
/** The typed-name questions of the two dangerous calls (no request held on the page: the call id). */
const TYPE_CHECKOUT = `${ROLLBACK_QUESTION.replace(/\?$/, '.')}\nType 'checkout' to approve call_rb (Enter or n declines): `;
const TYPE_CART = `${SCALE_QUESTION.replace(/\?$/, '.')}\nType 'cart' to approve call_sc (Enter or n declines): `;

/** The model investigates, then proposes two remediations in one message: one approval event. */
const proposeTwo: TurnScript = () => [
  { kind: 'message', calls: [{ id: 'call_pods', name: 'list_pods', arguments: { namespace: 'shop' } }] },
  { kind: 'tool.response', callId: 'call_pods', content: 'checkout-7f9 0/1 CrashLoopBackOff' },
  {
    kind: 'message',
    text: 'Revision 7 crashes on start; revision 6 was healthy.',
    calls: [
      { id: 'call_rb', name: 'rollback_deployment', arguments: ROLLBACK },
      { id: 'call_sc', name: 'scale_deployment', arguments: SCALE },
    ],
  },
  { kind: 'approval', callIds: ['call_rb', 'call_sc'] },
];

/** After the decisions: a response per call (denied ones as the harness reports them), then a summary. */
const finish: TurnScript = ({ input }: ScriptContext) => [
  ...input.map((item): Step => ({
    kind: 'tool.response',
    thread: item.thread_id,
    callId: item.tool_call_id!,
    content:
      item.approval?.status === 'allow'
        ? 'done'
        : JSON.stringify({
            error: [{ type: 'text', text: `{"error":"User denied tool call: ${item.approval?.reason}"}` }],
          }),
  })),
  { kind: 'message', text: 'Checkout is healthy again on revision 6.' },
];

/** One `user.tool_approval` item as the CLI must send it. */
function decision(toolCallId: string, approval: ApprovalDecision, threadId = 'main') {
  return { type: 'user.tool_approval', thread_id: threadId, tool_call_id: toolCallId, approval };
}

describe('sentinel investigate in harness mode (fake TrueForge)', () => {
  let harness: FakeTrueForge;
  let timeline: string[];
  let stdout: string;
  let stderr: string;

  const options = (extra: Partial<HarnessInvestigationOptions>): HarnessInvestigationOptions => ({
    client: new TrueForgeClient({ url: harness.url }),
    grants: new RecordingGrants(timeline),
    prompter: scriptedPrompter([]),
    output: {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
    },
    symptom: 'checkout returns 502 since 02:10',
    ...extra,
  });

  async function start(harnessOptions: ConstructorParameters<typeof FakeTrueForge>[0] = {}) {
    timeline = [];
    harness = await new FakeTrueForge({ timeline, ...harnessOptions }).start();
    harness.agents.set('agent-1', { id: 'agent-1', name: 'sentinel', manifest: { model: { name: 'm' } } });
  }

  beforeEach(async () => {
    stdout = '';
    stderr = '';
    await start();
  });
  afterEach(() => harness.close());

  it('renders both calls of one approval event, grants them on the server first, then sends one approval turn', async () => {
    harness.script(proposeTwo, finish);
    const grants = new RecordingGrants(timeline);
    const prompter = scriptedPrompter(['checkout', 'cart']);
    const result = await runHarnessInvestigation(options({ grants, prompter }));

    expect(result.status).toBe('done');
    expect(prompter.asked).toEqual([TYPE_CHECKOUT, TYPE_CART]);
    expect(stderr).toContain(`\n${ROLLBACK_QUESTION}\n    Deployment shop/checkout: revision 7 → 6\n`);
    expect(stderr).toContain(`\n${SCALE_QUESTION}\n    replicas 2 → 4\n`);
    expect(grants.previewed).toEqual([
      { tool: 'rollback_deployment', arguments: ROLLBACK },
      { tool: 'scale_deployment', arguments: SCALE },
    ]);
    expect(grants.preapproved).toEqual([
      { tool: 'rollback_deployment', arguments: ROLLBACK },
      { tool: 'scale_deployment', arguments: SCALE },
    ]);

    const [first, second] = harness.turnBodies();
    expect(first).toEqual({
      input: [{ type: 'user.message', content: 'checkout returns 502 since 02:10' }],
      stream: true,
    });
    // Chained to the session's last turn, never naming the paused one (a replay if it was answered).
    expect(second).toEqual({
      input: [decision('call_rb', { status: 'allow' }), decision('call_sc', { status: 'allow' })],
      previous_turn_id: 'auto',
      stream: true,
    });
    // Both grants exist on the server before the harness hears "allow".
    const turnPosts = timeline.flatMap((entry, i) =>
      entry.endsWith('/turns') && entry.includes('POST') ? [i] : [],
    );
    expect(turnPosts).toHaveLength(2);
    expect(timeline.indexOf('grant rollback_deployment')).toBeLessThan(turnPosts[1]!);
    expect(timeline.indexOf('grant scale_deployment')).toBeLessThan(turnPosts[1]!);
    expect(timeline.indexOf('grant rollback_deployment')).toBeGreaterThan(turnPosts[0]!);
    expect(result.decisions.map((d) => [d.call.toolCallId, d.grantId])).toEqual([
      ['call_rb', 'apr_1'],
      ['call_sc', 'apr_2'],
    ]);

    // The agent's words on stdout, tool activity on stderr.
    expect(stdout).toBe(
      'Revision 7 crashes on start; revision 6 was healthy.\nCheckout is healthy again on revision 6.\n',
    );
    expect(stderr).toContain('→ list_pods {"namespace":"shop"}');
    expect(stderr).toContain('← list_pods: checkout-7f9 0/1 CrashLoopBackOff');
    expect(stderr).toContain(
      '→ rollback_deployment {"namespace":"shop","name":"checkout","reason":"bad image in revision 7"}',
    );
    expect(stderr).toContain('⏸ waiting for approval of 2 call(s)');
    expect(stderr).toContain('granted on the Sentinel server as approval request apr_1');
  });

  it('sends a deny with the human reason and grants only the allowed call', async () => {
    harness.script(proposeTwo, finish);
    const grants = new RecordingGrants(timeline);
    const prompter = scriptedPrompter(['n', 'scaling will not fix a crash', 'cart']);
    await runHarnessInvestigation(options({ grants, prompter }));

    expect(prompter.asked).toEqual([TYPE_CHECKOUT, 'Reason, shown to the agent (optional): ', TYPE_CART]);
    expect(grants.preapproved).toEqual([{ tool: 'scale_deployment', arguments: SCALE }]);
    expect(harness.turnBodies()[1]!.input).toEqual([
      decision('call_rb', { status: 'deny', reason: 'scaling will not fix a crash' }),
      decision('call_sc', { status: 'allow' }),
    ]);
    // The "no" is recorded at the server — exact call, reason, the harness tool call — before the
    // harness hears the deny.
    expect(grants.denied).toEqual([
      {
        call: { tool: 'rollback_deployment', arguments: ROLLBACK },
        reason: 'scaling will not fix a crash',
        ref: expect.objectContaining({
          tool_call_id: 'call_rb',
          session_id: expect.stringMatching(/^session-/),
        }),
      },
    ]);
    const lastTurnPost = timeline.map((entry, i) =>
      entry.includes('POST') && entry.endsWith('/turns') ? i : -1,
    );
    expect(timeline.indexOf('deny rollback_deployment')).toBeLessThan(Math.max(...lastTurnPost));
    expect(stderr).toContain(
      'declined; recorded at the Sentinel server as approval request apr_d1 (denied by alice)',
    );
  });

  it('approves everything with --yes --confirm naming each dangerous call, without asking', async () => {
    harness.script(proposeTwo, finish);
    const prompter = scriptedPrompter([]);
    const grants = new RecordingGrants(timeline);
    const result = await runHarnessInvestigation(
      options({ grants, prompter, autoApprove: true, confirm: ['checkout', 'cart'] }),
    );
    expect(prompter.asked).toEqual([]);
    expect(grants.preapproved).toHaveLength(2);
    expect(result.decisions.every((d) => d.approval.status === 'allow')).toBe(true);
    expect(stderr).toContain('approved (--yes --confirm checkout)');
    expect(stderr).toContain('approved (--yes --confirm cart)');
  });

  it('turns a grant the server refuses into a deny that says why, still resolving every call in one turn', async () => {
    harness.script(proposeTwo, finish);
    const grants = new RecordingGrants(timeline, {
      refuse: (call) =>
        call.tool === 'rollback_deployment'
          ? "policy rule 'freeze' denies rollback_deployment in shop"
          : undefined,
    });
    const result = await runHarnessInvestigation(
      options({ grants, prompter: scriptedPrompter(['checkout', 'cart']) }),
    );
    expect(result.status).toBe('done');
    expect(harness.turnBodies()[1]!.input).toEqual([
      decision('call_rb', {
        status: 'deny',
        reason:
          "Not approved: the Sentinel server did not grant this call (policy rule 'freeze' denies rollback_deployment in shop).",
      }),
      decision('call_sc', { status: 'allow' }),
    ]);
    expect(stderr).toContain("not approved: policy rule 'freeze' denies rollback_deployment in shop");
  });

  it('answers a subagent thread on its own thread id', async () => {
    harness.script(
      () => [
        {
          kind: 'message',
          calls: [{ id: 'call_spawn', name: 'spawn_agent', arguments: {}, server: 'truefoundry' }],
        },
        {
          kind: 'thread.created',
          thread: 'sub-1',
          title: 'rollout fixer',
          parent: { thread: 'main', callId: 'call_spawn' },
        },
        {
          kind: 'message',
          thread: 'sub-1',
          text: 'Restarting checkout.',
          calls: [
            { id: 'call_rs', name: 'restart_service', arguments: { namespace: 'shop', name: 'checkout' } },
          ],
        },
        { kind: 'approval', thread: 'sub-1', callIds: ['call_rs'] },
      ],
      finish,
    );
    const grants = new RecordingGrants(timeline);
    await runHarnessInvestigation(options({ grants, prompter: scriptedPrompter(['checkout']) }));
    expect(stderr).toContain('[sub-1] subagent thread started: rollout fixer');
    expect(stderr).toContain(
      '\n[sub-1] Restart the Pods of shop/checkout (rolling restart, as `kubectl rollout restart`)?\n    no preview: restart_service has no dry run\n',
    );
    expect(stdout).toContain('[sub-1] Restarting checkout.');
    expect(grants.preapproved).toEqual([
      { tool: 'restart_service', arguments: { namespace: 'shop', name: 'checkout' } },
    ]);
    expect(harness.turnBodies()[1]!.input).toEqual([decision('call_rs', { status: 'allow' }, 'sub-1')]);
  });

  it('leaves the calls pending and grants nothing when input ends, then resumes from required_actions', async () => {
    harness.script(proposeTwo, finish);
    const firstGrants = new RecordingGrants(timeline);
    const first = await runHarnessInvestigation(
      options({ grants: firstGrants, prompter: scriptedPrompter(['checkout']) }),
    );
    expect(first.status).toBe('pending');
    expect(firstGrants.preapproved).toEqual([]);
    expect(harness.turnBodies()).toHaveLength(1);
    expect(stderr).toContain(`sentinel investigate --resume-session ${first.sessionId}`);

    // A new process: nothing indexed; what is pending comes from the turn's state and events.
    const requestsBefore = harness.requests.length;
    stderr = '';
    const grants = new RecordingGrants(timeline);
    const resumed = await runHarnessInvestigation(
      options({
        grants,
        prompter: scriptedPrompter(['checkout', 'n', '']),
        symptom: undefined,
        resumeSessionId: first.sessionId,
      }),
    );
    expect(resumed.status).toBe('done');
    const reads = harness.requests
      .slice(requestsBefore)
      .map((r) => `${r.method} ${r.path.replace(/^.*\/sessions\/[^/]+/, '')}`);
    // Latest turn, then (its message not being indexed) the turn's persisted events.
    expect(reads.slice(0, 2)).toEqual(['GET /turns', `GET /turns/${first.turnId}/events`]);
    expect(harness.requests.slice(requestsBefore).some((r) => r.path.endsWith('/sessions'))).toBe(false);
    expect(stderr).toContain(`Resuming session ${first.sessionId} at turn ${first.turnId} (done).`);
    expect(stderr).toContain(ROLLBACK_QUESTION);
    expect(grants.preapproved).toEqual([{ tool: 'rollback_deployment', arguments: ROLLBACK }]);
    expect(harness.turnBodies()[1]).toEqual({
      input: [
        decision('call_rb', { status: 'allow' }),
        decision('call_sc', { status: 'deny', reason: DEFAULT_DENY_REASON }),
      ],
      previous_turn_id: 'auto',
      stream: true,
    });
  });

  it('recovers from streams dropped mid-message by reading each finished turn back', async () => {
    await harness.close();
    await start({ dropStreamAfter: 5 }); // turn.created, mcp.initialize, a base message, two deltas: then the socket dies
    harness.script(proposeTwo, finish);
    const grants = new RecordingGrants(timeline);
    const result = await runHarnessInvestigation(
      options({ grants, prompter: scriptedPrompter(['checkout', 'cart']) }),
    );

    expect(result.status).toBe('done');
    const reads = harness.requests
      .filter((r) => r.method === 'GET')
      .map((r) => r.path.replace(/^.*\/turns\//, ''));
    const turn = expect.stringMatching(/^turn-\d+\.local$/);
    const events = expect.stringMatching(/^turn-\d+\.local\/events$/);
    expect(reads).toEqual([turn, events, turn, events]);
    expect(grants.preapproved).toHaveLength(2);
    expect(harness.turnBodies()[1]!.input).toHaveLength(2);
    // What the dropped streams did not show is shown from the persisted events.
    expect(stderr).toContain(ROLLBACK_QUESTION);
    expect(stderr).toContain('→ rollback_deployment');
    expect(stdout).toContain('Checkout is healthy again on revision 6.');
  });

  it('reports a failed turn and a harness that rejects the decisions (422) clearly', async () => {
    harness.script(() => [{ kind: 'error', message: 'model provider returned 429' }]);
    const failed = await runHarnessInvestigation(options({})).catch((e: unknown) => e as SentinelError);
    expect(failed).toBeInstanceOf(SentinelError);
    expect((failed as SentinelError).message).toMatch(
      /^The harness turn turn-\d+\.local failed: model provider returned 429$/,
    );

    // The harness waits for one more call than it reported: it answers 422 "Missing".
    await harness.close();
    await start({ hiddenPending: [{ threadId: 'main', toolCallId: 'call_hidden' }] });
    harness.script(proposeTwo);
    const grants = new RecordingGrants(timeline);
    const prompter = scriptedPrompter(['checkout', 'cart']);
    const rejected = await runHarnessInvestigation(options({ grants, prompter })).catch(
      (e: unknown) => e as SentinelError,
    );
    expect(rejected).toBeInstanceOf(SentinelError);
    expect((rejected as SentinelError).code).toBe('conflict');
    expect((rejected as SentinelError).message).toContain('answered 422 to POST /api/v1/sessions/session-');
    expect((rejected as SentinelError).message).toContain('Missing: call_hidden.');
    expect((rejected as SentinelError).message).toContain(
      `Answer again with: npx sentinel investigate --resume-session session-`,
    );
    expect((rejected as SentinelError).message).toMatch(
      /\(grants apr_1, apr_2 on the Sentinel server stay unused and are reused\)\.$/,
    );
  });
});
