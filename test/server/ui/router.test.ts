import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import YAML from 'yaml';
import { PendingResultMetaSchema } from '../../../server/gate/index.ts';
import { createIdentityStore } from '../../../server/identity-store.ts';
import { connectClient } from '../../helpers/server.ts';
import { startGateServer, type GateServer } from '../gate/fixtures/serve.ts';

const checkout = { namespace: 'shop', name: 'checkout' };

describe('approvals page endpoints (sentinel serve with the gate)', () => {
  let s: GateServer;
  let agent: Client;
  let samToken: string;
  beforeAll(async () => {
    s = await startGateServer();
    agent = await connectClient(s.url, s.tokens.agent);
    samToken = createIdentityStore({ tokensFile: join(s.dataDir, 'tokens.yaml') }).add({
      name: 'sam',
      roles: ['caller', 'approver'],
    }).token;
  });
  afterAll(async () => {
    await agent?.close();
    await s?.close();
  });

  const get = (path: string, cookie?: string) =>
    fetch(`${s.url}${path}`, { redirect: 'manual', headers: cookie ? { cookie } : {} });
  const post = (
    path: string,
    options: { cookie?: string; csrf?: string; json?: unknown; form?: Record<string, string> },
  ) =>
    fetch(`${s.url}${path}`, {
      method: 'POST',
      redirect: 'manual',
      headers: {
        ...(options.cookie && { cookie: options.cookie }),
        ...(options.csrf && { 'x-csrf-token': options.csrf }),
        ...(options.json !== undefined && { 'content-type': 'application/json' }),
        ...(options.form && { 'content-type': 'application/x-www-form-urlencoded' }),
      },
      body: options.form ? new URLSearchParams(options.form).toString() : JSON.stringify(options.json ?? {}),
    });
  type Answer = { error: { code: string; message: string }; status: string; request: { html: string } };
  const answer = async (response: Response) => (await response.json()) as Answer;
  const cookieOf = (response: Response) => response.headers.get('set-cookie')!.split(';')[0]!;

  async function signIn(token: string): Promise<{ cookie: string; csrf: string }> {
    const response = await post('/ui/login', { form: { token } });
    expect(response.status).toBe(303);
    const cookie = cookieOf(response);
    const page = await (await get('/ui/approvals', cookie)).text();
    return { cookie, csrf: /<meta name="csrf-token" content="([^"]+)">/.exec(page)![1]! };
  }

  async function hold(client: Client, replicas: number): Promise<string> {
    const held = await client.callTool({ name: 'scale_deployment', arguments: { ...checkout, replicas } });
    return PendingResultMetaSchema.parse(held._meta).approval_request_id;
  }

  it('refuses (403) a page on another localhost port: no login, no cookie, no page, no API', async () => {
    const port = Number(new URL(s.url).port);
    const other = `http://127.0.0.1:${port === 65535 ? 65534 : port + 1}`;
    const login = await fetch(`${s.url}/ui/login`, {
      method: 'POST',
      redirect: 'manual',
      headers: { origin: other, 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({ token: samToken }).toString(),
    });
    expect(login.status).toBe(403);
    expect(login.headers.get('set-cookie')).toBeNull();
    const { cookie } = await signIn(samToken);
    for (const path of ['/ui/approvals', '/ui/api/approvals']) {
      const response = await fetch(`${s.url}${path}`, {
        redirect: 'manual',
        headers: { cookie, origin: other },
      });
      expect(response.status, path).toBe(403);
    }
    const mcp = await fetch(`${s.url}/mcp`, {
      method: 'POST',
      headers: {
        origin: other,
        authorization: `Bearer ${s.tokens.agent}`,
        'content-type': 'application/json',
        accept: 'application/json, text/event-stream',
      },
      body: JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'tools/list' }),
    });
    expect(mcp.status).toBe(403);
    // The page's own origin still works.
    const own = await fetch(`${s.url}/ui/approvals`, {
      redirect: 'manual',
      headers: { cookie, origin: s.url },
    });
    expect(own.status).toBe(200);
  });

  it('sends a visitor without a session to the login form (page) or answers 401 (API, events)', async () => {
    const page = await get('/ui/approvals');
    expect(page.status).toBe(303);
    expect(page.headers.get('location')).toBe('/ui/login');
    expect((await get('/ui/api/approvals')).status).toBe(401);
    expect((await get('/ui/events')).status).toBe(401);
    const login = await get('/ui/login');
    expect(login.status).toBe(200);
    expect(await login.text()).toContain('<input id="token" name="token" type="password"');
    expect(login.headers.get('content-security-policy')).toContain("default-src 'none'; script-src 'self'");
    expect(login.headers.get('cache-control')).toBe('no-store');
    expect(login.headers.get('referrer-policy')).toBe('same-origin');
  });

  it('exchanges the one-time login URL for an HttpOnly, SameSite=Strict session cookie, once', async () => {
    const printed = s.stderr.join('');
    const url = /(http:\/\/127\.0\.0\.1:\d+\/ui\/login\?ticket=[\w-]+)/.exec(printed)?.[1];
    expect(printed).toContain(`Approvals page: ${s.url}/ui/approvals`);
    expect(url).toBeDefined();
    const first = await fetch(url!, { redirect: 'manual' });
    expect(first.status).toBe(303);
    expect(first.headers.get('location')).toBe('/ui/approvals');
    const setCookie = first.headers.get('set-cookie')!;
    expect(setCookie).toMatch(
      /^sentinel_session=[\w-]{43}; Max-Age=1800; Path=\/ui; Expires=.*; HttpOnly; SameSite=Strict$/,
    );
    const page = await get('/ui/approvals', cookieOf(first));
    expect(page.status).toBe(200);
    expect(await page.text()).toContain('Signed in as <strong>local</strong>');
    const again = await fetch(url!, { redirect: 'manual' });
    expect(again.status).toBe(401);
    expect(await again.text()).toContain('This login link was already used or has expired.');
  });

  it('takes an approver token in the login form; refuses unknown tokens and non-approvers', async () => {
    expect((await post('/ui/login', { form: { token: 'nope-nope-nope' } })).status).toBe(401);
    const caller = await post('/ui/login', { form: { token: s.tokens.agent } });
    expect(caller.status).toBe(403);
    expect(await caller.text()).toContain('Identity &#39;agent&#39; is not an approver');
    const { cookie } = await signIn(s.tokens.alice);
    expect(await (await get('/ui/approvals', cookie)).text()).toContain(
      'Signed in as <strong>alice</strong>',
    );
  });

  it('shows a held call rendered, and decides it only with the CSRF token', async () => {
    const id = await hold(agent, 4);
    const { cookie, csrf } = await signIn(s.tokens.alice);
    const page = await (await get('/ui/approvals', cookie)).text();
    expect(page).toContain(`data-id="${id}"`);
    expect(page).toContain('Scale Deployment shop/checkout from 3 to 4 replicas');

    const noToken = await post(`/ui/api/approvals/${id}/deny`, { cookie, json: { reason: 'no' } });
    expect(noToken.status).toBe(403);
    expect((await answer(noToken)).error.message).toMatch(/CSRF token/);
    expect(
      (await post(`/ui/api/approvals/${id}/deny`, { cookie, csrf: 'x'.repeat(43), json: { reason: 'no' } }))
        .status,
    ).toBe(403);
    const noReason = await post(`/ui/api/approvals/${id}/deny`, { cookie, csrf, json: {} });
    expect(noReason.status).toBe(422);
    expect((await answer(noReason)).error).toMatchObject({
      code: 'invalid_input',
      message: expect.stringMatching(/^reason: /),
    });

    const denied = await post(`/ui/api/approvals/${id}/deny`, {
      cookie,
      csrf,
      json: { reason: 'not during the sale' },
    });
    expect(denied.status).toBe(200);
    const body = await answer(denied);
    expect(body.status).toBe('denied');
    expect(body.request.html).toContain('denied by alice');
    const again = await post(`/ui/api/approvals/${id}/approve`, { cookie, csrf, json: {} });
    expect(again.status).toBe(409);
    expect((await answer(again)).error.message).toMatch(/already denied/);
  });

  it('refuses, with the gate’s message, an approver deciding their own request', async () => {
    const sam = await connectClient(s.url, samToken);
    try {
      const id = await hold(sam, 6);
      const { cookie, csrf } = await signIn(samToken);
      const own = await post(`/ui/api/approvals/${id}/approve`, { cookie, csrf, json: {} });
      expect(own.status).toBe(403);
      const { error } = await answer(own);
      expect(error.code).toBe('forbidden');
      expect(error.message).toMatch(/sam/);
    } finally {
      await sam.close();
    }
  });

  it('approves a dangerous request only with the typed Deployment name (a scripted post cannot skip it)', async () => {
    const id = await hold(agent, 0);
    const { cookie, csrf } = await signIn(s.tokens.alice);
    const page = await (await get('/ui/approvals', cookie)).text();
    expect(page).toContain(`<input id="confirm-${id}" name="confirm"`);
    for (const json of [{}, { confirm: 'payments' }]) {
      const refused = await post(`/ui/api/approvals/${id}/approve`, { cookie, csrf, json });
      expect(refused.status).toBe(422);
      expect((await answer(refused)).error).toEqual({
        code: 'invalid_input',
        message: `confirm: type 'checkout' to approve ${id}. Scaling Deployment shop/checkout to 0 replicas stops every Pod; the service is unavailable until it is scaled back up.`,
      });
    }
    expect((await s.api(s.tokens.alice, 'GET', `/approvals/${id}`)).body.status).toBe('pending');
    const typo = await post(`/ui/api/approvals/${id}/approve`, {
      cookie,
      csrf,
      json: { confirmed: 'checkout' },
    });
    expect(typo.status).toBe(422);
    expect((await answer(typo)).error.message).toMatch(/^\(body\): Unrecognized key: "confirmed"/);
    const approved = await post(`/ui/api/approvals/${id}/approve`, {
      cookie,
      csrf,
      json: { confirm: 'checkout' },
    });
    expect(approved.status).toBe(200);
    expect((await answer(approved)).status).toBe('approved');
  });

  it('tells the page what changed on the target since the preview (GET …/check, session only)', async () => {
    const id = await hold(agent, 9);
    expect((await get(`/ui/api/approvals/${id}/check`)).status).toBe(401);
    const { cookie } = await signIn(s.tokens.alice);
    const deployment = s.cluster.deployment('shop', 'checkout');
    deployment.spec!.replicas = 4;
    try {
      const response = await get(`/ui/api/approvals/${id}/check`, cookie);
      expect(response.status).toBe(200);
      expect(await response.json()).toMatchObject({
        id,
        stale: true,
        warnings: [expect.stringContaining('replicas.from now 4, the preview said 3')],
      });
    } finally {
      deployment.spec!.replicas = 3;
    }
    // The page's script shows them on each pending request.
    const script = await (await get('/ui/assets/approvals.js')).text();
    expect(script).toContain('/check');
  });

  it('approves a write call (pause) without a confirmation', async () => {
    const held = await agent.callTool({ name: 'pause_rollout', arguments: checkout });
    const id = PendingResultMetaSchema.parse(held._meta).approval_request_id;
    const { cookie, csrf } = await signIn(s.tokens.alice);
    expect(await (await get('/ui/approvals', cookie)).text()).not.toContain(`id="confirm-${id}"`);
    const approved = await post(`/ui/api/approvals/${id}/approve`, { cookie, csrf, json: {} });
    expect(approved.status).toBe(200);
  });

  it('ends the sessions of a revoked identity, and of a rotated token', async () => {
    const store = createIdentityStore({ tokensFile: join(s.dataDir, 'tokens.yaml') });
    const first = store.add({ name: 'rita', roles: ['approver'] }).token;
    const before = await signIn(first);
    store.revoke('rita');
    expect((await get('/ui/api/approvals', before.cookie)).status).toBe(401);
    expect((await get('/ui/approvals', before.cookie)).headers.get('location')).toBe('/ui/login');

    // Rotation: the same name with a new token. Sessions of the old token stay ended; the new one signs in.
    expect((await post('/ui/login', { form: { token: first } })).status).toBe(401);
    const second = store.add({ name: 'rita', roles: ['approver'] }).token;
    expect((await get('/ui/api/approvals', before.cookie)).status).toBe(401);
    const after = await signIn(second);
    expect((await get('/ui/api/approvals', after.cookie)).status).toBe(200);
    store.revoke('rita');
    store.add({ name: 'rita', roles: ['approver'] });
    expect((await get('/ui/api/approvals', after.cookie)).status).toBe(401);
  });

  it('ends a session whose identity lost the approver role', async () => {
    const store = createIdentityStore({ tokensFile: join(s.dataDir, 'tokens.yaml') });
    const token = store.add({ name: 'otto', roles: ['approver'] }).token;
    const { cookie } = await signIn(token);
    const records = store.list();
    writeFileSync(
      store.tokensFile,
      YAML.stringify({
        identities: records.map((record) =>
          record.name === 'otto' ? { ...record, roles: ['caller'] } : record,
        ),
      }),
    );
    expect((await get('/ui/api/approvals', cookie)).status).toBe(401);
  });

  it('streams snapshots over SSE', async () => {
    const { cookie } = await signIn(s.tokens.alice);
    const controller = new AbortController();
    const response = await fetch(`${s.url}/ui/events`, { headers: { cookie }, signal: controller.signal });
    expect(response.headers.get('content-type')).toBe('text/event-stream; charset=utf-8');
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    expect(text).toMatch(/^event: snapshot\ndata: \{"pending":\[/);
    const id = await hold(agent, 7);
    while (!text.includes(id)) text += new TextDecoder().decode((await reader.read()).value);
    controller.abort();
  });

  it('signs out with the CSRF token, forgets the session and ends its live stream', async () => {
    const { cookie, csrf } = await signIn(s.tokens.alice);
    const response = await fetch(`${s.url}/ui/events`, { headers: { cookie } });
    const reader = response.body!.getReader();
    let text = '';
    while (!text.includes('\n\n')) text += new TextDecoder().decode((await reader.read()).value);
    expect((await post('/ui/logout', { cookie, form: { csrf: 'wrong' } })).status).toBe(403);
    const out = await post('/ui/logout', { cookie, form: { csrf } });
    expect(out.status).toBe(303);
    expect(out.headers.get('set-cookie')).toMatch(/^sentinel_session=; Path=\/ui; Expires=Thu, 01 Jan 1970/);
    expect((await get('/ui/api/approvals', cookie)).status).toBe(401);
    expect((await get('/ui/approvals', cookie)).headers.get('location')).toBe('/ui/login');
    // The stream says `logout` and closes without waiting for the next approval event.
    for (let chunk = await reader.read(); !chunk.done; chunk = await reader.read()) {
      text += new TextDecoder().decode(chunk.value);
    }
    expect(text).toMatch(/event: logout\ndata: \{"message":"Your session ended; sign in again\."\}\n\n$/);
  });

  it('serves its icon', async () => {
    const icon = await get('/ui/assets/favicon.svg');
    expect(icon.status).toBe(200);
    expect(icon.headers.get('content-type')).toBe('image/svg+xml; charset=utf-8');
    expect(await icon.text()).toMatch(/^<svg xmlns="http:\/\/www\.w3\.org\/2000\/svg"/);
  });

  it('serves /metrics to token holders only', async () => {
    expect((await fetch(`${s.url}/metrics`)).status).toBe(401);
    const metrics = await fetch(`${s.url}/metrics`, {
      headers: { authorization: `Bearer ${s.tokens.agent}` },
    });
    expect(metrics.status).toBe(200);
    expect(metrics.headers.get('content-type')).toMatch(/^text\/plain; version=0\.0\.4/);
    const text = await metrics.text();
    expect(text).toMatch(/sentinel_tool_calls_total\{tool="scale_deployment",outcome="held"\} \d+/);
    expect(text).toContain('process_cpu_user_seconds_total');
  });

  it('ends a session when its identity is removed and re-added with a new token', async () => {
    const identities = createIdentityStore({ tokensFile: join(s.dataDir, 'tokens.yaml') });
    const first = identities.add({ name: 'pat', roles: ['approver'] }).token;
    const { cookie } = await signIn(first);
    expect((await get('/ui/api/approvals', cookie)).status).toBe(200);
    identities.revoke('pat');
    identities.add({ name: 'pat', roles: ['approver'] });
    expect((await get('/ui/api/approvals', cookie)).status).toBe(401);
  });
});
