import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Router } from 'express';
import { writeFileSync } from 'node:fs';
import type { VersionInfo } from '@kubernetes/client-node';
import { MAX_BODY_BYTES } from '../../server/app.ts';
import { fixtureTools } from '../helpers/fixture-tools.ts';
import {
  connectClient,
  fakeKube,
  mcpHeaders,
  rawRequest,
  startTestServer,
  type TestServer,
} from '../helpers/server.ts';

const listRequest = JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' });

describe('HTTP server', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({
      registry: fixtureTools().registry,
      kube: fakeKube({ getVersion: async () => ({ gitVersion: 'v1.31.2' }) as VersionInfo }),
      allowedHosts: ['sentinel.example.internal', 'proxy.example.internal:8443'],
      extraRoutes: [
        (app, deps) => {
          const router = Router();
          router.get('/whoami', (req, res) => {
            res.json({
              identity: req.identity?.name,
              locals: (res.locals.identity as { name: string }).name,
            });
          });
          app.use('/api/test', deps.authenticate, router);
        },
      ],
    });
  });
  afterAll(() => server.close());

  const post = (headers: Record<string, string>, body = listRequest) =>
    rawRequest(`${server.url}/mcp`, { method: 'POST', headers, body });

  describe('authentication', () => {
    it('answers 401 with WWW-Authenticate without a token', async () => {
      const response = await post(mcpHeaders());
      expect(response.status).toBe(401);
      expect(response.headers['www-authenticate']).toMatch(/^Bearer error="invalid_token"/);
    });

    it('answers 401 for a wrong token and a non-bearer scheme', async () => {
      const wrong = await post(mcpHeaders('not-a-known-token-at-all'));
      expect(wrong.status).toBe(401);
      expect(wrong.headers['www-authenticate']).toMatch(/Unknown or revoked token/);
      const basic = await post({ ...mcpHeaders(), authorization: `Basic ${server.token}` });
      expect(basic.status).toBe(401);
    });

    it('accepts a token added while running, and rejects it once revoked — no restart', async () => {
      const { token } = server.identities.add({ name: 'oncall', roles: ['caller'] });
      const added = await post(mcpHeaders(token));
      expect(added.status).toBe(200);
      expect((added.json as { result: { tools: unknown[] } }).result.tools).toHaveLength(5);

      server.identities.revoke('oncall');
      const revoked = await post(mcpHeaders(token));
      expect(revoked.status).toBe(401);
    });

    it('picks up tokens.yaml written by another process', async () => {
      // A second store on the same file stands in for `sentinel tokens add` in another process.
      const { createIdentityStore } = await import('../../server/identity-store.ts');
      const other = createIdentityStore({ tokensFile: server.identities.tokensFile });
      const { token } = other.add({ name: 'approver-bob', roles: ['approver'] });
      const response = await rawRequest(`${server.url}/api/test/whoami`, {
        headers: { authorization: `Bearer ${token}` },
      });
      expect(response.json).toEqual({ identity: 'approver-bob', locals: 'approver-bob' });
      other.revoke('approver-bob');
    });

    it('fails closed while tokens.yaml is invalid, and recovers when it is fixed', async () => {
      const { token } = server.identities.add({ name: 'temp', roles: ['caller'] });
      const good = (await import('node:fs')).readFileSync(server.identities.tokensFile, 'utf8');
      writeFileSync(server.identities.tokensFile, 'identities: [ {name: temp, roles: [root]} ]\n');
      expect((await post(mcpHeaders(token))).status).toBe(401);
      expect((await post(mcpHeaders(server.token))).status).toBe(200);
      writeFileSync(server.identities.tokensFile, good);
      expect((await post(mcpHeaders(token))).status).toBe(200);
      server.identities.revoke('temp');
    });

    it('protects mounted routes with the same authentication', async () => {
      const anonymous = await rawRequest(`${server.url}/api/test/whoami`);
      expect(anonymous.status).toBe(401);
      const local = await rawRequest(`${server.url}/api/test/whoami`, {
        headers: { authorization: `Bearer ${server.token}` },
      });
      expect(local.json).toEqual({ identity: 'local', locals: 'local' });
    });
  });

  describe('Host and Origin (DNS rebinding)', () => {
    it('answers 403 for a foreign Host, before authentication', async () => {
      const response = await post({ ...mcpHeaders(server.token), host: 'evil.example.com' });
      expect(response.status).toBe(403);
      expect(response.json).toMatchObject({ error: { message: 'Invalid Host: evil.example.com' } });
      const health = await rawRequest(`${server.url}/healthz`, { headers: { host: 'evil.example.com:80' } });
      expect(health.status).toBe(403);
    });

    it('answers 403 for a foreign Origin', async () => {
      const response = await post({ ...mcpHeaders(server.token), origin: 'https://evil.example.com' });
      expect(response.status).toBe(403);
      expect(response.json).toMatchObject({ error: { message: 'Invalid Origin: https://evil.example.com' } });
      expect((await post({ ...mcpHeaders(server.token), origin: 'null' })).status).toBe(403);
    });

    const port = () => new URL(server.url).port;
    const otherPort = () => String(Number(port()) === 65535 ? 65534 : Number(port()) + 1);

    it('accepts localhost forms of the bound address on its port, and --allowed-host on the server port', async () => {
      for (const host of [
        `localhost:${port()}`,
        `127.0.0.1:${port()}`,
        `[::1]:${port()}`,
        `sentinel.example.internal:${port()}`,
        `proxy.example.internal:8443`,
      ]) {
        const response = await post({ ...mcpHeaders(server.token), host });
        expect(response.status, host).toBe(200);
      }
      for (const origin of [`http://localhost:${port()}`, `http://127.0.0.1:${port()}`]) {
        const fromPage = await post({ ...mcpHeaders(server.token), origin });
        expect(fromPage.status, origin).toBe(200);
      }
    });

    it('answers 403 for a Host or Origin on another port (a page served elsewhere on this machine)', async () => {
      for (const host of [
        `127.0.0.1:${otherPort()}`,
        `localhost:${otherPort()}`,
        'localhost',
        '127.0.0.1:80',
        'sentinel.example.internal:443',
        'proxy.example.internal',
      ]) {
        const response = await post({ ...mcpHeaders(server.token), host });
        expect(response.status, host).toBe(403);
        expect(response.json).toMatchObject({ error: { message: `Invalid Host: ${host}` } });
      }
      for (const origin of [
        `http://127.0.0.1:${otherPort()}`,
        `http://localhost:${otherPort()}`,
        'http://localhost:5173',
        'http://127.0.0.1',
      ]) {
        const mcp = await post({ ...mcpHeaders(server.token), origin });
        expect(mcp.status, origin).toBe(403);
        expect(mcp.json).toMatchObject({ error: { message: `Invalid Origin: ${origin}` } });
        // The approvals page and its login form sit behind the same check.
        for (const path of ['/ui/approvals', '/ui/login']) {
          const page = await rawRequest(`${server.url}${path}`, { headers: { origin } });
          expect(page.status, `${path} ${origin}`).toBe(403);
        }
      }
    });
  });

  describe('request handling', () => {
    it('answers 405 to GET and DELETE on /mcp (stateless server)', async () => {
      for (const method of ['GET', 'DELETE']) {
        const response = await rawRequest(`${server.url}/mcp`, { method, headers: mcpHeaders(server.token) });
        expect(response.status, method).toBe(405);
        expect(response.headers.allow).toBe('POST');
      }
    });

    it('answers 413 to a body over 1 MiB', async () => {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/list',
        params: { pad: 'x'.repeat(MAX_BODY_BYTES) },
      });
      const response = await post(mcpHeaders(server.token), body);
      expect(response.status).toBe(413);
      expect(response.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32600 }, id: null });
    });

    it('answers malformed JSON and non-JSON-RPC bodies with a JSON-RPC error and keeps serving', async () => {
      const broken = await post(mcpHeaders(server.token), '{"jsonrpc":"2.0","id":1,"meth');
      expect(broken.status).toBe(400);
      expect(broken.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 }, id: null });
      const notRpc = await post(mcpHeaders(server.token), '{"hello":"world"}');
      expect(notRpc.status).toBe(400);
      expect(notRpc.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32700 } });
      const unknownMethod = await post(
        mcpHeaders(server.token),
        JSON.stringify({ jsonrpc: '2.0', id: 7, method: 'tools/destroy' }),
      );
      expect(unknownMethod.json).toMatchObject({ jsonrpc: '2.0', id: 7, error: { code: -32601 } });
      expect((await post(mcpHeaders(server.token))).status).toBe(200);
    });

    it('serves /healthz without a token', async () => {
      const response = await rawRequest(`${server.url}/healthz`);
      expect(response.status).toBe(200);
      expect(response.json).toEqual({
        status: 'ok',
        version: expect.stringMatching(/^\d+\.\d+\.\d+/),
        uptime_seconds: expect.any(Number),
        cluster: {
          configured: true,
          context: 'test-context',
          server: 'https://127.0.0.1:6443',
          reachable: true,
          version: 'v1.31.2',
          checked_at: expect.any(String),
        },
      });
    });

    it('answers an unknown route with the API error shape, naming the route', async () => {
      const response = await rawRequest(`${server.url}/nope?x=1`, { method: 'DELETE' });
      expect(response.status).toBe(404);
      expect(response.json).toEqual({
        error: {
          code: 'not_found',
          message: 'No route DELETE /nope; the MCP endpoint is POST /mcp (health: GET /healthz).',
        },
      });
    });

    it('tags every response with a request id', async () => {
      const response = await rawRequest(`${server.url}/healthz`);
      expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/);
    });
  });

  describe('over an SDK client', () => {
    it('rejects an unknown argument naming it, and runs a valid call', async () => {
      const client = await connectClient(server.url, server.token);
      try {
        const rejected = await client.callTool({
          name: 'scale_thing',
          arguments: { namespace: 'shop', name: 'web', replicas: 2, dryrun: true },
        });
        expect(rejected.isError).toBe(true);
        expect((rejected.content as { text: string }[])[0]!.text).toMatch(/dryrun: unknown argument/);

        const ok = await client.callTool({
          name: 'scale_thing',
          arguments: { namespace: 'shop', name: 'web', replicas: 2, dry_run: true },
        });
        expect(ok.structuredContent).toEqual({ replicas: 2, dry_run: true });
      } finally {
        await client.close();
      }
    });
  });
});

describe('HTTP server without a cluster', () => {
  let server: TestServer;
  beforeAll(async () => {
    server = await startTestServer({ registry: fixtureTools().registry });
  });
  afterAll(() => server.close());

  it('starts, says so on /healthz, and tools answer unavailable', async () => {
    const health = await rawRequest(`${server.url}/healthz`);
    expect(health.json).toMatchObject({
      cluster: { configured: false, reason: expect.stringMatching(/--kubeconfig/) },
    });
    const client = await connectClient(server.url, server.token);
    try {
      const result = await client.callTool({ name: 'read_thing', arguments: { namespace: 'a', name: 'b' } });
      expect(result.isError).toBe(true);
      expect((result.content as { text: string }[])[0]!.text).toMatch(/No Kubernetes cluster is configured/);
    } finally {
      await client.close();
    }
  });
});
