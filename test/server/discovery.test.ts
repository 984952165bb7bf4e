/**
 * One token per data directory, one discovery file per server: a second server, a restart, an
 * investigation's in-process server and `tokens rotate` never lock out another server's clients.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { parseServeOptions } from '../../server/config.ts';
import { startServe, type RunningServer } from '../../server/serve.ts';
import { discoveryFile, runningServers, ServerEntrySchema } from '../../server/discovery.ts';
import { clientToken } from '../../server/client-token.ts';
import { startLocalServer } from '../../agent/investigator/local-server.ts';
import { runCli } from '../helpers/cli.ts';
import { fakeKube, tempDataDir } from '../helpers/server.ts';

const quiet = { logger: pino({ level: 'silent' }), kube: fakeKube() };
const io = { stderr: () => {}, env: {} };

async function status(url: string, token: string): Promise<number> {
  const response = await fetch(`${url}/approvals`, { headers: { authorization: `Bearer ${token}` } });
  await response.body?.cancel();
  return response.status;
}

describe('token discovery with several servers on one data directory', () => {
  let data: ReturnType<typeof tempDataDir>;
  const servers: RunningServer[] = [];
  const start = async () => {
    const server = await startServe(parseServeOptions({ port: '0', dataDir: data.dir }), io, quiet);
    servers.push(server);
    return server;
  };
  const localToken = () => readFileSync(join(data.dir, 'local.token'), 'utf8').trim();

  beforeEach(() => {
    data = tempDataDir();
  });
  afterEach(async () => {
    for (const server of servers.splice(0)) await server.close();
    data.cleanup();
  });

  it('keeps one local token across a second server and a restart; each server has its own discovery file', async () => {
    const first = await start();
    const token = localToken();
    const link = readFileSync(join(data.dir, 'login-link.url'), 'utf8');
    const second = await start();
    expect(localToken()).toBe(token);
    // The second server's login link goes next to its discovery file; the first's is untouched.
    expect(readFileSync(join(data.dir, 'login-link.url'), 'utf8')).toBe(link);
    const secondPort = new URL(second.url!).port;
    expect(existsSync(join(data.dir, 'servers', `${secondPort}.login-link.url`))).toBe(true);
    expect(await status(first.url!, token)).toBe(200);
    expect(await status(second.url!, token)).toBe(200);

    const entries = runningServers(data.dir);
    expect(entries.map((entry) => entry.url).sort()).toEqual([first.url, second.url].sort());
    for (const entry of entries) {
      expect(entry).toMatchObject({
        pid: process.pid,
        kind: 'serve',
        token_file: join(data.dir, 'local.token'),
      });
      expect(ServerEntrySchema.parse(entry).started).toMatch(/^\d{4}-/);
    }

    // A client command finds the token of the server it talks to.
    const listed = await runCli(['approvals', 'list', '--server', second.url!, '--data-dir', data.dir]);
    expect(listed.code).toBe(0);

    await second.close();
    expect(existsSync(discoveryFile(data.dir, secondPort))).toBe(false);
    expect(existsSync(join(data.dir, 'servers', `${secondPort}.login-link.url`))).toBe(false);
    expect(runningServers(data.dir).map((entry) => entry.url)).toEqual([first.url]);

    // The first server's own login link, in the data dir's login-link.url, goes with it too.
    await first.close();
    expect(existsSync(join(data.dir, 'login-link.url'))).toBe(false);
    const restarted = await start();
    expect(localToken()).toBe(token);
    expect(await status(restarted.url!, token)).toBe(200);
  });

  it('ignores a stale discovery file whose process is gone', async () => {
    mkdirSync(join(data.dir, 'servers'), { recursive: true });
    writeFileSync(
      discoveryFile(data.dir, 1),
      JSON.stringify({
        url: 'http://127.0.0.1:1',
        pid: 2 ** 22 + 12345,
        started: '2026-01-01T00:00:00Z',
        kind: 'serve',
      }),
    );
    expect(runningServers(data.dir)).toEqual([]);
    expect(clientToken(undefined, data.dir, 'http://127.0.0.1:1')).toBeUndefined();
  });

  it("an investigation's in-process server touches neither local.token nor login-link.url", async () => {
    const served = await start();
    const token = localToken();
    const link = readFileSync(join(data.dir, 'login-link.url'), 'utf8');
    const local = await startLocalServer({ dataDir: data.dir, kube: fakeKube() });
    try {
      expect(localToken()).toBe(token);
      expect(readFileSync(join(data.dir, 'login-link.url'), 'utf8')).toBe(link);
      const entry = runningServers(data.dir).find((candidate) => candidate.url === local.url);
      expect(entry).toMatchObject({ kind: 'investigation', token_file: local.tokenFile });
      expect(clientToken(undefined, data.dir, `${local.url}/mcp`)?.token).toBe(local.token);
      expect(clientToken(undefined, data.dir, served.url!)?.token).toBe(token);
      expect(await status(served.url!, token)).toBe(200);
    } finally {
      await local.close();
    }
    expect(runningServers(data.dir).map((candidate) => candidate.url)).toEqual([served.url]);
  });

  it('`tokens rotate local` replaces the token in running servers at once', async () => {
    const server = await start();
    const old = localToken();
    const rotated = await runCli(['tokens', 'rotate', 'local', '--data-dir', data.dir]);
    expect(rotated.code).toBe(0);
    const fresh = localToken();
    expect(fresh).not.toBe(old);
    // stdout is no terminal here: the token stays in its file, and the command says where.
    expect(rotated.stdout).toBe('');
    expect(rotated.stderr).not.toContain(fresh);
    expect(rotated.stderr).toContain(join(data.dir, 'local.token'));
    expect(rotated.stderr).toContain('--show-token');
    const shown = await runCli(['tokens', 'rotate', 'local', '--show-token', '--data-dir', data.dir]);
    expect(shown.stdout).toBe(`${localToken()}\n`);
    expect(await status(server.url!, fresh)).toBe(401);
    const newest = localToken();
    expect(await status(server.url!, newest)).toBe(200);
    expect(await status(server.url!, old)).toBe(401);
  });

  it('`tokens rotate <name>` keeps the identity and its roles with a new token', async () => {
    const added = await runCli(['tokens', 'add', 'alice', '--role', 'approver', '--data-dir', data.dir]);
    const server = await start();
    const old = added.stdout.trim();
    expect(await status(server.url!, old)).toBe(200);
    const rotated = await runCli(['tokens', 'rotate', 'alice', '--data-dir', data.dir]);
    expect(rotated.code).toBe(0);
    expect(rotated.stderr).toContain('Grants it gave as an approver stay valid');
    const fresh = rotated.stdout.trim();
    expect(await status(server.url!, fresh)).toBe(200);
    expect(await status(server.url!, old)).toBe(401);
    const listed = await runCli(['tokens', 'list', '--data-dir', data.dir]);
    expect(listed.stdout).toMatch(/alice\s+approver/);
    const missing = await runCli(['tokens', 'rotate', 'nobody', '--data-dir', data.dir]);
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toContain("No identity named 'nobody'");
  });
});
