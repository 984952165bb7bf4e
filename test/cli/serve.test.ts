/* eslint-disable no-control-regex -- matching terminal colour codes is the point */
/**
 * `sentinel serve` and `sentinel tokens` as a user runs them: real processes of bin/sentinel.js.
 */
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { execFile, spawn } from 'node:child_process';
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { openAuditLog } from '../../server/audit/index.ts';
import { runningServers } from '../../server/discovery.ts';
import { runCli } from '../helpers/cli.ts';
import { connectClient, rawRequest, tempDataDir } from '../helpers/server.ts';

const BIN = fileURLToPath(new URL('../../bin/sentinel.js', import.meta.url));
const run = promisify(execFile);

/** Environment without any token or data dir from the developer's shell. */
function cleanEnv(extra: Record<string, string> = {}): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.SENTINEL_TOKEN;
  delete env.SENTINEL_DATA_DIR;
  return { ...env, ...extra };
}

/** Runs the CLI to completion; never rejects on a non-zero exit. */
async function sentinel(args: string[], env = cleanEnv()) {
  try {
    const { stdout, stderr } = await run(process.execPath, [BIN, ...args], { env, timeout: 120_000 });
    return { code: 0, stdout, stderr };
  } catch (error) {
    const failure = error as { code: number; stdout: string; stderr: string };
    return { code: failure.code, stdout: failure.stdout, stderr: failure.stderr };
  }
}

