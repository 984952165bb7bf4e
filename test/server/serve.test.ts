/**
 * `startServe` in-process: token sources, TLS, plugins, port conflicts. (The CLI process itself is
 * covered by cli.test.ts.)
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { existsSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { request as httpsRequest } from 'node:https';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import pino from 'pino';
import { Writable } from 'node:stream';
import { createLogger } from '../../server/logger.ts';
import { parseServeOptions } from '../../server/config.ts';
import { startServe, type RunningServer } from '../../server/serve.ts';
import type { ServerPlugin } from '../../server/plugins.ts';
import { createIdentityStore } from '../../server/identity-store.ts';
import { connectKube } from '../../tools/kube/connect.ts';
import { fixtureTools } from '../helpers/fixture-tools.ts';
import { writeKubeconfig } from '../helpers/kube.ts';
import { connectClient, fakeKube, mcpHeaders, rawRequest, tempDataDir } from '../helpers/server.ts';

const fixture = (name: string) => fileURLToPath(new URL(`../fixtures/${name}`, import.meta.url));

describe('startServe', () => {
  let data: ReturnType<typeof tempDataDir>;
  let running: RunningServer | undefined;
  let stderr: string;
  const io = (env: NodeJS.ProcessEnv = {}, terminal = false) => ({
    stderr: (text: string) => void (stderr += text),
    terminal,
    env,
  });
  const quiet = { logger: pino({ level: 'silent' }) };

  beforeEach(() => {
    data = tempDataDir();
    stderr = '';
  });
  afterEach(async () => {
    await running?.close();
    running = undefined;
    data.cleanup();
  });

  const options = (flags: Record<string, unknown> = {}) =>
    parseServeOptions({ port: '0', dataDir: data.dir, ...flags });

  it('uses SENTINEL_TOKEN as identity local, without printing or writing it', async () => {
    const token = 'operator-chosen-token-123456';
    running = await startServe(options(), io({ SENTINEL_TOKEN: token }), quiet);
    expect(stderr).toMatch(/Authorization: Bearer <the token from SENTINEL_TOKEN> {2}\(identity 'local'\)/);
    expect(stderr).not.toContain(token);
    expect(existsSync(join(data.dir, 'local.token'))).toBe(false);
    const client = await connectClient(running.url!, token);
    await client.close();
  });

  it('reads --token-file (trimmed) over SENTINEL_TOKEN, and rejects a short token naming its source', async () => {
    const file = join(data.dir, 'token');
    writeFileSync(file, 'token-from-a-file-0123456789\n');
    running = await startServe(
      options({ tokenFile: file }),
      io({ SENTINEL_TOKEN: 'ignored-env-token-0123' }),
      quiet,
    );
    expect(stderr).toContain(`the token from --token-file ${file}`);
    const ok = await rawRequest(`${running.url}/mcp`, {
      method: 'POST',
      headers: mcpHeaders('token-from-a-file-0123456789'),
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(ok.status).toBe(200);

    await expect(startServe(options(), io({ SENTINEL_TOKEN: 'short' }), quiet)).rejects.toThrow(
      'The token from SENTINEL_TOKEN is 5 characters; at least 16 are required',
    );
  });

  it('stops at start on an invalid tokens.yaml, naming the file and field', async () => {
    writeFileSync(join(data.dir, 'tokens.yaml'), 'identities:\n  - name: x\n');
    await expect(startServe(options(), io(), quiet)).rejects.toThrow(
      /tokens\.yaml is invalid: identities\.0\.roles: Invalid input/,
    );
  });

  it('never logs or (off a terminal) prints a credential: only the 0600 files holding them', async () => {
    const lines: string[] = [];
    const destination = new Writable({
      write(chunk: Buffer, _encoding, callback) {
        lines.push(chunk.toString('utf8'));
        callback();
      },
    });
    running = await startServe(options(), io(), { logger: createLogger({ level: 'debug', destination }) });
    const token = readFileSync(join(data.dir, 'local.token'), 'utf8').trim();
    const link = readFileSync(join(data.dir, 'login-link.url'), 'utf8').trim();
    const ticket = new URL(link).searchParams.get('ticket')!;
    expect(statSync(join(data.dir, 'login-link.url')).mode & 0o777).toBe(0o600);
    expect(stderr).toContain(
      `Token of identity 'local': in ${join(data.dir, 'local.token')} (0600; not printed`,
    );
    expect(stderr).toContain(
      `One-time login link for the approvals page (15 minutes, identity 'local'): in ${join(data.dir, 'login-link.url')} (0600;`,
    );
    // Requests that carry the token (good and bad), then the login link itself.
    const client = await connectClient(running.url!, token);
    await client.callTool({ name: 'get_cluster_version', arguments: { token } });
    await client.close();
    await rawRequest(`${running.url}/mcp`, { method: 'POST', headers: mcpHeaders(`${token}x`), body: '{}' });
    await rawRequest(link);
    const logs = lines.join('');
    expect(logs).toContain(join(data.dir, 'local.token'));
    for (const secret of [token, ticket]) {
      expect(logs).not.toContain(secret);
      expect(stderr).not.toContain(secret);
    }
  });

  it('shows the generated token and the login link on a terminal', async () => {
    running = await startServe(options(), io({}, true), quiet);
    const token = readFileSync(join(data.dir, 'local.token'), 'utf8').trim();
    const link = readFileSync(join(data.dir, 'login-link.url'), 'utf8').trim();
    expect(stderr).toContain(
      `Token of identity 'local', saved to ${join(data.dir, 'local.token')} (0600):\n${token}\n`,
    );
    expect(stderr).toContain(`${link}\n`);
  });

  it('refuses to start when SENTINEL_TOKEN is an identity token from tokens.yaml (never as local)', async () => {
    const { token } = createIdentityStore({ tokensFile: join(data.dir, 'tokens.yaml') }).add({
      name: 'investigator',
      roles: ['caller'],
    });
    const start = startServe(options(), io({ SENTINEL_TOKEN: token }), quiet);
    await expect(start).rejects.toMatchObject({ code: 'invalid_input' });
    await expect(start).rejects.toThrow(
      `The startup token (SENTINEL_TOKEN) is also the token of identity 'investigator' in ${join(data.dir, 'tokens.yaml')}`,
    );
    await start.catch((error: Error) => expect(error.message).not.toContain(token));
    expect(stderr).not.toContain(token);

    const file = join(data.dir, 'token');
    writeFileSync(file, `${token}\n`);
    await expect(startServe(options({ tokenFile: file }), io(), quiet)).rejects.toThrow(
      `The startup token (--token-file ${file}) is also the token of identity 'investigator'`,
    );
  });

  it('says which flag to change when the port is taken (a configuration error: exit 2)', async () => {
    running = await startServe(options(), io(), quiet);
    const port = new URL(running.url!).port;
    const second = startServe(options({ port }), io(), quiet);
    await expect(second).rejects.toThrow(
      `Port ${port} on 127.0.0.1 is already in use; choose another with --port (0 picks a free one).`,
    );
    await expect(second).rejects.toMatchObject({ code: 'invalid_input', field: '--port' });
  });

  it('serves HTTPS with --tls-cert/--tls-key', async () => {
    running = await startServe(
      options({ tlsCert: fixture('tls-test.crt'), tlsKey: fixture('tls-test.key') }),
      io(),
      quiet,
    );
    expect(running.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const body = await new Promise<string>((resolve, reject) => {
      httpsRequest(`${running!.url}/healthz`, { ca: readFileSync(fixture('tls-test.crt')) }, (response) => {
        let text = '';
        response.on('data', (chunk: Buffer) => (text += chunk.toString()));
        response.on('end', () => resolve(text));
      })
        .on('error', reject)
        .end();
    });
    expect(JSON.parse(body)).toMatchObject({ version: expect.any(String) });
  });

  it('wires plugins: middlewares around tools/call, routes behind auth, close on shutdown', async () => {
    const events: string[] = [];
    const plugin: ServerPlugin = (context) => {
      events.push(`start ${context.transport} ${context.dataDir === data.dir}`);
      return {
        middlewares: [
          async (call, next) => {
            events.push(`call ${call.tool.name} by ${call.identity.name} on ${call.cluster?.context}`);
            return next();
          },
        ],
        routes: [
          (app, deps) =>
            app.get('/api/plugin', deps.authenticate, (req, res) => {
              res.json({ caller: req.identity?.name });
            }),
        ],
        close: () => void events.push('close'),
      };
    };
    running = await startServe(options(), io({ SENTINEL_TOKEN: 'plugin-test-token-0123456' }), {
      ...quiet,
      plugins: [plugin],
      registry: fixtureTools().registry,
      kube: fakeKube(),
    });
    const client = await connectClient(running.url!, 'plugin-test-token-0123456');
    await client.callTool({ name: 'read_thing', arguments: { namespace: 'shop', name: 'web' } });
    await client.close();
    const route = await rawRequest(`${running.url}/api/plugin`, {
      headers: { authorization: 'Bearer plugin-test-token-0123456' },
    });
    expect(route.json).toEqual({ caller: 'local' });
    expect((await rawRequest(`${running.url}/api/plugin`)).status).toBe(401);
    await running.close();
    running = undefined;
    expect(events).toEqual(['start http true', 'call read_thing by local on test-context', 'close']);
  });

  it('a kubeconfig that cannot be used fails the first call and /readyz with the same clear error as connecting at start did', async () => {
    const kubeconfig = writeKubeconfig();
    try {
      const flags = { kubeconfig: kubeconfig.path, context: 'prod' };
      const expected = connectKube(flags); // what the eager connection said (tools/kube/connect.ts)
      expect(expected.configured).toBe(false);
      const reason = expected.configured ? '' : expected.reason;
      expect(reason).toContain(`Context 'prod' is not in kubeconfig '${kubeconfig.path}'`);
      const token = 'lazy-kubeconfig-token-0123456789';
      running = await startServe(options(flags), io({ SENTINEL_TOKEN: token }), quiet);
      expect(stderr).toContain(
        `Cluster: from kubeconfig '${kubeconfig.path}', context 'prod'; connected on first use`,
      );
      const client = await connectClient(running.url!, token);
      const result = await client.callTool({ name: 'get_cluster_version', arguments: {} });
      await client.close();
      expect(result).toMatchObject({ isError: true, content: [{ type: 'text', text: reason }] });
      const ready = await rawRequest(`${running.url}/readyz`);
      expect(ready.status).toBe(503);
      expect(ready.json).toMatchObject({ status: 'degraded', cluster: { configured: false, reason } });
      expect(stderr).toContain(`Cluster: not configured. ${reason}\n`);
    } finally {
      kubeconfig.remove();
    }
  });

  it('says at start that no cluster is configured when there is no configuration to read', async () => {
    running = await startServe(options({ kubeconfig: join(data.dir, 'missing.kubeconfig') }), io(), quiet);
    expect(stderr).toContain(
      `Cluster: not configured. The Kubernetes configuration cannot be used: kubeconfig file '${join(data.dir, 'missing.kubeconfig')}' does not exist.`,
    );
    expect((await rawRequest(`${running.url}/readyz`)).json).toMatchObject({
      cluster: { configured: false },
    });
  });

  it('warns at start about identities that trust upstream approval', async () => {
    createIdentityStore({ tokensFile: join(data.dir, 'tokens.yaml') }).add({
      name: 'harness',
      roles: ['caller'],
      trustUpstreamApproval: true,
      upstreamHarness: { url: 'http://127.0.0.1:8000' },
    });
    running = await startServe(options(), io(), quiet);
    expect(stderr).toMatch(/Warning: harness trusts the harness's approval/);
    expect(stderr).toContain(
      'when the harness at http://127.0.0.1:8000 shows a matching allow, verified against it',
    );
    expect(stderr).toMatch(/Identities in .*tokens\.yaml: 1;/);
  });
});
