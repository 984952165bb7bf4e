/* eslint-disable no-control-regex -- matching terminal escape codes is the point */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { PassThrough } from 'node:stream';
import { join } from 'node:path';
import {
  ApprovalListSchema,
  ApprovalRequestSchema,
  PendingResultMetaSchema,
} from '../../server/gate/index.ts';
import { runCli } from '../helpers/cli.ts';
import { connectClient, fakeKube, tempDataDir } from '../helpers/server.ts';
import pino from 'pino';
import { parseServeOptions } from '../../server/config.ts';
import { startServe, type RunningServer } from '../../server/serve.ts';
import { startLocalServer } from '../../agent/investigator/local-server.ts';
import { startGateServer, type GateServer } from '../server/gate/fixtures/serve.ts';

const checkout = { namespace: 'shop', name: 'checkout' };

/**
 * A gate server (`startGateServer`) with the agent's MCP client connected, started before the
 * calling describe block's tests and stopped after them; `cli(token, ...args)` runs
 * `sentinel approvals ...args` against it.
 */
function liveGateServer() {
  const live = {
    s: undefined as unknown as GateServer,
    agent: undefined as unknown as Client,
    cli: (token: string, ...args: string[]) =>
      runCli(['approvals', ...args, '--server', live.s.url, '--token', token]),
  };
  beforeAll(async () => {
    live.s = await startGateServer();
    live.agent = await connectClient(live.s.url, live.s.tokens.agent);
  });
  afterAll(async () => {
    await live.agent?.close();
    await live.s?.close();
  });
  return live;
}

