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
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it, type TestContext } from 'vitest';
import { startSimulator, type Simulator } from '../../../deploy/sim/index.ts';
import { allTools } from '../../../tools/index.ts';
import { connectKube } from '../../../tools/kube/connect.ts';
import { PendingResultMetaSchema } from '../../../server/gate/index.ts';
import { createIdentityStore } from '../../../server/identity-store.ts';
import { connectClient, tempDataDir } from '../../helpers/server.ts';
import { describeWithTool } from '../../helpers/system-tools.ts';
import { startGateServer, type GateServer } from '../gate/fixtures/serve.ts';

const checkout = { namespace: 'shop', name: 'checkout' };

/** Chromium flags for a headless run on a shared CI machine (no sandbox, GPU or background traffic). */
const CHROMIUM_ARGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-quic',
  '--no-first-run',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
];

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
      await expect
        .poll(() => other.locator('#connection').textContent(), { timeout: 60_000 })
        .toBe('Live updates: connected.');

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

/** axe-core's browser bundle, evaluated in the page (DevTools evaluation is not subject to the page's CSP). */
const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve('axe-core/axe.min.js'), 'utf8');

/** Where the screenshots go (git-ignored); each is also attached to its test's output. */
const SCREENSHOTS = join(process.cwd(), 'test-results', 'approvals-page');

interface AxeViolation {
  id: string;
  impact: string | null;
  help: string;
  nodes: { target: unknown[] }[];
}

/** axe-core's violations of impact serious or critical on `page`, as `id: help (targets)` lines. */
async function seriousViolations(page: Page): Promise<string[]> {
  await page.evaluate(AXE_SOURCE);
  const violations = await page.evaluate(async () => {
    // Runs in the page: its globals, typed here by hand (the project has no DOM lib).
    const { axe, document } = globalThis as unknown as {
      axe: { run(context: unknown, options: unknown): Promise<{ violations: AxeViolation[] }> };
      document: unknown;
    };
    const results = await axe.run(document, { resultTypes: ['violations'] });
    return results.violations.map((v) => ({
      id: v.id,
      impact: v.impact,
      help: v.help,
      nodes: v.nodes.map((n) => ({ target: n.target })),
    }));
  });
  return violations
    .filter((v) => v.impact === 'serious' || v.impact === 'critical')
    .map((v) => `${v.id}: ${v.help} (${v.nodes.map((n) => JSON.stringify(n.target)).join(', ')})`);
}

/** A full-page screenshot under test-results/approvals-page/, attached to the running test. */
async function screenshot(page: Page, context: TestContext, name: string): Promise<void> {
  mkdirSync(SCREENSHOTS, { recursive: true });
  const path = join(SCREENSHOTS, `${name}.png`);
  await page.screenshot({ path, fullPage: true });
  await context.annotate(`screenshot: ${name}`, { path, contentType: 'image/png' });
}

/**
 * The page as a decision surface (issue 18), with the real remediation tools against the embedded
 * simulator: a rollback held with the investigator's evidence shows that evidence with its calls,
 * the pod template diff, the cluster, a live countdown and its status in words; it is approved by
 * keyboard (after typing the Deployment's name), executed by the retry, and then shows the
 * verification; a scale is denied with a reason. axe-core finds no serious violation at any step,
 * nor at 200 % zoom, where nothing overflows sideways.
 */