describe('sentinel serve refuses a non-loopback address', () => {
  const data = tempDataDir();
  afterAll(() => data.cleanup());

  it('exits non-zero on --host 0.0.0.0, explaining the risk and the way out', async () => {
    const result = await sentinel(['serve', '--host', '0.0.0.0', '--data-dir', data.dir]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(
      /^sentinel: Refusing to listen on 0\.0\.0\.0: it is not a loopback address, so anyone who can reach this machine over the network could call tools that change your Kubernetes cluster/,
    );
    expect(result.stderr).toMatch(/pass --allow-remote and configure at least one token/);
  });

  it("refuses SENTINEL_TOKEN set to an approver's token with one clean line: no stack trace anywhere", async () => {
    const added = await runCli(['tokens', 'add', 'alice', '--role', 'approver', '--data-dir', data.dir]);
    const alice = added.stdout.trim();
    const result = await sentinel(
      ['serve', '--port', '0', '--data-dir', data.dir],
      cleanEnv({ SENTINEL_TOKEN: alice }),
    );
    await runCli(['tokens', 'revoke', 'alice', '--data-dir', data.dir]);
    // A configuration error (exit 2), said once: no log line repeats it on stdout.
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^sentinel: The startup token \(SENTINEL_TOKEN\) is also the token of identity 'alice'/,
    );
    expect(result.stderr.trim().split('\n')).toHaveLength(1);
    expect(result.stdout).not.toContain('tokens file rejected');
    expect(result.stdout).not.toContain('is also the token of identity');
    for (const output of [result.stdout, result.stderr]) {
      expect(output).not.toMatch(/\n\s+at |"stack"/);
      expect(output).not.toContain(alice);
    }
  });

  it('still refuses with --allow-remote when no token is configured', async () => {
    const result = await runCli(['serve', '--host', '::', '--allow-remote', '--data-dir', data.dir]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/Refusing to listen on ::.*configure at least one token \(SENTINEL_TOKEN/);
    expect(result.stderr).not.toMatch(/pass --allow-remote/);
  });
});

describe('sentinel serve on loopback', () => {
  const data = tempDataDir();
  let child: ReturnType<typeof spawn>;
  let stdout = '';
  let stderr = '';
  let url: string;
  let token: string;

  beforeAll(async () => {
    child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data-dir', data.dir], {
      env: cleanEnv({ SENTINEL_LOG_LEVEL: 'info' }),
    });
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (/login-link\.url/.test(stderr)) resolve();
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
    });
    url = /listening on (http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(stderr)![1]!;
    token = readFileSync(`${data.dir}/local.token`, 'utf8').trim();
  });
  afterAll(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await new Promise((resolve) => child.once('exit', resolve));
    }
    data.cleanup();
  });

  it('prints where it listens and how to authenticate, on stderr', () => {
    expect(stderr).toMatch(/^Sentinel MCP server listening on http:\/\/127\.0\.0\.1:\d+\/mcp/);
    expect(stderr).toMatch(
      /Authenticate with {2}Authorization: Bearer <token> {2}— identity 'local' \(all roles\)/,
    );
    expect(stderr).toContain(
      `Token of identity 'local': in ${data.dir}/local.token (0600; not printed because stderr is not a terminal).`,
    );
    expect(stderr).toMatch(/Cluster: not configured/);
    expect(stderr).toContain(`Data directory: ${data.dir} (`);
    // Hints name the command as a user of this clone runs it, like every other hint.
    expect(stderr).toContain('`npx sentinel tokens rotate local` replaces it.');
    expect(stderr).toContain('add one with `npx sentinel tokens add <name> --role caller`.');
    expect(stderr).not.toMatch(/\u001b/); // no colours off a terminal
  });

  it('logs JSON, one object per line, when stdout is not a terminal', () => {
    const lines = stdout.trim().split('\n');
    expect(lines.length).toBeGreaterThan(1);
    for (const line of lines)
      expect(JSON.parse(line)).toMatchObject({ level: expect.any(Number), msg: expect.any(String) });
  });

  it('writes the credentials 0600 to the data dir and, stderr not being a terminal, prints and logs only their paths', () => {
    const tokenFile = `${data.dir}/local.token`;
    const linkFile = `${data.dir}/login-link.url`;
    expect(token).toMatch(/^snt_/);
    const ticket = new URL(readFileSync(linkFile, 'utf8').trim()).searchParams.get('ticket')!;
    expect(ticket.length).toBeGreaterThan(20);
    for (const file of [tokenFile, linkFile]) expect(statSync(file).mode & 0o777).toBe(0o600);
    expect(stdout).toMatch(/"msg":"listening"/);
    expect(stdout).toContain(`"file":"${tokenFile}"`);
    expect(stdout).toContain(`"file":"${linkFile}"`);
    for (const secret of [token, ticket]) {
      expect(stdout).not.toContain(secret);
      expect(stderr).not.toContain(secret);
    }
  });

  it('serves MCP to a client with that token, and tokens added by the CLI without a restart', async () => {
    const client = await connectClient(url, token);
    expect((await client.listTools()).tools.map((t) => t.name)).toContain('get_cluster_version');
    await client.close();

    const added = await runCli(['tokens', 'add', 'oncall', '--role', 'caller', '--data-dir', data.dir]);
    const newToken = added.stdout.trimEnd().split('\n').at(-1)!;
    const other = await connectClient(url, newToken);
    expect((await other.listTools()).tools.length).toBeGreaterThan(0);
    await other.close();

    await runCli(['tokens', 'revoke', 'oncall', '--data-dir', data.dir]);
    const after = await rawRequest(`${url}/mcp`, {
      method: 'POST',
      headers: { authorization: `Bearer ${newToken}`, 'content-type': 'application/json' },
      body: '{}',
    });
    expect(after.status).toBe(401);
  });

  it.each([
    ['one process', []],
    ['--workers 2', ['--workers', '2']],
  ])(
    'a second serve on its port (%s) is a configuration error: exit 2, naming --port',
    async (_what, flags) => {
      const other = tempDataDir();
      const port = new URL(url).port;
      const result = await sentinel(['serve', '--port', port, ...flags, '--data-dir', other.dir]);
      other.cleanup();
      expect(result.stderr).toContain(
        `sentinel: Port ${port} on 127.0.0.1 is already in use; choose another with --port (0 picks a free one).`,
      );
      expect(result.code).toBe(2);
    },
  );

  it('stops cleanly on SIGTERM, with one info line saying so: the signal and the calls drained', async () => {
    child.kill('SIGTERM');
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(code).toBe(0);
    // A clean stop is told from a crash by its last log line.
    const last = JSON.parse(stdout.trim().split('\n').at(-1)!) as Record<string, unknown>;
    expect(last).toMatchObject({ level: 30, msg: 'stopped', signal: 'SIGTERM', drained_calls: 0 });
  });
});

