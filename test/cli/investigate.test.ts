import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { main } from '../../cli/program.ts';
import { tempDataDir } from '../helpers/server.ts';
import { captureProcessOutput } from '../helpers/capture-output.ts';
import { FakeTrueForge, type TurnScript } from '../helpers/fake-trueforge.ts';
import { APPROVER_TOKEN, startSentinelStandIn } from '../helpers/sentinel-stand-in.ts';

const ROLLBACK = { namespace: 'shop', name: 'checkout', to_revision: 6 };

const proposeRollback: TurnScript = () => [
  {
    kind: 'message',
    text: 'Revision 7 crashes; rolling back.',
    calls: [{ id: 'call_rb', name: 'rollback_deployment', arguments: ROLLBACK }],
  },
  { kind: 'approval', callIds: ['call_rb'] },
];
const finish: TurnScript = () => [
  { kind: 'tool.response', callId: 'call_rb', content: 'rolled back to revision 6' },
  { kind: 'message', text: 'Checkout is healthy.' },
];

describe('sentinel investigate --harness (command line)', () => {
  let harness: FakeTrueForge;
  let sentinel: Awaited<ReturnType<typeof startSentinelStandIn>>;
  let timeline: string[];
  const output = captureProcessOutput();

  beforeAll(async () => {
    timeline = [];
    harness = await new FakeTrueForge({ timeline }).start();
    harness.agents.set('agent-1', { id: 'agent-1', name: 'sentinel', manifest: { model: { name: 'm' } } });
    sentinel = await startSentinelStandIn(timeline);
  });
  afterAll(async () => {
    await harness.close();
    await sentinel.close();
  });

  // The harness ledger goes to the data directory: never the developer's ~/.sentinel.
  const ledgerDir = tempDataDir().dir;
  const investigate = (...args: string[]) =>
    main([
      'node',
      'sentinel',
      'investigate',
      ...args,
      ...(args.includes('--data-dir') ? [] : ['--data-dir', ledgerDir]),
    ]);

  it('runs the loop with --yes: preview, grant on the server, then the approval turn', async () => {
    harness.script(proposeRollback, finish);
    vi.stubEnv('SENTINEL_HARNESS_URL', harness.url);
    vi.stubEnv('SENTINEL_TOKEN', APPROVER_TOKEN);
    await investigate('checkout returns 502', '--server', sentinel.url, '--yes', '--confirm', 'checkout');

    expect(process.exitCode).toBeUndefined();
    expect(output.out).toBe('Revision 7 crashes; rolling back.\nCheckout is healthy.\n');
    expect(output.err).toContain(
      'Roll back Deployment shop/checkout from revision 7 (checkout:2.4.1) to revision 6 (checkout:2.4.0)?',
    );
    expect(output.err).toContain('    would roll back shop/checkout: revision 7 → 6');
    expect(sentinel.toolCalls).toEqual([
      {
        name: 'rollback_deployment',
        args: { ...ROLLBACK, dry_run: true },
        authorization: `Bearer ${APPROVER_TOKEN}`,
      },
    ]);
    expect(sentinel.approvals).toEqual([
      {
        body: {
          requester: 'trueforge',
          tool: 'rollback_deployment',
          arguments: ROLLBACK,
          client_ref: {
            harness_url: harness.url,
            session_id: [...harness.sessions.keys()][0],
            turn_id: harness.sessions.values().next().value!.turns[0]!.id,
            tool_call_id: expect.any(String),
          },
        },
        authorization: `Bearer ${APPROVER_TOKEN}`,
      },
    ]);
    const grantAt = timeline.indexOf('sentinel POST /approvals rollback_deployment');
    const approvalTurnAt = timeline.lastIndexOf(
      `harness POST /api/v1/sessions/${[...harness.sessions.keys()][0]}/turns`,
    );
    expect(grantAt).toBeGreaterThan(-1);
    expect(grantAt).toBeLessThan(approvalTurnAt);
    expect(harness.turnBodies()[1]!.input).toEqual([
      {
        type: 'user.tool_approval',
        thread_id: 'main',
        tool_call_id: 'call_rb',
        approval: { status: 'allow' },
      },
    ]);
  });

  it('--yes without --confirm refuses a rollback: exit 2, nothing granted or sent, the call still pending', async () => {
    harness.script(proposeRollback);
    const approvalsBefore = sentinel.approvals.length;
    const turnsBefore = harness.turnBodies().length;
    await investigate(
      'checkout returns 502',
      '--harness',
      harness.url,
      '--server',
      sentinel.url,
      '--token',
      APPROVER_TOKEN,
      '--yes',
    );
    expect(process.exitCode).toBe(2);
    const session = [...harness.sessions.values()].at(-1)!;
    expect(output.err.trim().split('\n').at(-1)).toBe(
      `sentinel: Tool call call_rb (rollback_deployment) is dangerous: --yes approves it only with --confirm checkout (the Deployment's name), as \`npx sentinel approvals approve --confirm\` needs. Roll back Deployment shop/checkout from revision 7 (checkout:2.4.1) to revision 6 (checkout:2.4.0). Nothing was approved or sent to the harness; the call stays pending: resume with \`npx sentinel investigate --harness ${harness.url} --resume-session ${session.id} --yes --confirm checkout\`.`,
    );
    expect(sentinel.approvals).toHaveLength(approvalsBefore);
    expect(harness.turnBodies()).toHaveLength(turnsBefore + 1); // the first turn only
    expect(session.turns.at(-1)!.pending.map((p) => p.toolCallId)).toEqual(['call_rb']);
  });

  it('prints a harness rejection (422) as one line, without a stack, and exits non-zero', async () => {
    const drifted = await new FakeTrueForge({
      hiddenPending: [{ threadId: 'main', toolCallId: 'call_ghost' }],
    }).start();
    try {
      drifted.agents.set('agent-1', { id: 'agent-1', name: 'sentinel', manifest: { model: { name: 'm' } } });
      drifted.script(proposeRollback);
      await investigate(
        'checkout returns 502',
        '--harness',
        drifted.url,
        '--server',
        sentinel.url,
        '--token',
        APPROVER_TOKEN,
        '--yes',
        '--confirm',
        'checkout',
      );
      expect(output.err.trim().split('\n').at(-1)).toBe(
        'sentinel: TrueForge harness answered 422 to POST /api/v1/sessions/session-1/turns: Send batch must resolve all pending tool calls (approve or deny each). Missing: call_ghost. The harness still waits for a decision on every pending tool call of the paused turn. Answer again with: npx sentinel investigate --resume-session session-1 (grants apr_0000000000000002 on the Sentinel server stay unused and are reused).',
      );
      expect(output.err).not.toMatch(/\n\s+at /);
      expect(process.exitCode).toBe(1);
    } finally {
      await drifted.close();
    }
  });

  it("uses the local identity's token from the data directory when no token is given", async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sentinel-investigate-'));
    try {
      writeFileSync(join(dataDir, 'local.token'), `${APPROVER_TOKEN}\n`, { mode: 0o600 });
      harness.script(proposeRollback, finish);
      // The earlier test's grant was never used (this fake harness runs nothing): mark it used.
      for (const request of sentinel.requests) request.status = 'executed';
      const approvalsBefore = sentinel.approvals.length;
      await investigate(
        'checkout returns 502',
        '--harness',
        harness.url,
        '--server',
        sentinel.url,
        '--data-dir',
        dataDir,
        '--yes',
        '--confirm',
        'checkout',
      );
      expect(process.exitCode).toBeUndefined();
      expect(sentinel.approvals.slice(approvalsBefore).map((a) => a.authorization)).toEqual([
        `Bearer ${APPROVER_TOKEN}`,
      ]);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('asks for what is missing: the token, --harness with --resume-session, a symptom', async () => {
    const empty = mkdtempSync(join(tmpdir(), 'sentinel-investigate-'));
    try {
      await investigate('x', '--harness', harness.url, '--data-dir', empty);
      expect(output.err).toBe(
        `sentinel: Harness mode needs your Sentinel token (an approver) to preview and approve calls on the Sentinel server: pass --token or set SENTINEL_TOKEN (on the server's machine, ${join(empty, 'local.token')} is used when present).\n`,
      );
      expect(process.exitCode).toBe(2);
    } finally {
      rmSync(empty, { recursive: true, force: true });
    }

    output.clear();
    await investigate('--resume-session', 'session-1');
    expect(output.err).toBe('sentinel: --resume-session continues a harness session: add --harness <url>.\n');

    output.clear();
    await investigate('--harness', harness.url, '--token', 't');
    expect(output.err).toBe(
      'sentinel: Describe the symptom to investigate, e.g. "checkout returns 502 since 02:10".\n',
    );
  });

  it('refuses a new symptom given with --resume or --resume-session, naming both (exit 2)', async () => {
    await investigate('checkout is slow now', '--resume', 'inv_0123456789abcdef');
    expect(process.exitCode).toBe(2);
    expect(output.err).toBe(
      "sentinel: --resume inv_0123456789abcdef continues that investigation with its own symptom; the symptom 'checkout is slow now' is not used. Drop the symptom to resume, or drop --resume to investigate it anew.\n",
    );
    output.clear();
    const asked = harness.requests.length;
    await investigate(
      'checkout is slow now',
      '--harness',
      harness.url,
      '--token',
      't',
      '--resume-session',
      'session-1',
    );
    expect(process.exitCode).toBe(2);
    expect(output.err).toMatch(
      /^sentinel: --resume-session session-1 continues that session .*'checkout is slow now' is not used\. Drop the symptom to resume, or drop --resume-session/,
    );
    expect(harness.requests).toHaveLength(asked); // refused before the harness is asked anything
  });

  it('passes a pasted symptom with control characters to the agent escaped, never raw', async () => {
    harness.script(() => [{ kind: 'message', text: 'Looking.' }]);
    vi.stubEnv('SENTINEL_HARNESS_URL', harness.url);
    vi.stubEnv('SENTINEL_TOKEN', APPROVER_TOKEN);
    const asked = harness.requests.length;
    await investigate('\u001b[2Jcheckout returns 502\u0007', '--server', sentinel.url, '--yes');
    const sent = harness.requests.slice(asked).flatMap((request) => {
      const body = request.body as { input?: { content?: unknown }[] } | undefined;
      return body?.input?.map((item) => item.content) ?? [];
    });
    expect(sent).toEqual(['\\x1b[2Jcheckout returns 502\\x07']);
    vi.unstubAllEnvs();
  });
});