describe('sentinel approvals, against a live server', () => {
  const live = liveGateServer();

  const { cli } = live;
  async function hold(replicas: number): Promise<string> {
    const held = await live.agent.callTool({
      name: 'scale_deployment',
      arguments: { ...checkout, replicas },
    });
    return PendingResultMetaSchema.parse(held._meta).approval_request_id;
  }

  it('lists pending requests under aligned column headers, and shows one in full', async () => {
    const id = await hold(2);
    const list = await cli(live.s.tokens.alice, 'list');
    expect(list.code).toBe(0);
    const [header, ...rows] = list.stdout.trimEnd().split('\n');
    expect(header).toMatch(/^ID {2,}STATUS {2,}TOOL {2,}TARGET {2,}REQUESTER {2,}AGE {2,}ACTION$/);
    const row = rows.find((line) => line.startsWith(id));
    expect(row).toMatch(
      new RegExp(
        `^${id}  pending  scale_deployment  shop/checkout  agent {5,}\\d+s +Scale Deployment shop/checkout from 3 to 2 replicas$`,
      ),
    );
    // Every column starts where its header does.
    for (const [title, value] of [
      ['STATUS', 'pending'],
      ['TOOL', 'scale_deployment'],
      ['TARGET', 'shop/checkout'],
      ['REQUESTER', 'agent'],
      ['ACTION', 'Scale Deployment'],
    ] as const) {
      expect(row!.indexOf(value), title).toBe(header!.indexOf(title));
    }
    // --json stays the API's JSON: no header, the same list.
    const listed = await cli(live.s.tokens.alice, 'list', '--json');
    expect(ApprovalListSchema.parse(JSON.parse(listed.stdout)).approvals.map((a) => a.id)).toContain(id);
    const show = await cli(live.s.tokens.alice, 'show', id);
    expect(show.stdout.split('\n').slice(0, 3)).toEqual([
      'Scale Deployment shop/checkout from 3 to 2 replicas',
      `Request:    ${id} (pending, expires in 29m)`,
      'Cluster:    context kind-sentinel, API server https://127.0.0.1:6443',
    ]);
    expect(show.stdout).toContain('  - spec.replicas: 3 → 2');
    const json = await cli(live.s.tokens.alice, 'show', id, '--json');
    expect(ApprovalRequestSchema.parse(JSON.parse(json.stdout)).id).toBe(id);
  });

  it('warns before approving a request whose target changed since its preview, and still approves', async () => {
    const id = await hold(7);
    const deployment = live.s.cluster.deployment('shop', 'checkout');
    deployment.spec!.replicas = 4; // someone scaled it after the preview "from 3 to 7"
    try {
      const approved = await cli(live.s.tokens.alice, 'approve', id, '--confirm', 'checkout');
      expect(approved.code).toBe(0);
      expect(approved.stderr).toMatch(
        /^Warning: The target changed since the preview: replicas\.from now 4, the preview said 3\. .*refuses it as stale/,
      );
      expect(approved.stdout).toMatch(new RegExp(`^Approved ${id} `));
    } finally {
      deployment.spec!.replicas = 3;
    }
  });

  it('approves and denies; the requester’s retry then runs once', async () => {
    const id = await hold(5);
    const approved = await cli(live.s.tokens.alice, 'approve', id, '--confirm', 'checkout');
    expect(approved).toMatchObject({ code: 0, stderr: '' });
    expect(approved.stdout).toMatch(
      new RegExp(
        `^Approved ${id} \\(now approved\\): Scale Deployment shop/checkout from 3 to 5 replicas\\n` +
          `Grant covers: exactly this scale_deployment call by agent on context \\S+ \\(\\S+\\), once, if retried before \\d{4}-\\d\\d-\\d\\d \\d\\d:\\d\\d .*\\bin \\d+m\\)\\n$`,
      ),
    );
    const run = await live.agent.callTool({
      name: 'scale_deployment',
      arguments: { ...checkout, replicas: 5 },
    });
    expect(run._meta).toMatchObject({ approval_status: 'executed', approval_request_id: id });

    const other = await hold(1);
    const denied = await cli(
      live.s.tokens.alice,
      'deny',
      other,
      '--reason',
      'one replica cannot take the load',
    );
    expect(denied.stdout).toMatch(
      /^Denied apr_\w+ \(now denied\): Scale Deployment shop\/checkout from 5 to 1 replicas\n$/,
    );
    const history = await cli(live.s.tokens.alice, 'list', '--status', 'denied', '--json');
    expect(ApprovalListSchema.parse(JSON.parse(history.stdout)).approvals.map((a) => a.id)).toContain(other);
  });

  it('shows the server’s refusal clearly: own request, already decided, unknown id, no reason', async () => {
    const id = await hold(8);
    const own = await cli(live.s.tokens.agent, 'approve', id, '--confirm', 'checkout');
    expect(own.code).toBe(1);
    expect(own.stderr).toMatch(/^sentinel: .*agent.*\n$/);
    expect(own.stdout).toBe('');
    await cli(live.s.tokens.alice, 'deny', id, '--reason', 'no');
    const again = await cli(live.s.tokens.root, 'approve', id);
    expect(again.stderr).toMatch(/already denied/);
    const unknown = await cli(live.s.tokens.alice, 'show', 'apr_0000000000000000');
    expect(unknown).toMatchObject({ code: 2, stdout: '' });
    expect(unknown.stderr).toMatch(/^sentinel: No approval request apr_0000000000000000 on /);
    const blank = await cli(live.s.tokens.alice, 'deny', id, '--reason', '  ');
    expect(blank).toMatchObject({
      code: 2,
      stderr: 'sentinel: --reason must not be empty: the requester is told why.\n',
    });
    expect((await cli(live.s.tokens.alice, 'approve', id, '--window', 'soon')).stderr).toMatch(
      /--window 'soon' must be a duration/,
    );
  });

  it('a mistyped --status is a usage error with a did-you-mean (exit 2)', async () => {
    const typo = await cli(live.s.tokens.alice, 'list', '--status', 'pendng');
    expect(typo.code).toBe(2);
    expect(typo.stderr).toMatch(/--status 'pendng' is not a status.* Did you mean 'pending'\?/);
    expect(typo.stdout).toBe('');
    // On a terminal the usage error is red, the colour ending before the newline.
    const force = process.env.FORCE_COLOR;
    process.env.FORCE_COLOR = '1';
    const red = await cli(live.s.tokens.alice, 'list', '--status', 'pendng').finally(() => {
      if (force === undefined) delete process.env.FORCE_COLOR;
      else process.env.FORCE_COLOR = force;
    });
    expect(red.stderr).toMatch(/^\u001b\[31merror: .* Did you mean 'pending'\?\u001b\[39m\n/);
  });

  it('an unknown id names the request and the server and says how to list them (exit 2), not the API path', async () => {
    const approve = await cli(live.s.tokens.alice, 'approve', 'apr_00000000000000ff');
    expect(approve).toMatchObject({
      code: 2,
      stdout: '',
      stderr: `sentinel: No approval request apr_00000000000000ff on ${live.s.url}; \`npx sentinel approvals list --all --server ${live.s.url} --token <your token>\` lists them.\n`,
    });
    expect(approve.stderr).not.toContain('GET /approvals');
    const deny = await cli(live.s.tokens.alice, 'deny', 'apr_00000000000000ff', '--reason', 'no');
    expect(deny.stderr).toMatch(/^sentinel: No approval request apr_00000000000000ff on /);
  });

  it('--window on a once-only rule says to drop --window, with the command that works (exit 2)', async () => {
    const id = await hold(0); // rule scale-to-zero: validity once
    const refused = await cli(live.s.tokens.alice, 'approve', id, '--window', '15m', '--confirm', 'checkout');
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/rule 'scale-to-zero' allows only once grants/);
    // The command is on its own line, keeps the approver's identity without printing the secret,
    // and has no punctuation glued to it (issue 18).
    expect(refused.stderr).toContain(
      `drop --window to approve this exact call once:\n  npx sentinel approvals approve ${id} --server ${live.s.url} --token <your token>\n`,
    );
    expect(refused.stderr).not.toContain(live.s.tokens.alice);
    expect((await cli(live.s.tokens.alice, 'show', id)).stdout).toContain('(pending, expires in');
  });

  it('--window hints from a token in SENTINEL_TOKEN need no --token flag: the env still holds it', async () => {
    const id = await hold(0);
    const saved = process.env.SENTINEL_TOKEN;
    process.env.SENTINEL_TOKEN = live.s.tokens.alice;
    const refused = await runCli([
      'approvals',
      'approve',
      id,
      '--window',
      '15m',
      '--confirm',
      'checkout',
      '--server',
      live.s.url,
    ]).finally(() => {
      if (saved === undefined) delete process.env.SENTINEL_TOKEN;
      else process.env.SENTINEL_TOKEN = saved;
    });
    expect(refused.code).toBe(2);
    expect(refused.stderr).toContain(
      `once:\n  npx sentinel approvals approve ${id} --server ${live.s.url}\n`,
    );
    expect(refused.stderr).not.toContain('--token');
    expect(refused.stderr).not.toContain(live.s.tokens.alice);
  });

  it('says until when a once grant holds in local time, with UTC in parentheses and how long from now', async () => {
    const id = await hold(6);
    const zone = process.env.TZ;
    process.env.TZ = 'Asia/Kolkata'; // Node re-reads TZ when it is assigned
    const approved = await cli(live.s.tokens.alice, 'approve', id, '--confirm', 'checkout').finally(() => {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    });
    const until = /if retried before (.+)$/m.exec(approved.stdout)?.[1];
    // e.g. "2026-12-02 12:10 IST (06:40 UTC, in 30m)"
    expect(until).toMatch(/^\d{4}-\d\d-\d\d \d\d:\d\d (IST|GMT\+5:30) \(\d\d:\d\d UTC, in (29|30)m\)$/);
    expect(approved.stdout).not.toMatch(/\d\dZ/);
  });

  it('colours statuses on a terminal (FORCE_COLOR here), never with --no-color or NO_COLOR; cluster text cannot colour', async () => {
    const held = await live.agent.callTool({
      name: 'scale_deployment',
      arguments: { ...checkout, replicas: 4, reason: `ok\u001b[2J\u001b[31mFAKE\u001b[0m` },
    });
    const id = PendingResultMetaSchema.parse(held._meta).approval_request_id;
    const env = { FORCE_COLOR: process.env.FORCE_COLOR, NO_COLOR: process.env.NO_COLOR };
    const run = async (vars: Record<string, string | undefined>, ...args: string[]) => {
      delete process.env.FORCE_COLOR;
      delete process.env.NO_COLOR;
      for (const [name, value] of Object.entries(vars))
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
      try {
        return await cli(live.s.tokens.alice, ...args);
      } finally {
        for (const [name, value] of Object.entries(env))
          if (value === undefined) delete process.env[name];
          else process.env[name] = value;
      }
    };
    const coloured = await run({ FORCE_COLOR: '1' }, 'list');
    expect(coloured.stdout).toContain(`${id}  \u001b[33mpending\u001b[39m  scale_deployment  `);
    const shown = await run({ FORCE_COLOR: '1' }, 'show', id);
    expect(shown.stdout).toContain(`Request:    ${id} (\u001b[33mpending, expires in`);
    // The requester's text keeps its ESC visible: the only codes are Sentinel's (bold, yellow, resets).
    expect(shown.stdout).toContain('"ok\\x1b[2J\\x1b[31mFAKE\\x1b[0m"');
    expect(
      shown.stdout.match(/\u001b\[[0-9;]*m/g)?.every((code) => /^\u001b\[(1|22|33|39)m$/.test(code)),
    ).toBe(true);
    expect(shown.stdout.replace(/\u001b\[[0-9;]*m/g, '')).not.toMatch(/\u001b/);
    for (const plain of [
      await run({ FORCE_COLOR: '1' }, '--no-color', 'list'),
      await run({ FORCE_COLOR: '1' }, 'list', '--no-color'),
      await run({ NO_COLOR: '1' }, 'list'),
      await run({}, 'list'), // not a terminal
    ]) {
      expect(plain.stdout).toContain(`${id}  pending  scale_deployment  `);
      expect(plain.stdout).not.toMatch(/\u001b/);
    }
    const failed = await run({ FORCE_COLOR: '1' }, 'show', 'apr_00000000000000ff');
    expect(failed.stderr).toMatch(
      /^\u001b\[1m\u001b\[31msentinel:\u001b\[39m\u001b\[22m No approval request/,
    );
    await cli(live.s.tokens.alice, 'deny', id, '--reason', 'test done');
  });

  it('revokes an approved grant no call has used; the retry is held again', async () => {
    const id = await hold(12);
    await cli(live.s.tokens.alice, 'approve', id, '--confirm', 'checkout');
    const revoked = await cli(live.s.tokens.alice, 'revoke', id, '--reason', 'wrong Deployment');
    expect(revoked.stdout).toMatch(new RegExp(`^Revoked ${id} \\(now cancelled\\)`));
    const shown = await cli(live.s.tokens.alice, 'show', id);
    expect(shown.stdout).toContain('Ended:      grant revoked by alice: wrong Deployment');
    const retry = await live.agent.callTool({
      name: 'scale_deployment',
      arguments: { ...checkout, replicas: 12 },
    });
    expect(retry._meta).toMatchObject({ approval_status: 'pending' });
  });

  it('lets a requester list and withdraw their own pending request', async () => {
    const id = await hold(9);
    const mine = await cli(live.s.tokens.agent, 'list', '--requester', 'agent');
    expect(mine.stdout).toContain(id);
    expect((await cli(live.s.tokens.alice, 'withdraw', id)).stderr).toMatch(/^sentinel: /);
    const withdrawn = await cli(live.s.tokens.agent, 'withdraw', id);
    expect(withdrawn.stdout).toMatch(new RegExp(`^Withdrew ${id} \\(now withdrawn\\)`));
    expect((await cli(live.s.tokens.agent, 'list', '--requester', 'agent')).stdout).not.toContain(id);
  });

  it('reports a bad token, an unreachable server and a missing token plainly', async () => {
    expect((await cli('wrong-token-000000', 'list')).stderr).toContain(
      'refused the token passed with --token (401): it is revoked or unknown there',
    );
    const down = await runCli(['approvals', 'list', '--server', 'http://127.0.0.1:9', '--token', 'x']);
    expect(down.stderr).toMatch(
      /^sentinel: No Sentinel server answers at http:\/\/127\.0\.0\.1:9 \(.*\)\. Is a Sentinel server running at http:\/\/127\.0\.0\.1:9\?/,
    );
    expect((await runCli(['approvals', 'list', '--server', 'ftp://x', '--token', 'x'])).stderr).toMatch(
      /is not an http\(s\) URL/,
    );
    const empty = tempDataDir();
    try {
      const previous = process.env.SENTINEL_TOKEN;
      delete process.env.SENTINEL_TOKEN;
      const none = await runCli(['approvals', 'list', '--server', live.s.url, '--data-dir', empty.dir]);
      if (previous !== undefined) process.env.SENTINEL_TOKEN = previous;
      expect(none).toMatchObject({
        code: 2,
        stderr: expect.stringMatching(/^sentinel: No token: pass --token/),
      });
      writeFileSync(join(empty.dir, 'local.token'), `${live.s.tokens.alice}\n`);
      expect(
        (await runCli(['approvals', 'list', '--server', live.s.url, '--data-dir', empty.dir])).code,
      ).toBe(0);
    } finally {
      empty.cleanup();
    }
  });
});

describe('sentinel approvals approve --window on a request that already ran', () => {
  const live = liveGateServer();
  const { cli } = live;

  it('suggests no approve command: it says the request is decided and how to see its outcome (exit 1)', async () => {
    const held = await live.agent.callTool({
      name: 'scale_deployment',
      arguments: { ...checkout, replicas: 0 },
    });
    const id = PendingResultMetaSchema.parse(held._meta).approval_request_id; // rule scale-to-zero: once
    expect((await cli(live.s.tokens.alice, 'approve', id, '--confirm', 'checkout')).code).toBe(0);
    const run = await live.agent.callTool({
      name: 'scale_deployment',
      arguments: { ...checkout, replicas: 0 },
    });
    expect(run._meta).toMatchObject({ approval_status: 'executed', approval_request_id: id });
    const refused = await cli(live.s.tokens.alice, 'approve', id, '--window', '15m');
    expect(refused.code).toBe(1);
    expect(refused.stderr).not.toContain('approvals approve');
    expect(refused.stderr).toContain(
      `Approval request ${id} is already executed: there is nothing left to approve. Its outcome:\n  npx sentinel approvals show ${id} --server ${live.s.url} --token <your token>\n`,
    );
    // Only a pending request gets the staleness check: an executed one's preview (replicas 3 → 0)
    // "fails" now that it ran, which says nothing useful. Just the state line, exit 1.
    const again = await cli(live.s.tokens.alice, 'approve', id, '--confirm', 'checkout');
    expect(again.code).toBe(1);
    expect(again.stderr).not.toContain('Warning');
    expect(again.stderr).toMatch(/^sentinel: .*already executed; only a pending request can be decided/);
  });
});

describe('client commands find the running server and its token by discovery', () => {
  const data = tempDataDir();
  const quiet = { logger: pino({ level: 'silent' }), kube: fakeKube() };
  let served: RunningServer;
  let local: Awaited<ReturnType<typeof startLocalServer>>;
  beforeAll(async () => {
    // Neither on the default port 7070: only the discovery files say where they are.
    served = await startServe(
      parseServeOptions({ port: '0', dataDir: data.dir }),
      { stderr: () => {}, env: {} },
      quiet,
    );
    local = await startLocalServer({ dataDir: data.dir, kube: fakeKube() });
  });
  afterAll(async () => {
    await local?.close();
    await served?.close();
    data.cleanup();
  });

  it('`approvals list` and `freeze status` without --server use the `sentinel serve` of --data-dir', async () => {
    const list = await runCli(['approvals', 'list', '--data-dir', data.dir]);
    expect(list).toMatchObject({ code: 0, stdout: 'No pending approval requests.\n' });
    const freeze = await runCli(['freeze', 'status', '--data-dir', data.dir]);
    expect(freeze.code, freeze.stderr).toBe(0);
    expect(freeze.stdout).toMatch(/not frozen/i);
  });

  it('a given --server wins over discovery (and is still told apart when unreachable)', async () => {
    const list = await runCli([
      'approvals',
      'list',
      '--server',
      'http://127.0.0.1:9',
      '--data-dir',
      data.dir,
    ]);
    expect(list.code).toBe(3);
    expect(list.stderr).toContain('127.0.0.1:9');
  });

  it("with only an investigation's in-process server running, uses it and the token file it names", async () => {
    await served.close();
    const list = await runCli(['approvals', 'list', '--data-dir', data.dir]);
    expect(list).toMatchObject({ code: 0, stdout: 'No pending approval requests.\n' });
  });
});

describe('sentinel approvals approve of a dangerous request: type the Deployment’s name', () => {
  let s: GateServer;
  let agent: Client;
  beforeAll(async () => {
    s = await startGateServer();
    agent = await connectClient(s.url, s.tokens.agent);
  });
  afterAll(async () => {
    await agent?.close();
    await s?.close();
  });
  const cli = (...args: string[]) =>
    runCli(['approvals', ...args, '--server', s.url, '--token', s.tokens.alice]);
  async function hold(name: string, args: Record<string, unknown>): Promise<string> {
    const held = await agent.callTool({ name, arguments: { ...checkout, ...args } });
    return PendingResultMetaSchema.parse(held._meta).approval_request_id;
  }
  /** Runs `approve` with stdin replaced by a terminal that answers `lines`; what it asked on stderr. */
  async function onTerminal(lines: string[], ...args: string[]) {
    const input = Object.assign(new PassThrough(), { isTTY: true });
    input.end(lines.map((line) => `${line}\n`).join(''));
    const stdin = Object.getOwnPropertyDescriptor(process, 'stdin')!;
    Object.defineProperty(process, 'stdin', { value: input, configurable: true });
    try {
      return await cli(...args);
    } finally {
      Object.defineProperty(process, 'stdin', stdin);
    }
  }

  it('off a terminal, refuses without --confirm <name>, naming the option and the name to give (exit 2)', async () => {
    const id = await hold('scale_deployment', { replicas: 0 });
    const refused = await cli('approve', id);
    expect(refused).toMatchObject({ code: 2, stdout: '' });
    expect(refused.stderr).toContain(`--confirm checkout`);
    expect(refused.stderr).toMatch(/stops every Pod/);
    const wrong = await cli('approve', id, '--confirm', 'payments');
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toMatch(/--confirm 'payments' is not 'checkout'/);
    expect((await cli('show', id)).stdout).toContain('(pending, expires in');
    const approved = await cli('approve', id, '--confirm', 'checkout');
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toMatch(new RegExp(`^Approved ${id} \\(now approved\\)`));
  });

  it('on a terminal, asks to type the name; a wrong name refuses and leaves it pending', async () => {
    const id = await hold('rollback_deployment', {});
    const wrong = await onTerminal(['yes'], 'approve', id);
    expect(wrong.code).toBe(2);
    expect(wrong.stderr).toContain("Type 'checkout' to approve");
    expect(wrong.stderr).toMatch(/'yes' is not 'checkout'.*nothing was approved/);
    expect((await cli('show', id)).stdout).toContain('(pending, expires in');
    const ended = await onTerminal([], 'approve', id);
    expect(ended.code).toBe(2);
    expect(ended.stderr).toMatch(/input ended.*nothing was approved/);
    const typed = await onTerminal(['checkout'], 'approve', id);
    expect(typed.code, typed.stderr).toBe(0);
    expect(typed.stdout).toMatch(new RegExp(`^Approved ${id} \\(now approved\\)`));
  });

  it('a write request (pause_rollout) needs no typing, on a terminal or off it', async () => {
    const id = await hold('pause_rollout', {});
    const approved = await cli('approve', id);
    expect(approved).toMatchObject({ code: 0, stderr: '' });
  });
});
