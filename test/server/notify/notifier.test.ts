import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import nock from 'nock';
import pino from 'pino';
import type { IdentityRecord } from '../../../server/identity-store.ts';
import { createMetrics } from '../../../server/metrics/index.ts';
import { approvalMessage, createNotifier, routeNotification } from '../../../server/notify/index.ts';
import { approvalFixture, FIXTURE_NOW, FIXTURES } from '../../helpers/approvals.ts';

const identity = (name: string, roles: IdentityRecord['roles'], webhook?: string): IdentityRecord => ({
  name,
  roles,
  token_sha256: '0'.repeat(64),
  created_at: '2025-01-01T00:00:00.000Z',
  ...(webhook && { webhook }),
});

const HOOKS = 'https://hooks.example.test';

describe('routeNotification', () => {
  const request = {
    requester: 'investigator',
    policy: { ...FIXTURES.rollback_deployment.policy, approvers: ['role:approver', 'carol'] },
  };

  it('notifies listed approvers (by role and by name) with a webhook, never the requester', () => {
    const route = routeNotification(request, [
      identity('alice', ['approver'], `${HOOKS}/alice`),
      identity('bob', ['approver']),
      identity('carol', ['caller'], `${HOOKS}/carol`),
      identity('investigator', ['caller', 'approver'], `${HOOKS}/investigator`),
      identity('root', ['admin'], `${HOOKS}/admin`),
      identity('dave', ['approver'], `${HOOKS}/alice`),
    ]);
    expect(route).toEqual({
      urls: [`${HOOKS}/alice`, `${HOOKS}/carol`],
      recipients: ['alice', 'carol', 'dave'],
      fallback: false,
    });
  });

  it('falls back to the admins when no listed approver has a webhook', () => {
    const route = routeNotification(request, [
      identity('bob', ['approver']),
      identity('root', ['admin'], `${HOOKS}/admin`),
    ]);
    expect(route).toEqual({ urls: [`${HOOKS}/admin`], recipients: ['root'], fallback: true });
    expect(routeNotification(request, [])).toEqual({ urls: [], recipients: [], fallback: true });
  });
});

describe('approvalMessage', () => {
  it('is a Slack message with the rendered sentence, facts and a link to the page', () => {
    const message = approvalMessage(FIXTURES.rollback_deployment, 'http://127.0.0.1:7070/ui/approvals', {
      now: FIXTURE_NOW,
    });
    expect(message.text).toBe(
      'Approval needed: Roll back Deployment shop/checkout from revision 7 (checkout:2.4.1) to revision 6 (checkout:2.4.0) ' +
        '(requested by investigator, context kind-sentinel, API server https://127.0.0.1:6443). ' +
        'Review: http://127.0.0.1:7070/ui/approvals#apr_0123456789abcdef',
    );
    expect(message.blocks[0]).toEqual({
      type: 'header',
      text: { type: 'plain_text', text: 'Approval needed' },
    });
    expect(message.blocks[1]).toEqual({
      type: 'section',
      text: {
        type: 'mrkdwn',
        text: '*Roll back Deployment shop/checkout from revision 7 (checkout:2.4.1) to revision 6 (checkout:2.4.0)*',
      },
    });
    const json = JSON.stringify(message);
    expect(json).toContain('*Changes*\\n• image container checkout: checkout:2.4.1 → checkout:2.4.0');
    expect(json).toContain('env container checkout DB_PASSWORD: [REDACTED] → [REDACTED]');
    expect(json).not.toContain('hunter2');
    expect(message.blocks).toContainEqual({
      type: 'actions',
      elements: [
        {
          type: 'button',
          text: { type: 'plain_text', text: 'Review in Sentinel' },
          url: 'http://127.0.0.1:7070/ui/approvals#apr_0123456789abcdef',
          action_id: 'sentinel_review',
        },
      ],
    });
  });

  it('escapes Slack markup from workload data and falls back to the CLI without a page URL', () => {
    const request = approvalFixture({
      preview: {
        summary: 'Roll back <!channel> <https://evil.test|click> & co',
        changes: [],
        warnings: [],
        effect: null,
        text: '',
      },
    });
    const message = approvalMessage(request, undefined, { now: FIXTURE_NOW });
    expect(message.text).toContain('Roll back &lt;!channel&gt; &lt;https://evil.test|click&gt; &amp; co');
    expect(message.text).toMatch(/Review: sentinel approvals show apr_0123456789abcdef$/);
    expect(JSON.stringify(message)).not.toContain('<!channel>');
    expect(message.blocks.some((block) => block.type === 'actions')).toBe(false);
  });
});

