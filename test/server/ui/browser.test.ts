/**
 * The approvals page in headless Chromium (Debian's `chromium`, driven by playwright-core): log in
 * with the one-time URL `sentinel serve` printed, see a pending rollback rendered, deny it with a
 * reason using only the keyboard, see it leave the pending list, see a new request arrive without a
 * reload (SSE), approve another, and read a refusal where the human is looking.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { chromium, type BrowserContext, type Page } from 'playwright-core';
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
    await expect.poll(() => page.locator('#connection').textContent()).toBe('Live updates: connected.');
    const rendered = item(rollback);
    expect(await rendered.locator('h3.sentence').textContent()).toBe(
      'Roll back Deployment shop/checkout from revision 7 (checkout:2.4.1) to revision 6 (checkout:2.4.0)',
    );
    expect(await rendered.locator('dl.facts').textContent()).toContain('Requesteragent, ');
    expect(await rendered.locator('ul.changes').textContent()).toMatch(/checkout:2\.4\.1.*checkout:2\.4\.0/);
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
    await item(scale).locator('button.allow').click();
    await expect.poll(() => item(scale).count()).toBe(0);
    await expect.poll(() => page.locator('#pending-empty').isVisible()).toBe(true);
    expect((await s.api(s.tokens.alice, 'GET', `/approvals/${scale}`)).body).toMatchObject({
      status: 'approved',
      decision: { by: 'local' },
    });
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
});
