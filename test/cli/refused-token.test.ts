/**
 * A token the server refuses (401: revoked, rotated away or never issued) is told as such — which
 * token (passed with --token, in SENTINEL_TOKEN, or read from a file) and how to get a new one —
 * never as "pass --token" to someone who did, and never with the secret in the message.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { sentinelCommand } from '../../core/index.ts';
import { runCli } from '../helpers/cli.ts';
import { tempDataDir } from '../helpers/server.ts';
import { startGateServer, type GateServer } from '../server/gate/fixtures/serve.ts';

describe('a token the server refuses', () => {
  let s: GateServer;
  /** bob's token, revoked with `sentinel tokens revoke bob`. */
  let revoked: string;
  const empty = tempDataDir();
  const previousEnv = process.env.SENTINEL_TOKEN;
  beforeAll(async () => {
    s = await startGateServer();
    const added = await runCli(['tokens', 'add', 'bob', '--role', 'approver', '--data-dir', s.dataDir]);
    revoked = added.stdout.trimEnd().split('\n').at(-1)!;
    expect((await runCli(['approvals', 'list', '--server', s.url, '--token', revoked])).code).toBe(0);
    expect((await runCli(['tokens', 'revoke', 'bob', '--data-dir', s.dataDir])).code).toBe(0);
    delete process.env.SENTINEL_TOKEN;
  });
  afterAll(async () => {
    if (previousEnv === undefined) delete process.env.SENTINEL_TOKEN;
    else process.env.SENTINEL_TOKEN = previousEnv;
    await s?.close();
    empty.cleanup();
  });

  /** What a refused token's message must and must not say. */
  const expectRefused = (stderr: string, which: string, role: string) => {
    expect(stderr).toContain(
      `sentinel: The Sentinel server at ${s.url} refused the token ${which} (401): it is revoked or unknown there`,
    );
    expect(stderr).toContain(`${sentinelCommand()} tokens rotate <name>`);
    expect(stderr).toContain(`tokens add <name> --role ${role}`);
    expect(stderr).not.toMatch(/pass --token or|does not accept this token/);
    expect(stderr).not.toContain(revoked);
  };

  it('passed with --token: approvals says the token passed was refused, and how to get a new one', async () => {
    const result = await runCli(['approvals', 'list', '--server', s.url, '--token', revoked]);
    expectRefused(result.stderr, 'passed with --token', 'approver');
    expect(result.stderr).toContain('pass that with --token');
    expect(result.code).toBe(1);
  });

  it('passed with --token: freeze says the same, asking for an admin token', async () => {
    const result = await runCli(['freeze', 'status', '--server', s.url, '--token', revoked]);
    expectRefused(result.stderr, 'passed with --token', 'admin');
    expect(result.code).toBe(1);
  });

  it('in SENTINEL_TOKEN: names the variable, not the flag', async () => {
    process.env.SENTINEL_TOKEN = revoked;
    try {
      const approvals = await runCli(['approvals', 'list', '--server', s.url]);
      expectRefused(approvals.stderr, 'in SENTINEL_TOKEN', 'approver');
      expect(approvals.stderr).toContain('set SENTINEL_TOKEN to that');
      const freeze = await runCli(['freeze', 'on', '--reason', 'x', '--server', s.url]);
      expectRefused(freeze.stderr, 'in SENTINEL_TOKEN', 'admin');
    } finally {
      delete process.env.SENTINEL_TOKEN;
    }
  });

  it('read from a local.token of another server: names the file, and --token as the way out', async () => {
    const file = join(empty.dir, 'local.token');
    writeFileSync(file, `${revoked}\n`);
    for (const command of [
      ['approvals', 'list'],
      ['freeze', 'status'],
    ]) {
      const result = await runCli([...command, '--server', s.url, '--data-dir', empty.dir]);
      expectRefused(result.stderr, `read from ${file}`, command[0] === 'freeze' ? 'admin' : 'approver');
      expect(result.stderr).toContain('pass it with --token');
    }
  });
});