describe('notifier', () => {
  beforeEach(() => nock.disableNetConnect());
  afterEach(() => {
    nock.cleanAll();
    nock.enableNetConnect();
  });

  function setup(identities: IdentityRecord[], timeoutMs = 500) {
    const metrics = createMetrics({ processMetrics: false });
    const notifier = createNotifier({
      identities: { list: () => identities },
      pageUrl: () => 'http://127.0.0.1:7070/ui/approvals',
      metrics,
      logger: pino({ level: 'silent' }),
      retries: 2,
      minBackoffMs: 1,
      timeoutMs,
    });
    return { metrics, notifier };
  }
  const value = async (
    metrics: ReturnType<typeof createMetrics>,
    name: string,
    labels: Record<string, string>,
  ) => {
    const metric = (await metrics.registry.getMetricsAsJSON()).find((m) => m.name === name);
    return (
      metric?.values.find((v) => Object.entries(labels).every(([k, l]) => v.labels[k] === l))?.value ?? 0
    );
  };

  it('POSTs the message to the approvers’ webhook on a new request, and only then', async () => {
    const { metrics, notifier } = setup([identity('alice', ['approver'], `${HOOKS}/services/T0/B0/secret`)]);
    const bodies: unknown[] = [];
    const scope = nock(HOOKS)
      .post('/services/T0/B0/secret', (body) => (bodies.push(body), true))
      .matchHeader('content-type', 'application/json')
      .reply(200, 'ok');
    const request = FIXTURES.rollback_deployment;
    notifier.listener({ type: 'approval_reused', request });
    notifier.listener({ type: 'approval_decided', request: { ...request, status: 'denied' } });
    notifier.listener({ type: 'approval_created', request });
    await notifier.idle();
    scope.done();
    expect(bodies).toHaveLength(1);
    expect((bodies[0] as { text: string }).text).toMatch(
      /^Approval needed: Roll back Deployment shop\/checkout from revision 7/,
    );
    expect(await value(metrics, 'sentinel_webhook_deliveries_total', { outcome: 'delivered' })).toBe(1);
    expect(
      await value(metrics, 'sentinel_approval_fallback_to_admin_total', { tool: 'rollback_deployment' }),
    ).toBe(0);
  });

  it('routes to the admin webhook and counts the fallback when no approver has one', async () => {
    const { metrics, notifier } = setup([
      identity('bob', ['approver']),
      identity('root', ['admin'], `${HOOKS}/admin`),
    ]);
    const scope = nock(HOOKS).post('/admin').reply(200);
    notifier.listener({ type: 'approval_created', request: FIXTURES.scale_deployment });
    await notifier.idle();
    scope.done();
    expect(
      await value(metrics, 'sentinel_approval_fallback_to_admin_total', { tool: 'scale_deployment' }),
    ).toBe(1);
  });

  it('retries 5xx and network errors, then delivers', async () => {
    const { metrics, notifier } = setup([identity('alice', ['approver'], `${HOOKS}/a`)]);
    const scope = nock(HOOKS)
      .post('/a')
      .reply(503)
      .post('/a')
      .replyWithError('connection reset')
      .post('/a')
      .reply(200);
    notifier.listener({ type: 'approval_created', request: FIXTURES.restart_service });
    await notifier.idle();
    scope.done();
    expect(await value(metrics, 'sentinel_webhook_deliveries_total', { outcome: 'delivered' })).toBe(1);
  });

  it('gives up after the last retry, and at once on a 4xx, without throwing', async () => {
    const { metrics, notifier } = setup([
      identity('alice', ['approver'], `${HOOKS}/down`),
      identity('carol', ['approver'], `${HOOKS}/gone`),
    ]);
    const down = nock(HOOKS).post('/down').times(3).reply(500);
    const gone = nock(HOOKS).post('/gone').once().reply(404);
    notifier.listener({ type: 'approval_created', request: FIXTURES.pause_rollout });
    await notifier.idle();
    down.done();
    gone.done();
    expect(await value(metrics, 'sentinel_webhook_deliveries_total', { outcome: 'failed' })).toBe(2);
  });

  it('bounds each attempt with a timeout', async () => {
    const { metrics, notifier } = setup([identity('alice', ['approver'], `${HOOKS}/slow`)], 50);
    // Every attempt would succeed after 1 s: only the 50 ms timeout makes the delivery fail.
    const scope = nock(HOOKS).post('/slow').times(3).delay(1000).reply(200);
    notifier.listener({ type: 'approval_created', request: FIXTURES.resume_rollout });
    await notifier.idle();
    scope.done();
    expect(await value(metrics, 'sentinel_webhook_deliveries_total', { outcome: 'failed' })).toBe(1);
  });
});
