import { describe, expect, it } from 'vitest';
import {
  approvalView,
  describeChange,
  describeWarning,
  renderApprovalHtml,
  renderApprovalLine,
  renderApprovalTable,
  renderApprovalText,
} from '../../../server/render/index.ts';
import { approvalFixture, FIXTURE_NOW, FIXTURES } from '../../helpers/approvals.ts';

const now = FIXTURE_NOW;

describe('approval renderer', () => {
  it('renders a pending rollback as one sentence plus the facts a human judges', () => {
    expect(renderApprovalText(FIXTURES.rollback_deployment, { now })).toBe(
      [
        'Roll back Deployment shop/checkout from revision 7 (checkout:2.4.1) to revision 6 (checkout:2.4.0)',
        'Request:    apr_0123456789abcdef (pending, expires in 26m)',
        'Cluster:    context kind-sentinel, API server https://127.0.0.1:6443',
        'Requester:  investigator, 3m20s ago: "checkout returns 502 since 02:10"',
        'Policy:     rule prod-destructive: Destructive changes in shop need a human. (approvers: role:approver; at most once)',
        'Warnings:',
        '  - argo_cd: Deployment shop/checkout carries the Argo CD tracking label app.kubernetes.io/instance: Argo CD may undo a direct change on its next sync.',
        'Changes:',
        '  - image container checkout: checkout:2.4.1 → checkout:2.4.0',
        '  - env container checkout FEATURE_FLAGS: new-cart → (none)',
        '  - env container checkout DB_PASSWORD: [REDACTED] → [REDACTED]',
        '  - resources container checkout limits.memory: 512Mi → 256Mi',
        'Call:       rollback_deployment name=checkout namespace=shop to_revision=6',
      ].join('\n'),
    );
  });

  it.each([
    [
      'restart_service',
      'Restart Deployment shop/checkout (rolling restart of 3 Pods)',
      ['template_annotation kubectl.kubernetes.io/restartedAt: (none) → 2025-01-31T02:13:00Z'],
      [],
    ],
    [
      'scale_deployment',
      'Scale Deployment shop/checkout from 3 to 0 replicas',
      ['replicas: 3 → 0'],
      [
        'scale_to_zero: Scaling to 0 removes every Pod of shop/checkout: it will serve nothing.',
        'hpa: HorizontalPodAutoscaler shop/checkout targets Deployment shop/checkout and sets its replica count itself.',
      ],
    ],
    [
      'pause_rollout',
      'Pause rollouts of Deployment shop/checkout at revision 7 (checkout=checkout:2.4.1)',
      ['paused: false → true'],
      [],
    ],
    ['resume_rollout', 'Resume rollouts of Deployment shop/checkout', ['paused: true → false'], []],
  ] as const)('renders %s with its preview', (tool, sentence, changes, warnings) => {
    const view = approvalView(FIXTURES[tool], { now });
    expect(view.sentence).toBe(sentence);
    expect(view.changes).toEqual(changes);
    expect(view.warnings).toEqual(warnings);
    expect(view.call).toBe(
      `${tool} name=checkout namespace=shop${tool === 'scale_deployment' ? ' replicas=0' : ''}`,
    );
  });

  it('builds the sentence from the arguments when there is no preview', () => {
    const view = approvalView(approvalFixture({ preview: null }), { now });
    expect(view.sentence).toBe('Roll back Deployment shop/checkout to revision 6');
    expect(view.changes).toEqual([]);
  });

  it('redacts secrets everywhere: summary, reason, changes, warnings, arguments', () => {
    const request = approvalFixture({
      reason: 'token=abcdef123456 leaked, rotate',
      arguments: { namespace: 'shop', name: 'checkout', api_key: 'AKIAABCDEFGHIJKLMNOP' },
      preview: {
        summary: 'Roll back using Authorization: Bearer abcdefghijklmnop1234',
        changes: [
          { kind: 'env', container: 'app', name: 'STRIPE_SECRET_KEY', from: 'sk_live_1', to: 'sk_live_2' },
          { kind: 'env', container: 'app', name: 'DATABASE_URL', from: 'postgres://u:pw123@db/x', to: null },
          'set password=hunter2 on container app',
        ],
        warnings: [{ message: 'ghp_abcdefghijklmnopqrstuvwxyz0123456789 seen in annotation' }],
        effect: null,
        text: '',
      },
    });
    const text = renderApprovalText(request, { now });
    const html = renderApprovalHtml(request, { now });
    for (const secret of [
      'abcdef123456',
      'AKIAABCDEFGHIJKLMNOP',
      'abcdefghijklmnop1234',
      'sk_live',
      'pw123',
      'hunter2',
      'ghp_',
    ]) {
      expect(text).not.toContain(secret);
      expect(html).not.toContain(secret);
    }
    expect(text).toContain('env container app STRIPE_SECRET_KEY: [REDACTED] → [REDACTED]');
    expect(text).toContain('DATABASE_URL: postgres://u:[REDACTED]@db/x → (none)');
    expect(text).toContain('Requester:  investigator, 3m20s ago: "token=[REDACTED] leaked, rotate"');
  });

  it('makes control and bidi characters visible and keeps every line on one line', () => {
    const request = approvalFixture({
      requester: 'eve\u001b[2J',
      preview: {
        summary: 'Roll back\nDeployment \u202eshop/checkout',
        changes: ['line one\r\nline two'],
        warnings: [],
        effect: null,
        text: '',
      },
    });
    const view = approvalView(request, { now });
    expect(view.sentence).toBe('Roll back Deployment \\u202eshop/checkout');
    expect(view.requester).toBe('eve\\x1b[2J');
    expect(view.changes).toEqual(['line one line two']);
  });

  it('bounds long change lists with an explicit "more" line', () => {
    const changes = Array.from({ length: 35 }, (_, i) => `change ${i}`);
    const view = approvalView(
      approvalFixture({ preview: { summary: 's', changes, warnings: [], effect: null, text: '' } }),
      { now },
    );
    expect(view.changes).toHaveLength(31);
    expect(view.changes.at(-1)).toBe('… 5 more changes not shown');
  });

  it('shows decisions, withdrawal, expiry and executions', () => {
    const denied = approvalView(
      approvalFixture({
        status: 'denied',
        decision: {
          decision: 'deny',
          by: 'alice',
          at: '2025-01-31T02:12:20.000Z',
          reason: 'wrong revision',
          admin_fallback: false,
        },
      }),
      { now },
    );
    expect(denied.decision).toBe('denied by alice 60s ago: wrong revision');
    expect(denied.expiresIn).toBeNull();

    const approved = approvalView(
      approvalFixture({
        status: 'executed',
        decision: {
          decision: 'allow',
          by: 'root',
          at: '2025-01-31T02:11:20.000Z',
          reason: null,
          admin_fallback: true,
        },
        grant: { validity: { window: '15m' }, expires_at: '2025-01-31T02:26:20.000Z' },
        executions: [
          {
            id: 'exe_0000000000000001',
            status: 'succeeded',
            arguments: {},
            started_at: '2025-01-31T02:13:00.000Z',
            finished_at: '2025-01-31T02:13:01.000Z',
            outcome: 'Rolled back shop/checkout to revision 6',
          },
        ],
      }),
      { now },
    );
    expect(approved.decision).toBe('approved by root as admin fallback 2m ago (a window of 15m)');
    expect(approved.executions).toEqual([
      'exe_0000000000000001 succeeded 20s ago: Rolled back shop/checkout to revision 6',
    ]);

    expect(approvalView(approvalFixture({ status: 'withdrawn' }), { now }).decision).toBe(
      'withdrawn by investigator',
    );
    expect(approvalView(approvalFixture(), { now: new Date('2025-01-31T03:00:00Z') }).expiresIn).toBe(
      'expired',
    );
    expect(approvalView(approvalFixture({ cluster: null }), { now }).cluster).toBe('no cluster configured');
  });

  it("shows a recorded grant scope's time as a <time> element on the page, so the viewer sees it in their zone", () => {
    const html = renderApprovalHtml(
      approvalFixture({
        status: 'approved',
        grant: {
          validity: 'once',
          expires_at: '2025-01-31T02:26:20.000Z',
          scope: {
            kind: 'call',
            requester: 'investigator',
            tool: 'rollback_deployment',
            cluster: null,
            rules: ['prod-destructive'],
            description:
              'exactly this rollback_deployment call by investigator, once, if retried before 2025-01-31T02:26:20.000Z',
          },
        },
      }),
      { now },
    );
    expect(html).toContain(
      '<dt>Grant</dt><dd>exactly this rollback_deployment call by investigator, once, if retried before <time datetime="2025-01-31T02:26:20.000Z" title="2025-01-31T02:26:20.000Z (UTC)">2025-01-31T02:26:20.000Z</time></dd>',
    );
  });

  it('renders one line per request for lists', () => {
    expect(renderApprovalLine(FIXTURES.scale_deployment, { now })).toBe(
      'apr_2222222222222222  pending    3m20s   investigator  Scale Deployment shop/checkout from 3 to 0 replicas',
    );
  });

  it('renders a list as a table with headers, aligned; styling after padding', () => {
    const table = renderApprovalTable([FIXTURES.scale_deployment, approvalFixture({ status: 'denied' })], {
      now,
      style: { status: (_status, text) => `<${text}>` },
    });
    const [header, first, second] = table.split('\n');
    expect(header).toBe(
      'ID                    STATUS   TOOL                 TARGET         REQUESTER     AGE    ACTION',
    );
    expect(first).toBe(
      'apr_2222222222222222  <pending>  scale_deployment     shop/checkout  investigator  3m20s  Scale Deployment shop/checkout from 3 to 0 replicas',
    );
    expect(second).toMatch(
      /^apr_\w+ {2}<denied > {2}rollback_deployment {2}shop\/checkout {2}investigator {2}/,
    );
    expect(renderApprovalTable([], { now })).toBe('ID  STATUS  TOOL  TARGET  REQUESTER  AGE  ACTION');
  });

  it('escapes every value in the HTML form', () => {
    const request = approvalFixture({
      requester: '<img src=x onerror=alert(1)>',
      preview: {
        summary: 'Roll back "a" & <b>b</b>',
        changes: ['<script>x</script>'],
        warnings: [],
        effect: null,
        text: '',
      },
    });
    const html = renderApprovalHtml(request, { now });
    expect(html).not.toMatch(/<img|<script|<b>/);
    expect(html).toContain(
      '<h3 class="sentence" id="sentence-apr_0123456789abcdef">Roll back &quot;a&quot; &amp; &lt;b&gt;b&lt;/b&gt;</h3>',
    );
    expect(html).toContain('<li>&lt;script&gt;x&lt;/script&gt;</li>');
    expect(html).toContain('data-status="pending"');
  });
});