describeWithTool('chromium', 'approvals page as a decision surface (simulator, axe-core)', (chromiumPath) => {
  let sim: Simulator;
  let s: GateServer;
  let agent: Client;
  let browser: BrowserContext;
  let page: Page;
  let profile: string;
  const data = tempDataDir();
  const investigation = 'inv_0123456789abcdef';
  const evidence = [
    {
      line: 'checkout-6d4f9c: CrashLoopBackOff, 5 restarts',
      call: 'list_pods namespace=shop deployment=checkout',
    },
    {
      line: 'fatal: invalid configuration: payments.idempotencyKeyHeader is required (new in 2.4.1)',
      call: 'get_pod_logs namespace=shop pod=checkout-6d4f9c previous=true',
    },
  ];
  let rollback: string;
  let scale: string;

  beforeAll(async () => {
    const kubeconfig = join(data.dir, 'kubeconfig');
    sim = await startSimulator({ scenario: 'bad-image-rollout', timeScale: 0, kubeconfigPath: kubeconfig });
    s = await startGateServer({ kube: connectKube({ kubeconfig }), tools: allTools });
    agent = await connectClient(s.url, s.tokens.agent);
    profile = mkdtempSync(join(tmpdir(), 'sentinel-chromium-'));
    browser = await chromium.launchPersistentContext(profile, {
      executablePath: chromiumPath,
      headless: true,
      args: CHROMIUM_ARGS,
      viewport: { width: 1280, height: 900 },
    });
    page = browser.pages()[0] ?? (await browser.newPage());
  });
  afterAll(async () => {
    await browser?.close();
    await agent?.close();
    await s?.close();
    await sim?.close();
    if (profile) rmSync(profile, { recursive: true, force: true });
    data.cleanup();
  });

  const hold = async (name: string, args: Record<string, unknown>) =>
    PendingResultMetaSchema.parse((await agent.callTool({ name, arguments: args }))._meta)
      .approval_request_id;
  const pending = (id: string) => page.locator(`#pending > li[data-id="${id}"]`);
  const history = (id: string) => page.locator(`#history > li[data-id="${id}"]`);
  const connected = () =>
    expect
      .poll(() => page.locator('#connection').textContent(), { timeout: 60_000 })
      .toBe('Live updates: connected.');

  it('shows a pending rollback with its evidence, diff, cluster, countdown and status in words', async (context) => {
    rollback = await hold('rollback_deployment', { ...checkout, evidence, investigation });
    scale = await hold('scale_deployment', { ...checkout, replicas: 5 });
    await page.goto(/(http:\/\/127\.0\.0\.1:\d+\/ui\/login\?ticket=[\w-]+)/.exec(s.stderr.join(''))![1]!);
    await connected();
    const item = pending(rollback);
    expect(await item.locator('.status-label').textContent()).toBe('Pending: waiting for a decision');
    // The evidence, each line with the call that returned it.
    expect(await item.locator('ul.evidence > li').allTextContents()).toEqual(
      evidence.map((e) => `${e.line} from ${e.call}`),
    );
    expect(await item.locator('dl.facts').textContent()).toContain(`From${investigation}`);
    // The pod template diff, old → new, with the image lines marked removed and added.
    expect(await item.locator('pre.diff .file').allTextContents()).toEqual([
      '--- current pod template',
      '+++ proposed pod template',
    ]);
    const removed = await item.locator('pre.diff .del').allTextContents();
    const added = await item.locator('pre.diff .add').allTextContents();
    expect(removed.some((line) => /^-\s+image: \S+$/.test(line))).toBe(true);
    expect(added.some((line) => /^\+\s+image: \S+$/.test(line))).toBe(true);
    // Which cluster, and a filter listing it.
    const cluster = (await item.getAttribute('data-cluster'))!;
    expect(cluster).not.toBe('');
    expect(await item.locator('.cluster-label strong').textContent()).toBe(cluster);
    expect(await page.locator('#cluster-filter option').allTextContents()).toEqual(['All clusters', cluster]);
    // A live countdown, and the expiry in local time with the UTC value on hover.
    const countdown = item.locator('[data-countdown]');
    const first = await countdown.textContent();
    expect(first).toMatch(/^\(in \d+ min \d\d s\)$/);
    await expect.poll(() => countdown.textContent(), { timeout: 60_000 }).not.toBe(first);
    expect(await item.locator('.countdown time').getAttribute('title')).toMatch(
      /^\d{4}-\d\d-\d\dT.*Z \(UTC\)$/,
    );
    expect(await item.locator('.countdown time').textContent()).not.toMatch(/Z$/);

    expect(await seriousViolations(page)).toEqual([]);
    // The check can fail: an unnamed button is a critical violation.
    await page
      .locator('footer')
      .evaluate((footer) => footer.insertAdjacentHTML('beforeend', '<button id="unnamed"></button>'));
    expect(await seriousViolations(page)).toEqual([expect.stringMatching(/^button-name: .*#unnamed/)]);
    await page.locator('#unnamed').evaluate((button) => button.remove());
    await screenshot(page, context, '1-pending');
  });

  it('is readable at 200 % zoom: nothing wider than the window, still no serious axe violation', async (context) => {
    // 200 % zoom of a 1280-pixel window is a 640-CSS-pixel viewport at twice the pixel density.
    await page.setViewportSize({ width: 640, height: 900 });
    try {
      const overflow = await page.locator('html').evaluate((html) => html.scrollWidth - html.clientWidth);
      expect(overflow).toBeLessThanOrEqual(0);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, context, '2-pending-200-percent');
    } finally {
      await page.setViewportSize({ width: 1280, height: 900 });
    }
  });

  it('filters by cluster and back', async () => {
    const cluster = (await pending(rollback).getAttribute('data-cluster'))!;
    await page.locator('#cluster-filter').selectOption(cluster);
    expect(await pending(rollback).isVisible()).toBe(true);
    expect(await page.locator('#status').textContent()).toBe(`Showing cluster ${cluster}.`);
    await page.locator('#cluster-filter').selectOption('*');
    expect(await page.locator('#pending-count').textContent()).toBe('(2)');
  });

  it('approves the rollback by keyboard; the retry executes it; the page shows executed and the verification', async (context) => {
    // Every announcement the page makes, in order.
    await page.evaluate(`(() => {
      const status = document.getElementById('status');
      window.announced = [];
      new MutationObserver(() => window.announced.push(status.textContent)).observe(status, {
        childList: true,
        characterData: true,
        subtree: true,
      });
    })()`);
    // The live stream's snapshot (the request now in the history) reaches the page before the
    // approve POST's answer: what a busy server does (CI saw it). The human who decided must not be
    // told it was "decided elsewhere".
    const approveUrl = `**/ui/api/approvals/${rollback}/approve`;
    const answered = new Promise<void>((resolve, reject) => {
      void page.route(approveUrl, async (route) => {
        try {
          const response = await route.fetch();
          await expect.poll(() => history(rollback).count()).toBe(1);
          await route.fulfill({ response });
          resolve();
        } catch (error) {
          reject(error as Error);
        }
      });
    });
    await pending(rollback).locator('input[name="confirm"]').focus();
    await page.keyboard.type('checkout');
    await page.keyboard.press('Enter');
    await answered;
    await expect.poll(() => pending(rollback).count()).toBe(0);
    await page.unroute(approveUrl);
    expect(await page.locator('#status').textContent()).toBe(`${rollback} approved.`);
    expect(await page.evaluate('window.announced')).toEqual([`${rollback} approved.`]);
    await expect
      .poll(() => history(rollback).locator('.status-label').textContent())
      .toBe('Approved: waiting for the retry');
    await screenshot(page, context, '3-approved');

    const retried = await agent.callTool({ name: 'rollback_deployment', arguments: checkout });
    expect((retried._meta as { approval_status?: string }).approval_status).toBe('executed');
    // What the investigator records once the rollout settled (agent/investigator/store.ts).
    mkdirSync(join(s.dataDir, 'investigations'), { recursive: true });
    writeFileSync(
      join(s.dataDir, 'investigations', `${investigation}.json`),
      JSON.stringify({
        id: investigation,
        verification: {
          healthy: true,
          state: 'complete',
          message: 'rollout complete: 3 of 3 updated replicas are available',
          attempts: 1,
        },
      }),
    );
    await page.reload();
    await connected();
    const done = history(rollback);
    expect(await done.locator('.status-label').textContent()).toBe('Executed');
    expect(await done.locator('.verification').textContent()).toBe(
      `Verification healthy: rollout complete: 3 of 3 updated replicas are available (investigation ${investigation})`,
    );
    expect(await done.locator('ul.executions').textContent()).toMatch(/succeeded/);
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, context, '4-executed');
  });

  it('denies the scale with a reason, by keyboard', async (context) => {
    await pending(scale).locator('button.deny').focus();
    await page.keyboard.press('Enter');
    await page.keyboard.type('Scaling does not fix a crash loop');
    await page.keyboard.press('Tab');
    await page.keyboard.press('Enter');
    await expect.poll(() => pending(scale).count()).toBe(0);
    await expect.poll(() => history(scale).locator('.status-label').textContent()).toBe('Denied');
    expect(await history(scale).locator('dl.facts').textContent()).toContain(
      ': Scaling does not fix a crash loop',
    );
    expect(await history(scale).locator('.verification').count()).toBe(0);
    // Executed and denied look different in words, not only in colour.
    expect(await page.locator('#history .status-label').allTextContents()).toEqual(
      expect.arrayContaining(['Executed', 'Denied']),
    );
    expect((await s.api(s.tokens.alice, 'GET', `/approvals/${scale}`)).body.status).toBe('denied');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, context, '5-denied');
  });
});