describe('sentinel serve for a person at a terminal', () => {
  const data = tempDataDir();
  afterAll(() => data.cleanup());

  it('pretty logs (SENTINEL_LOG_FORMAT=pretty, as on a TTY stdout) and a styled banner (FORCE_COLOR)', async () => {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data-dir', data.dir], {
      env: cleanEnv({ SENTINEL_LOG_LEVEL: 'info', SENTINEL_LOG_FORMAT: 'pretty', FORCE_COLOR: '1' }),
    });
    let stdout = '';
    let stderr = '';
    child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (/login-link\.url/.test(stderr)) resolve();
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
    });
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    expect(await exited).toBe(0);
    const plain = stdout.replace(/\u001b\[[0-9;]*m/g, '');
    expect(plain).toMatch(/^\[\d\d:\d\d:\d\d\] INFO: listening \{"url":"http:\/\/127\.0\.0\.1:\d+\/mcp"\}$/m);
    expect(stdout).toMatch(/\u001b\[32mINFO\u001b\[39m/);
    expect(stdout).not.toMatch(/^\{"level"/m);
    expect(stderr).toMatch(
      /^\u001b\[1mSentinel MCP server listening on http:\/\/127\.0\.0\.1:\d+\/mcp .*\u001b\[22m\n/,
    );
  });

  it('refuses an unknown SENTINEL_LOG_FORMAT with one line naming it (exit 2)', async () => {
    const result = await sentinel(
      ['serve', '--port', '0', '--data-dir', data.dir],
      cleanEnv({ SENTINEL_LOG_FORMAT: 'fancy' }),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      "sentinel: SENTINEL_LOG_FORMAT 'fancy' must be json or pretty (unset: pretty on a terminal, else json).\n",
    );
  });
});

describe('sentinel serve removes its discovery file however it is stopped', () => {
  const data = tempDataDir();
  afterAll(() => data.cleanup());

  /** Starts `serve` in its own process group; resolves once its discovery file exists. */
  async function serveInGroup(): Promise<ReturnType<typeof spawn>> {
    const child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data-dir', data.dir], {
      env: cleanEnv(),
      detached: true,
      stdio: ['ignore', 'ignore', 'pipe'],
    });
    let stderr = '';
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (/listening on/.test(stderr)) resolve();
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
    });
    expect(readdirSync(join(data.dir, 'servers')).filter((f) => f.endsWith('.json'))).toHaveLength(1);
    return child;
  }
  const exit = (child: ReturnType<typeof spawn>) =>
    new Promise((resolve) => child.once('exit', (code, signal) => resolve(signal ?? code)));
  const leftovers = () => readdirSync(join(data.dir, 'servers'));

  it('SIGTERM to the process group, heard twice (a launcher passes it on): no file left, exit 0', async () => {
    const child = await serveInGroup();
    const exited = exit(child);
    process.kill(-child.pid!, 'SIGTERM');
    process.kill(-child.pid!, 'SIGTERM');
    expect(await exited).toBe(0);
    expect(leftovers()).toEqual([]);
  });

  it('SIGHUP (the terminal closed): no file left', async () => {
    const child = await serveInGroup();
    const exited = exit(child);
    process.kill(-child.pid!, 'SIGHUP');
    expect(await exited).toBe(0);
    expect(leftovers()).toEqual([]);
  });

  it('a file whose server is gone (SIGKILL) is removed by the next look at the servers', async () => {
    const child = await serveInGroup();
    const exited = exit(child);
    process.kill(-child.pid!, 'SIGKILL');
    expect(await exited).toBe('SIGKILL');
    expect(leftovers()).toHaveLength(1);
    expect(runningServers(data.dir)).toEqual([]);
    expect(leftovers()).toEqual([]);
  });
});

describe('sentinel tokens', () => {
  const data = tempDataDir();
  afterAll(() => data.cleanup());

  it('adds (token alone on the last stdout line, once), lists and revokes', async () => {
    const added = await runCli([
      'tokens',
      'add',
      'alice',
      '--role',
      'approver',
      '--role',
      'admin',
      '--data-dir',
      data.dir,
    ]);
    expect(added.code).toBe(0);
    expect(added.stdout).toMatch(/^snt_[A-Za-z0-9_-]{43}\n$/);
    expect(added.stderr).toMatch(/Added identity 'alice' \(roles: approver, admin\)/);
    const token = added.stdout.trim();
    expect(readFileSync(`${data.dir}/tokens.yaml`, 'utf8')).not.toContain(token);

    const listed = await runCli(['tokens', 'list', '--data-dir', data.dir]);
    expect(listed.stdout).toMatch(
      /^NAME\s+ROLES\s+CREATED\s+TRUST_UPSTREAM\s+WEBHOOK\nalice\s+approver,admin\s+\d{4}-\d\d-\d\d \d\d:\d\d \S+ \((\d\d:\d\d UTC, )?\S+ ago\)\s+no\s+-\n$/,
    );
    // Local time for people; --json keeps the recorded ISO UTC value.
    const json = JSON.parse((await runCli(['tokens', 'list', '--json', '--data-dir', data.dir])).stdout) as {
      identities: { name: string; created_at: string }[];
    };
    expect(json.identities).toEqual([
      expect.objectContaining({
        name: 'alice',
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT[\d:.]+Z$/),
      }),
    ]);
    expect(listed.stdout).not.toContain(token);

    const revoked = await runCli(['tokens', 'revoke', 'alice', '--data-dir', data.dir]);
    expect(revoked.code).toBe(0);
    const missing = await runCli(['tokens', 'revoke', 'alice', '--data-dir', data.dir]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/No identity named 'alice'/);
  });

  it('rejects an unknown role naming the allowed ones', async () => {
    const result = await runCli(['tokens', 'add', 'bob', '--role', 'root', '--data-dir', data.dir]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/Allowed choices are caller, approver, admin/);
  });

  it('uses SENTINEL_DATA_DIR when --data-dir is absent', async () => {
    vi.stubEnv('SENTINEL_DATA_DIR', data.dir);
    const added = await runCli(['tokens', 'add', 'carol', '--role', 'caller']).finally(() =>
      vi.unstubAllEnvs(),
    );
    expect(added.code).toBe(0);
    expect(readFileSync(`${data.dir}/tokens.yaml`, 'utf8')).toContain('name: carol');
  });
});