describe('describeChange / describeWarning', () => {
  it('formats the shapes tools report and falls back to JSON', () => {
    expect(describeChange({ summary: 'image a → b' })).toBe('image a → b');
    expect(describeChange({ kind: 'env', container: 'app', key: 'API_TOKEN', from: 'x1', to: 'y2' })).toBe(
      'env container app API_TOKEN: [REDACTED] → [REDACTED]',
    );
    expect(describeChange({ before: 1, after: 2, path: '/spec/replicas' })).toBe('/spec/replicas: 1 → 2');
    expect(describeChange({ weird: true })).toBe('{"weird":true}');
    expect(describeChange(42)).toBe('42');
    // The remediation tools' Change names its env var in `key`: shown, and its values redacted.
    expect(
      describeChange({
        kind: 'env',
        container: 'app',
        key: 'DB_PASSWORD',
        from: 'hunter2',
        to: 'swordfish',
        text: 'env',
      }),
    ).toBe('env container app DB_PASSWORD: [REDACTED] → [REDACTED]');
    expect(describeWarning({ code: 'x' })).toBe('{"code":"x"}');
    expect(describeWarning({ kind: 'flux', message: 'owned by Flux' })).toBe('flux: owned by Flux');
  });
});

describe('the harness call a request answers, and an upstream execution', () => {
  it('shows the harness reference and the upstream trust in text and HTML (escaped)', () => {
    const request = approvalFixture({
      client_ref: {
        harness_url: 'http://127.0.0.1:8000',
        session_id: 'sess<1>',
        turn_id: 'turn-2.local',
        tool_call_id: 'call_rollback_deployment_11',
      },
      upstream: {
        identity: 'trueforge',
        trusted_by: 'trust_upstream_approval',
        approved_at: FIXTURE_NOW.toISOString(),
      },
    });
    const text = renderApprovalText(request, { now: FIXTURE_NOW });
    expect(text).toContain(
      'Harness:    answers TrueForge session sess<1>, turn turn-2.local, tool call call_rollback_deployment_11 (http://127.0.0.1:8000)',
    );
    expect(text).toContain(
      `Upstream:   approved in the harness (verified allow at ${FIXTURE_NOW.toISOString()}); run on trueforge's trust_upstream_approval, without a Sentinel approver`,
    );
    const html = renderApprovalHtml(request, { now: FIXTURE_NOW });
    expect(html).toContain('<dt>Harness</dt><dd>answers TrueForge session sess&lt;1&gt;, turn turn-2.local');
    expect(html).toContain('<dt>Upstream</dt>');
    expect(renderApprovalText(approvalFixture(), { now: FIXTURE_NOW })).not.toContain('Harness:');
  });
});

