/**
 * Issue 18: a client command run before any `sentinel serve` (the README's freeze block) said
 * "fetch failed". Every client command that finds no server names the URL it tried, why, and the
 * command that starts one, and exits 3 — also when it has no token to send.
 */
import { createServer } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { isConnectionFailure, serverUnreachable } from '../../server/unreachable.ts';
import { runCli } from '../helpers/cli.ts';
import { startTestServer, tempDataDir } from '../helpers/server.ts';

/** A loopback URL on which nothing listens: a port bound, then released. */
async function closedUrl(): Promise<string> {
  const socket = createServer();
  await new Promise<void>((resolve) => socket.listen(0, '127.0.0.1', resolve));
  const { port } = socket.address() as { port: number };
  await new Promise((resolve) => socket.close(resolve));
  return `http://127.0.0.1:${port}`;
}

const HINT =
  /No Sentinel server answers at (http:\/\/127\.0\.0\.1:\d+)(\/mcp)? \(connection refused\)\. Start one in another terminal with `npx sentinel serve --port \d+( --data-dir \S+)?`, or point --server or SENTINEL_SERVER_URL at a running one\./;

describe('no server answers', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('turns undici\'s "fetch failed" into the URL, the reason and the serve command', async () => {
    const url = await closedUrl();
    const error = await fetch(`${url}/healthz`).catch((e: unknown) => e);
    expect(isConnectionFailure(error)).toBe(true);
    expect(isConnectionFailure(new Error('HTTP 401'))).toBe(false);
    const message = serverUnreachable(url, error, '/tmp/d').message;
    expect(message).toBe(
      `No Sentinel server answers at ${url} (connection refused). Start one in another terminal with \`npx sentinel serve --port ${new URL(url).port} --data-dir /tmp/d\`, or point --server or SENTINEL_SERVER_URL at a running one.`,
    );
    expect(serverUnreachable(url, error).code).toBe('unavailable');
  });

  it('names the port (and a loopback host other than the default) that `serve` must use to answer there', () => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const serve = (url: string) => /with `([^`]+)`/.exec(serverUnreachable(url, refused).message)?.[1];
    // `serve` listens on 127.0.0.1:7070 by default: only what differs is said.
    expect(serve('http://127.0.0.1:7070')).toBe('npx sentinel serve');
    expect(serve('http://localhost:7070/mcp')).toBe('npx sentinel serve');
    expect(serve('http://127.0.0.1:7280')).toBe('npx sentinel serve --port 7280');
    expect(serve('http://localhost:7280/mcp')).toBe('npx sentinel serve --port 7280');
    expect(serve('http://[::1]:7070')).toBe('npx sentinel serve --host ::1');
    expect(serve('http://127.0.0.2:9000')).toBe('npx sentinel serve --host 127.0.0.2 --port 9000');
  });

  it("says why fetch failed when undici's cause tells (port 1: a port fetch refuses to use)", async () => {
    const error = await fetch('http://127.0.0.1:1/healthz').catch((e: unknown) => e);
    expect(serverUnreachable('http://127.0.0.1:1', error).message).toMatch(
      /^No Sentinel server answers at http:\/\/127\.0\.0\.1:1 \(bad port\)\. /,
    );
  });

  it.each([
    // Not this machine: a local `serve` would not answer there.
    ['another host', 'http://sentinel.example:7280'],
    // A privileged port (`freeze status --server http://127.0.0.1:1`): a typo, not where to start one.
    ['a privileged port', 'http://127.0.0.1:1'],
    ['the scheme’s default port (80)', 'http://127.0.0.1'],
  ])('suggests no `serve` command for %s: asks whether a server runs there', (_what, url) => {
    const refused = Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' });
    const { message } = serverUnreachable(url, refused);
    expect(message).not.toContain('sentinel serve');
    expect(message).toBe(
      `No Sentinel server answers at ${url} (connection refused). Is a Sentinel server running at ${url}? Check --server (or SENTINEL_SERVER_URL).`,
    );
  });

  it.each([
    ['freeze on', ['freeze', 'on', '--reason', 'change freeze until 18:00']],
    ['freeze off', ['freeze', 'off']],
    ['freeze status', ['freeze', 'status']],
    ['approvals list', ['approvals', 'list']],
    ['approvals show', ['approvals', 'show', 'apr_0123456789abcdef']],
  ])('%s with a token: exit 3 and the hint', async (_what, args) => {
    const data = tempDataDir();
    const url = await closedUrl();
    const result = await runCli([
      ...args,
      '--server',
      url,
      '--token',
      'x'.repeat(24),
      '--data-dir',
      data.dir,
    ]);
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(HINT);
    expect(result.stderr).toContain(url);
    expect(result.stderr).not.toContain('fetch failed');
    expect(result.stderr).not.toMatch(/\.\.$/m);
  });

  it.each([
    ['freeze on', ['freeze', 'on', '--reason', 'x']],
    ['approvals list', ['approvals', 'list']],
  ])(
    '%s before any serve (no token either, as in the README order): says no server answers, exit 3',
    async (_what, args) => {
      vi.stubEnv('SENTINEL_TOKEN', undefined);
      const data = tempDataDir();
      const url = await closedUrl();
      const result = await runCli([...args, '--server', url, '--data-dir', data.dir]);
      expect(result.code, result.stderr).toBe(3);
      expect(result.stderr).toMatch(HINT);
      expect(result.stderr).not.toContain('No token');
    },
  );

  it('with a server but no token: says the token is missing (exit 2), once', async () => {
    vi.stubEnv('SENTINEL_TOKEN', undefined);
    const server = await startTestServer();
    const data = tempDataDir();
    try {
      const result = await runCli(['freeze', 'status', '--server', server.url, '--data-dir', data.dir]);
      expect(result.code).toBe(2);
      expect(result.stderr).toMatch(/^sentinel: No token: give --token or SENTINEL_TOKEN/);
      expect(result.stderr).not.toMatch(/\.\.$/m);
    } finally {
      await server.close();
    }
  });

  it('investigate --server on a closed port: the MCP URL it tried and the hint, exit 3', async () => {
    const data = tempDataDir();
    const url = await closedUrl();
    const result = await runCli([
      'investigate',
      'checkout returns 502',
      '-n',
      'shop',
      '--server',
      `${url}/mcp`,
      '--token',
      'x'.repeat(24),
      '--data-dir',
      data.dir,
    ]);
    expect(result.code, result.stderr).toBe(3);
    expect(result.stderr).toMatch(HINT);
    expect(result.stderr).toContain(`${url}/mcp`);
  });
});
