/**
 * The approvals page in headless Chromium (Debian's `chromium`, driven by playwright-core): log in
 * with the one-time URL `sentinel serve` printed (a clean console: no missing icon), see a pending
 * rollback rendered, deny it with a reason using only the keyboard, see it leave the pending list,
 * see a new request arrive without a reload (SSE), approve another after typing its Deployment name,
 * read a refusal where the human is looking, sign in with the form and sign out (real Origin headers;
 * the old cookie is dead afterwards; a form post with `Origin: null` is refused).
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { chromium, type BrowserContext, type ConsoleMessage, type Page } from 'playwright-core';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { PendingResultMetaSchema } from '../../../server/gate/index.ts';
import { createIdentityStore } from '../../../server/identity-store.ts';
import { connectClient } from '../../helpers/server.ts';
import { describeWithTool } from '../../helpers/system-tools.ts';
import { startGateServer, type GateServer } from '../gate/fixtures/serve.ts';

const checkout = { namespace: 'shop', name: 'checkout' };

describeWithTool('chromium', 'approvals page in headless Chromium', (chromiumPath) => {
  let s: GateServer;
  let agent: Client;
  let browser: BrowserContext;
  let profile: string;
  let page: Page;
  /** Console errors and warnings of `page` (a missing favicon shows up here as a 404). */
  const consoleProblems: string[] = [];
  const recordConsole = (message: ConsoleMessage) => {
    if (message.type() === 'error' || message.type() === 'warning') consoleProblems.push(message.text());
  };

  beforeAll(async () => {
    s = await startGateServer();
    agent = await connectClient(s.url, s.tokens.agent);
    profile = mkdtempSync(join(tmpdir(), 'sentinel-chromium-'));
    // A fresh profile directory (playwright passes it as --user-data-dir).
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath,
      headless: true,
      args: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-quic',
        '--no-first-run',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
      ],
    });
    page = browser.pages()[0] ?? (await browser.newPage());
    page.on('console', recordConsole);
  });
  afterAll(async () => {
    await browser?.close();
    await agent?.close();
    await s?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
  });

  async function hold(name: string, args: Record<string, unknown>): Promise<string> {
    const held = await agent.callTool({ name, arguments: args });
    return PendingResultMetaSchema.parse(held._meta).approval_request_id;
  }
  const item = (id: string) => page.locator(`#pending > li[data-id="${id}"]`);

  it('logs in with the one-time URL and shows the pending rollback rendered', async () => {
    const rollback = await hold('rollback_deployment', checkout);
    const loginUrl = /(http:\/\/127\.0\.0\.1:\d+\/ui\/login\?ticket=[\w-]+)/.exec(s.stderr.join(''))![1]!;
    await page.goto(loginUrl);
    expect(new URL(page.url()).pathname).toBe('/ui/approvals');
    // A cold browser on a loaded machine can take seconds to open the stream: wait for it, do not time it.
    await expect
      .poll(() => page.locator('#connection').textContent(), { timeout: 60_000 })
      .toBe('Live updates: connected.');
    const rendered = item(rollback);
    expect(await rendered.locator('h3.sentence').textContent()).toBe(
      'Roll back Deployment shop/checkout from revision 7 (checkout:2.4.1) to revision 6 (checkout:2.4.0)',
    );
    expect(await rendered.locator('dl.facts').textContent()).toContain('Requesteragent, ');
    expect(await rendered.locator('ul.changes').textContent()).toMatch(/checkout:2\.4\.1.*checkout:2\.4\.0/);
    // The status in words, a live countdown to expiry, the expiry in local time with UTC on hover.
    expect(await rendered.locator('.status-label').textContent()).toBe('Pending: waiting for a decision');
    await expect
      .poll(() => rendered.locator('[data-countdown]').textContent())
      .toMatch(/^\(in \d+ min \d\d s\)$/);
    const expires = rendered.locator('.countdown time');
    expect(await expires.getAttribute('title')).toMatch(/^\d{4}-\d\d-\d\dT.*Z \(UTC\)$/);
    await expect.poll(() => expires.textContent(), { timeout: 60_000 }).not.toMatch(/Z$/);
    // Icon, stylesheet, script and stream all loaded: nothing for the console to complain about.
    expect(consoleProblems).toEqual([]);
  });

  it('denies the rollback with a reason, by keyboard, and it leaves the pending list', async () => {
    const rollback = (await page.locator('#pending > li').first().getAttribute('data-id'))!;
    const denyButton = item(rollback).locator('button.deny');
    await denyButton.focus();
    await page.keyboard.press('Enter');
    const reason = item(rollback).locator('textarea');
    await expect.poll(() => reason.evaluate((el) => el.ownerDocument.activeElement === el)).toBe(true);
    // An empty reason is refused on the page, before anything is sent.
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    expect(await item(rollback).locator('p.error').textContent()).toBe(
      'A reason is required to deny: the requester is told why.',
    );
    await reason.focus();
    await page.keyboard.type('Revision 6 has the cart bug too; fix forward');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect.poll(() => item(rollback).count()).toBe(0);
    expect(await page.locator('#status').textContent()).toBe(`${rollback} denied.`);
    const history = page.locator(`#history > li[data-id="${rollback}"]`);
    await expect.poll(() => history.count()).toBe(1);
    expect(await history.locator('dl.facts').textContent()).toContain(
      'denied by local 0s ago: Revision 6 has the cart bug too; fix forward',
    );
    expect(await history.locator('.status-label').textContent()).toBe('Denied');
    expect(await history.locator('[data-countdown]').count()).toBe(0);
    expect((await s.api(s.tokens.alice, 'GET', `/approvals/${rollback}`)).body.status).toBe('denied');
  });

  it('shows a new request without a reload, and approves it', async () => {
    const before = page.url();
    const scale = await hold('scale_deployment', { ...checkout, replicas: 6 });
    await expect.poll(() => item(scale).count()).toBe(1);
    expect(page.url()).toBe(before);
    expect(await item(scale).locator('h3.sentence').textContent()).toBe(
      'Scale Deployment shop/checkout from 3 to 6 replicas',
    );
    await item(scale).locator('input[name="confirm"]').fill('checkout');
    await item(scale).locator('button.allow').click();
    await expect.poll(() => item(scale).count()).toBe(0);
    await expect.poll(() => page.locator('#pending-empty').isVisible()).toBe(true);
    expect((await s.api(s.tokens.alice, 'GET', `/approvals/${scale}`)).body).toMatchObject({
      status: 'approved',
      decision: { by: 'local' },
    });
  });

  it('approves a scale to 0 only after the Deployment name is typed', async () => {
    const scale = await hold('scale_deployment', { ...checkout, replicas: 0 });
    await expect.poll(() => item(scale).count()).toBe(1);
    expect(await item(scale).locator('.confirm label').textContent()).toBe(
      'Type checkout to allow: Scaling Deployment shop/checkout to 0 replicas stops every Pod; the service is unavailable until it is scaled back up.',
    );
    const confirm = item(scale).locator('input[name="confirm"]');
    const error = item(scale).locator('p.error');
    await item(scale).locator('button.allow').click();
    await expect.poll(() => error.textContent()).toBe('Type checkout to confirm before allowing.');
    expect(await confirm.evaluate((el) => el.ownerDocument.activeElement === el)).toBe(true);
    await page.keyboard.type('checkou');
    await page.keyboard.press('Enter');
    expect(await item(scale).count()).toBe(1);
    expect((await s.api(s.tokens.alice, 'GET', `/approvals/${scale}`)).body.status).toBe('pending');
    await page.keyboard.type('t');
    await page.keyboard.press('Enter');
    await expect.poll(() => item(scale).count()).toBe(0);
    expect((await s.api(s.tokens.alice, 'GET', `/approvals/${scale}`)).body.status).toBe('approved');
  });

  it('shows the gate’s refusal when an approver tries to decide their own request', async () => {
    const sam = createIdentityStore({ tokensFile: join(s.dataDir, 'tokens.yaml') }).add({
      name: 'sam',
      roles: ['caller', 'approver'],
    });
    const samClient = await connectClient(s.url, sam.token);
    try {
      const held = await samClient.callTool({ name: 'pause_rollout', arguments: checkout });
      const own = PendingResultMetaSchema.parse(held._meta).approval_request_id;
      await page.goto(`${s.url}/ui/login`);
      await page.locator('#token').fill(sam.token);
      await page.keyboard.press('Enter');
      await page.waitForURL(`${s.url}/ui/approvals`);
      expect(await page.locator('header').textContent()).toContain('Signed in as sam');
      await item(own).locator('button.allow').click();
      await expect.poll(() => item(own).locator('p.error').textContent()).toMatch(/sam/);
      expect(await item(own).locator('p.error').isVisible()).toBe(true);
      expect(await page.locator('#status').textContent()).toMatch(/^Not decided: /);
      expect((await s.api(s.tokens.alice, 'GET', `/approvals/${own}`)).body.status).toBe('pending');
    } finally {
      await samClient.close();
    }
  });

  const sessionCookie = async () =>
    (await browser.cookies(`${s.url}/ui/approvals`)).find((cookie) => cookie.name === 'sentinel_session')
      ?.value;

  it('signs in with the form and out again, both posts carrying the real Origin; the old cookie is dead', async () => {
    const fresh = await browser.newPage();
    const problems: string[] = [];
    fresh.on('console', (message) => message.type() === 'error' && problems.push(message.text()));
    const other = await browser.newPage();
    try {
      const earlier = await sessionCookie();
      await fresh.goto(`${s.url}/ui/login`);
      await fresh.locator('#token').fill(s.tokens.alice);
      const [login] = await Promise.all([
        fresh.waitForRequest((request) => request.method() === 'POST' && request.url().endsWith('/ui/login')),
        fresh.keyboard.press('Enter'),
      ]);
      expect(login.headers().origin).toBe(s.url);
      await fresh.waitForURL(`${s.url}/ui/approvals`);
      expect(problems).toEqual([]);
      // Chromium's cookie store catches up with the response asynchronously.
      await expect.poll(sessionCookie).not.toBe(earlier);
      const cookie = await sessionCookie();
      expect(cookie).toBeDefined();
      // A second tab on the same session, live.
      await other.goto(`${s.url}/ui/approvals`);
      await expect.poll(() => other.locator('#connection').textContent()).toBe('Live updates: connected.');

      const [logout] = await Promise.all([
        fresh.waitForRequest(
          (request) => request.method() === 'POST' && request.url().endsWith('/ui/logout'),
        ),
        fresh.locator('form.signout button').click(),
      ]);
      expect(logout.headers().origin).toBe(s.url);
      await fresh.waitForURL(`${s.url}/ui/login`);
      await expect.poll(sessionCookie).toBeUndefined();
      // The other tab is told at once and goes to the login form.
      await other.waitForURL(`${s.url}/ui/login`);
      // The server forgot the session: the old cookie, replayed, opens nothing.
      const replayed = await fetch(`${s.url}/ui/api/approvals`, {
        headers: { cookie: `sentinel_session=${cookie}` },
      });
      expect(replayed.status).toBe(401);
      await browser.addCookies([{ name: 'sentinel_session', value: cookie!, url: `${s.url}/ui` }]);
      await fresh.goto(`${s.url}/ui/approvals`);
      expect(new URL(fresh.url()).pathname).toBe('/ui/login');
    } finally {
      await fresh.close();
      await other.close();
    }
  });

  it('refuses a login form post whose Origin is null (what no-referrer caused), signing no one in', async () => {
    await browser.clearCookies();
    const fresh = await browser.newPage();
    try {
      await fresh.goto(`${s.url}/ui/login`);
      // What the page looked like before 1ae38f2: a no-referrer policy makes Chromium send `Origin: null`.
      await fresh
        .locator('head')
        .evaluate((head) =>
          head.insertAdjacentHTML('beforeend', '<meta name="referrer" content="no-referrer">'),
        );
      await fresh.locator('#token').fill(s.tokens.alice);
      const [login] = await Promise.all([
        fresh.waitForResponse((response) => response.request().method() === 'POST'),
        fresh.keyboard.press('Enter'),
      ]);
      expect(login.request().headers().origin).toBe('null');
      expect(login.status()).toBe(403);
      // The refusal is what the browser shows (and the navigation is over before the page closes).
      await expect.poll(() => fresh.locator('body').textContent()).toContain('Invalid Origin: null');
      expect(await sessionCookie()).toBeUndefined();
    } finally {
      await fresh.close();
    }
  });
});
