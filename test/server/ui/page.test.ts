import { describe, expect, it } from 'vitest';
import { approvalsPage, loginPage, pageItem } from '../../../server/ui/page.ts';
import { approvalFixture, FIXTURES, FIXTURE_NOW } from '../../helpers/approvals.ts';

const decision = {
  decision: 'allow' as const,
  by: 'alice',
  at: '2025-01-31T02:12:00.000Z',
  reason: null,
  admin_fallback: false,
};

describe('approvals page HTML', () => {
  it('links its own icon on every page, so the browser never asks for /favicon.ico', () => {
    const link = '<link rel="icon" type="image/svg+xml" href="/ui/assets/favicon.svg">';
    expect(loginPage()).toContain(link);
    expect(approvalsPage({ identity: 'alice', csrf: 'c', snapshot: { pending: [], history: [] } })).toContain(
      link,
    );
  });

  it('puts a typed confirmation, stating the effect, before Allow on a scale to 0', () => {
    const { html } = pageItem(FIXTURES.scale_deployment, FIXTURE_NOW);
    expect(html).toContain(
      '<label for="confirm-apr_2222222222222222">Type <strong>checkout</strong> to allow: Scaling Deployment shop/checkout to 0 replicas stops every Pod; the service is unavailable until it is scaled back up.</label>',
    );
    expect(html).toMatch(
      /<input id="confirm-apr_2222222222222222" name="confirm" [^>]*data-expected="checkout">/,
    );
    expect(html.indexOf('name="confirm"')).toBeLessThan(html.indexOf('data-action="allow"'));
  });

  it('asks no confirmation for a write tool, nor on a decided request', () => {
    expect(pageItem(FIXTURES.pause_rollout, FIXTURE_NOW).html).not.toContain('name="confirm"');
    const denied = approvalFixture({
      status: 'denied',
      decision: { ...decision, decision: 'deny', reason: 'no' },
    });
    expect(pageItem(denied, FIXTURE_NOW).html).not.toContain('name="confirm"');
  });

  it('shows, before the window choice, what a window would cover and an example call beyond this one', () => {
    const pending = approvalFixture({
      tool: 'restart_service',
      arguments: { namespace: 'shop', name: 'checkout' },
      policy: {
        rule: 'shop-window',
        rules: ['shop-window'],
        reason: 'Restarts in shop.',
        validity: { window: '15m' },
        approvers: ['role:approver'],
        window: {
          conditions: [{ rule: 'shop-window', tool: 'restart_service', args: { namespace: 'shop' } }],
          free_arguments: ['name'],
          example: { arguments: { namespace: 'shop', name: 'other-checkout' }, differs_in: ['name'] },
        },
      },
    });
    const { html } = pageItem(pending, FIXTURE_NOW);
    const coverage =
      'would cover any restart_service call by investigator on context kind-sentinel (https://127.0.0.1:6443) that matches policy rule shop-window (tool restart_service; namespace = shop) and no stricter rule, with any value of name; for example restart_service name=other-checkout namespace=shop, which is not the call above';
    expect(html).toContain(coverage);
    // As a <time>, which the page's script shows in the viewer's zone.
    expect(html).toContain(
      '(until <time datetime="2025-01-31T02:28:20.000Z" title="2025-01-31T02:28:20.000Z (UTC)">2025-01-31T02:28:20.000Z</time> if approved now)',
    );
    expect(html.indexOf(coverage)).toBeLessThan(html.indexOf('<select id="validity-'));
  });

  it('shows what a window grant covers and until when', () => {
    const approved = approvalFixture({
      status: 'approved',
      tool: 'scale_deployment',
      arguments: { namespace: 'shop', name: 'checkout', replicas: 5 },
      policy: { ...FIXTURES.scale_deployment.policy, rules: ['shop-scale', 'business-hours'] },
      decision,
      grant: { validity: { window: '15m' }, expires_at: '2025-01-31T02:27:00.000Z' },
    });
    expect(pageItem(approved, FIXTURE_NOW).html).toContain(
      '<p class="grant"><strong>Grant covers</strong> every scale_deployment call by investigator on context kind-sentinel, API server https://127.0.0.1:6443 that matches policy rules shop-scale, business-hours, for 15m, until <time datetime="2025-01-31T02:27:00.000Z" title="2025-01-31T02:27:00.000Z (UTC)">2025-01-31T02:27:00.000Z</time> (13m left)</p>',
    );
    const ended = pageItem({ ...approved, status: 'expired' }, new Date('2025-01-31T03:00:00.000Z')).html;
    expect(ended).toContain(
      'for 15m, until <time datetime="2025-01-31T02:27:00.000Z" title="2025-01-31T02:27:00.000Z (UTC)">2025-01-31T02:27:00.000Z</time></p>',
    );
  });

  it('shows a once grant as this exact call, and no grant line without a grant', () => {
    const approved = approvalFixture({
      status: 'approved',
      decision,
      grant: { validity: 'once', expires_at: '2025-01-31T02:42:00.000Z' },
    });
    expect(pageItem(approved, FIXTURE_NOW).html).toContain(
      '<strong>Grant covers</strong> this exact call, once, until <time datetime="2025-01-31T02:42:00.000Z" title="2025-01-31T02:42:00.000Z (UTC)">2025-01-31T02:42:00.000Z</time> (28m left)</p>',
    );
    expect(pageItem(FIXTURES.rollback_deployment, FIXTURE_NOW).html).not.toContain('class="grant"');
  });

  it('leaves a grant that records its own scope to the shared renderer', () => {
    const grant = { validity: { window: '15m' }, expires_at: '2025-01-31T02:27:00.000Z' } as const;
    const scope = { kind: 'rules', description: 'any scale_deployment call by agent …' };
    const request = approvalFixture({
      status: 'approved',
      decision,
      grant: { ...grant, scope } as typeof grant,
    });
    expect(pageItem(request, FIXTURE_NOW).html).not.toContain('class="grant"');
  });

  it('labels every status in words, distinctly, and counts a pending request down to its expiry', () => {
    const labels = new Set<string>();
    for (const status of ['pending', 'approved', 'executed', 'denied', 'expired', 'cancelled'] as const) {
      const { html } = pageItem(approvalFixture({ status }), FIXTURE_NOW);
      const label = /<p class="status-label status-([a-z]+)"><span>([^<]+)<\/span><\/p>/.exec(html);
      expect(label?.[1]).toBe(status);
      labels.add(label![2]!);
    }
    expect(labels.size).toBe(6);
    const pending = approvalFixture({ status: 'pending' });
    expect(pageItem(pending, FIXTURE_NOW).html).toContain(
      `<p class="countdown">Expires <time datetime="${pending.expires_at}" title="${pending.expires_at} (UTC)">${pending.expires_at}</time> <span data-countdown="${pending.expires_at}"></span></p>`,
    );
    expect(pageItem(approvalFixture({ status: 'denied' }), FIXTURE_NOW).html).not.toContain('countdown');
  });
});