describe('sentinel serve --stdio', () => {
  const data = tempDataDir();
  afterAll(() => data.cleanup());

  it('refuses an identity that does not exist', async () => {
    const result = await runCli(['serve', '--stdio', '--identity', 'ghost', '--data-dir', data.dir]);
    expect(result.code).not.toBe(0);
    expect(result.stderr).toMatch(/--identity 'ghost' does not exist/);
  });

  it('serves MCP over stdio as the named identity until it is revoked', async () => {
    await runCli(['tokens', 'add', 'desktop', '--role', 'caller', '--data-dir', data.dir]);
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [BIN, 'serve', '--stdio', '--identity', 'desktop', '--data-dir', data.dir],
      env: cleanEnv() as Record<string, string>,
      stderr: 'pipe',
    });
    const client = new Client({ name: 'stdio-test', version: '0.0.0' });
    await client.connect(transport);
    try {
      const { tools } = await client.listTools();
      expect(tools.find((t) => t.name === 'get_cluster_version')?.annotations).toMatchObject({
        readOnlyHint: true,
      });

      const misspelled = await client.callTool({ name: 'get_cluster_version', arguments: { contxt: 'x' } });
      expect(misspelled.isError).toBe(true);
      expect((misspelled.content as { text: string }[])[0]!.text).toMatch(/contxt: unknown argument/);

      const unavailable = await client.callTool({ name: 'get_cluster_version', arguments: {} });
      expect((unavailable.content as { text: string }[])[0]!.text).toMatch(
        /No Kubernetes cluster is configured/,
      );

      await runCli(['tokens', 'revoke', 'desktop', '--data-dir', data.dir]);
      const revoked = await client.callTool({ name: 'get_cluster_version', arguments: {} });
      expect(revoked.isError).toBe(true);
      expect((revoked.content as { text: string }[])[0]!.text).toMatch(
        /Identity 'desktop' was revoked; nothing was run/,
      );
    } finally {
      await client.close();
    }
    const log = openAuditLog(data.dir, { mustExist: true });
    const rejected = log.records().filter((record) => record.outcome === 'rejected');
    log.close();
    expect(rejected.map((r) => [r.identity, r.tool, r.error?.code])).toEqual([
      ['desktop', 'get_cluster_version', 'invalid_input'],
      ['desktop', 'get_cluster_version', 'unauthorized'],
    ]);
  });

  it.each([
    ['with stdin closed at once', ''],
    [
      'after answering a request',
      '{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}\n',
    ],
  ])('ends the session once and exits 0 when stdin closes (%s)', async (_case, input) => {
    const child = spawn(
      process.execPath,
      [BIN, 'serve', '--stdio', '--identity', 'local', '--data-dir', data.dir],
      { env: cleanEnv({ SENTINEL_LOG_LEVEL: 'info' }) },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.stdin.end(input);
    const code = await new Promise((resolve) => child.once('exit', resolve));
    expect(stderr).not.toMatch(/RangeError|Maximum call stack/);
    expect(code).toBe(0);
    expect(stderr.match(/"msg":"stdio session ended"/g)).toHaveLength(1);
    if (input !== '')
      expect(JSON.parse(stdout)).toMatchObject({ id: 1, result: { serverInfo: { name: 'sentinel' } } });
  });
});