describe('what the approver decides from: evidence, the template diff, where the call comes from', () => {
  const diff = [
    '--- current pod template',
    '+++ proposed pod template',
    '@@ -5,3 +5,3 @@',
    '   containers:',
    '-    - image: checkout:2.4.1',
    '+    - image: checkout:2.4.0',
  ].join('\n');
  const request = approvalFixture({
    preview: {
      ...FIXTURES.rollback_deployment.preview!,
      template_diff: diff,
      evidence: [
        { line: 'checkout-7f9c-abcde: CrashLoopBackOff, 14 restarts', call: 'list_pods namespace=shop' },
        { line: 'panic: DATABASE_URL token=ghp_abcdefghijklmnopqrstuvwxyz0123456789', call: 'get_pod_logs' },
      ],
      investigation: 'inv_0123456789abcdef',
    },
  });

  it('lists warnings first, then the evidence with its calls, the source, in text', () => {
    const text = renderApprovalText(request, { now });
    const lines = text.split('\n');
    expect(lines.indexOf('Warnings:')).toBeLessThan(lines.indexOf('Evidence:'));
    expect(lines.indexOf('Evidence:')).toBeLessThan(lines.indexOf('Changes:'));
    expect(text).toContain(
      '  - checkout-7f9c-abcde: CrashLoopBackOff, 14 restarts  (list_pods namespace=shop)',
    );
    // Evidence quotes cluster output: it passes the one redactor.
    expect(text).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
    expect(text).toContain('From:       inv_0123456789abcdef');
  });

  it('renders the warnings before the facts, the evidence, and the diff line by line (escaped)', () => {
    const html = renderApprovalHtml(request, { now });
    expect(html.indexOf('class="warnings"')).toBeLessThan(html.indexOf('class="facts"'));
    expect(html).toContain('Warnings: read before deciding');
    expect(html).toContain(
      '<li><span class="line">checkout-7f9c-abcde: CrashLoopBackOff, 14 restarts</span> <span class="source">from <code>list_pods namespace=shop</code></span></li>',
    );
    expect(html).toContain('<span class="del">-    - image: checkout:2.4.1</span>');
    expect(html).toContain('<span class="add">+    - image: checkout:2.4.0</span>');
    expect(html).toContain('<span class="hunk">@@ -5,3 +5,3 @@</span>');
    expect(html).toContain('<dt>From</dt><dd>inv_0123456789abcdef</dd>');
    expect(html).not.toContain('ghp_abcdefghijklmnopqrstuvwxyz0123456789');
  });

  it('escapes evidence and diff lines, and keeps each diff line one line', () => {
    const hostile = approvalFixture({
      preview: {
        ...FIXTURES.rollback_deployment.preview!,
        template_diff: '+ <script>alert(1)</script>\u202e',
        evidence: [{ line: '<img src=x onerror=alert(1)>', call: 'get_pod_logs\nforged line' }],
      },
    });
    const html = renderApprovalHtml(hostile, { now });
    expect(html).not.toMatch(/<script|<img/);
    expect(html).toContain('&lt;img src=x onerror=alert(1)&gt;');
    expect(approvalView(hostile, { now }).evidence[0]!.call).not.toContain('\n');
    expect(approvalView(hostile, { now }).templateDiff).not.toContain('\u202e');
  });

  it('shows none of it for a request without them', () => {
    const view = approvalView(FIXTURES.scale_deployment, { now });
    expect(view).toMatchObject({ evidence: [], templateDiff: null, investigation: null });
    expect(renderApprovalHtml(FIXTURES.scale_deployment, { now })).not.toMatch(/Evidence|class="diff"/);
  });
});
