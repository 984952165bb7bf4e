/**
 * The start-up listener of `sentinel serve` (server/serve-listen.ts): bound before the server is
 * loaded, it answers the probes as `starting` behind the Host/Origin checks, holds every other
 * request for the server and hands them over once attached, and answers them 503 when start-up
 * stops instead. What it loads is checked on a real process's module loads.
 */
import { afterEach, describe, expect, it } from 'vitest';
import type { RequestListener } from 'node:http';
import { pathToFileURL } from 'node:url';
import { bindEarly, bindsEarly, SERVER_LOAD_STAGES, type EarlyServer } from '../../server/serve-listen.ts';
import { parseServeOptions } from '../../server/serve-options.ts';
import { loadsOf, packagesOf, ROOT } from '../helpers/loads.ts';
import { rawRequest } from '../helpers/server.ts';

const options = (raw: Record<string, unknown> = {}) => parseServeOptions({ port: 0, ...raw });
const importing = (path: string) => [
  '-e',
  `await import(${JSON.stringify(pathToFileURL(`${ROOT}${path}`).href)})`,
];

describe('bindEarly', () => {
  let early: EarlyServer | undefined;
  afterEach(async () => {
    await early?.close();
    early = undefined;
  });

  it('answers /healthz 200 and /readyz 503 as starting before the server is attached', async () => {
    early = await bindEarly(options());
    const health = await rawRequest(`${early.url}/healthz`);
    expect(health.status).toBe(200);
    expect(health.json).toMatchObject({
      status: 'starting',
      version: expect.any(String),
      cluster: { configured: null, connecting: false },
    });
    const ready = await rawRequest(`${early.url}/readyz?verbose=1`);
    expect(ready.status).toBe(503);
    expect(ready.json).toMatchObject({ status: 'starting' });
  });

  it('refuses a foreign Host or Origin with 403, as the server does', async () => {
    early = await bindEarly(options());
    const host = await rawRequest(`${early.url}/healthz`, { headers: { host: 'evil.example' } });
    expect(host.status).toBe(403);
    expect(host.body).toContain('Invalid Host: evil.example');
    const origin = await rawRequest(`${early.url}/healthz`, { headers: { origin: 'http://evil.example' } });
    expect(origin.status).toBe(403);
    expect(origin.body).toContain('Invalid Origin');
  });

  it('holds other requests and hands them, with their bodies, to the attached server', async () => {
    early = await bindEarly(options());
    const held = rawRequest(`${early.url}/mcp`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"held":true}',
    });
    // /healthz answers while the POST waits: the POST was received and is held.
    expect((await rawRequest(`${early.url}/healthz`)).status).toBe(200);
    const app: RequestListener = (req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (chunk: Buffer) => chunks.push(chunk));
      req.on('end', () => res.end(`app ${req.method} ${req.url} ${Buffer.concat(chunks).toString()}`));
    };
    early.attach(app);
    expect((await held).body).toBe('app POST /mcp {"held":true}');
    // From now on every request, probes included, is the server's.
    expect((await rawRequest(`${early.url}/healthz`)).body).toBe('app GET /healthz ');
  });

  it('answers held requests 503 with Retry-After when start-up stops before attaching', async () => {
    early = await bindEarly(options());
    const held = rawRequest(`${early.url}/mcp`, { method: 'POST', body: '{}' });
    expect((await rawRequest(`${early.url}/healthz`)).status).toBe(200);
    await early.close();
    const reply = await held;
    expect(reply.status).toBe(503);
    expect(reply.headers['retry-after']).toBe('1');
    expect(reply.body).toContain('stopped while starting');
  });

  it('names the flag when the port is taken or the address is refused', async () => {
    early = await bindEarly(options());
    const port = Number(new URL(early.url).port);
    await expect(bindEarly(options({ port }))).rejects.toMatchObject({
      code: 'invalid_input',
      field: '--port',
    });
    // A configuration error (exit 2), like every other refused option.
    await expect(bindEarly(options({ host: '0.0.0.0' }))).rejects.toMatchObject({
      code: 'invalid_input',
      field: '--host',
    });
  });
});

describe('bindsEarly', () => {
  it('binds early on loopback, and remotely only with --allow-remote and a startup token', () => {
    expect(bindsEarly(options(), {})).toBe(true);
    expect(bindsEarly(options({ stdio: true, identity: 'local' }), {})).toBe(false);
    expect(bindsEarly(options({ host: '0.0.0.0' }), { SENTINEL_TOKEN: 'x'.repeat(32) })).toBe(false);
    expect(bindsEarly(options({ host: '0.0.0.0', allowRemote: true }), {})).toBe(false);
    expect(
      bindsEarly(options({ host: '0.0.0.0', allowRemote: true }), { SENTINEL_TOKEN: 'x'.repeat(32) }),
    ).toBe(true);
    expect(bindsEarly(options({ host: '0.0.0.0', allowRemote: true, tokenFile: '/t' }), {})).toBe(true);
  });
});

describe('what the start-up listener loads', () => {
  it('server/serve-listen.ts loads no Express, MCP SDK, pino, prom-client or Kubernetes client', async () => {
    const result = await loadsOf(importing('server/serve-listen.ts'));
    expect(result.code, result.stderr).toBe(0);
    expect(packagesOf(result.loaded)).toEqual(['fastest-levenshtein', 'safe-stable-stringify', 'zod']);
    for (const module of ['server/index.ts', 'server/app.ts', 'server/auth.ts', 'tools/index.ts'])
      expect(result.loaded).not.toContain(module);
  });

  it('every load stage is a module the server itself loads (staging loads nothing extra)', async () => {
    const result = await loadsOf(importing('server/index.ts'));
    expect(result.code, result.stderr).toBe(0);
    const base = pathToFileURL(`${ROOT}server/serve-listen.ts`).href;
    const root = pathToFileURL(ROOT).href;
    for (const stage of SERVER_LOAD_STAGES) {
      const url = stage.startsWith('.') ? new URL(stage, base).href : import.meta.resolve(stage);
      expect(result.loaded, stage).toContain(url.startsWith(root) ? url.slice(root.length) : url);
    }
  });
});
