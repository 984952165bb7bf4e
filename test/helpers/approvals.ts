/**
 * Approval request fixtures: one pending request per remediation tool, with dry-run previews shaped
 * like the remediation tools' (`summary`, `changes`, `warnings`, `effect`, `text`).
 */
import type { ApprovalPreview, ApprovalRequest } from '../../server/gate/approval-request.ts';
import { ChangeSchema, WarningSchema, type Change, type Warning } from '../../tools/remediate/index.ts';

export const FIXTURE_NOW = new Date('2025-01-31T02:13:20.000Z');

const base: ApprovalRequest = {
  id: 'apr_0123456789abcdef',
  status: 'pending',
  requester: 'investigator',
  created_by: 'investigator',
  cluster: { context: 'kind-sentinel', server: 'https://127.0.0.1:6443' },
  tool: 'rollback_deployment',
  risk: 'destructive',
  arguments: { namespace: 'shop', name: 'checkout', to_revision: 6 },
  requested_arguments: { namespace: 'shop', name: 'checkout' },
  reason: 'checkout returns 502 since 02:10',
  policy: {
    rule: 'prod-destructive',
    rules: ['prod-destructive'],
    reason: 'Destructive changes in shop need a human.',
    validity: 'once',
    approvers: ['role:approver'],
  },
  preview: null,
  created_at: '2025-01-31T02:10:00.000Z',
  expires_at: '2025-01-31T02:40:00.000Z',
  decision: null,
  grant: null,
  executions: [],
};

function preview(summary: string, changes: unknown[], warnings: unknown[] = []): ApprovalPreview {
  return { summary, changes, warnings, effect: { summary }, text: `${summary}\n(dry run: nothing changed)` };
}

const change = (fields: Omit<Change, 'text'>, text: string): Change =>
  ChangeSchema.parse({ ...fields, text });
const warning = (kind: Warning['kind'], message: string): Warning => WarningSchema.parse({ kind, message });

/**
 * A pending request for each remediation tool, with a preview shaped like that tool's dry run
 * (`Change` and `Warning` items validated by the tools' own schemas).
 */
export const FIXTURES = {
  rollback_deployment: {
    ...base,
    preview: preview(
      'Roll back Deployment shop/checkout from revision 7 (checkout:2.4.1) to revision 6 (checkout:2.4.0)',
      [
        change(
          { kind: 'image', container: 'checkout', from: 'checkout:2.4.1', to: 'checkout:2.4.0' },
          'container checkout: image checkout:2.4.1 → checkout:2.4.0',
        ),
        change(
          { kind: 'env', container: 'checkout', key: 'FEATURE_FLAGS', from: 'new-cart', to: null },
          'container checkout: env FEATURE_FLAGS new-cart → (none)',
        ),
        // A tool that forgot to redact: the renderer still must not show the values.
        change(
          { kind: 'env', container: 'checkout', key: 'DB_PASSWORD', from: 'hunter2', to: 'swordfish' },
          'container checkout: env DB_PASSWORD hunter2 → swordfish',
        ),
        change(
          { kind: 'resources', container: 'checkout', key: 'limits.memory', from: '512Mi', to: '256Mi' },
          'container checkout: limits.memory 512Mi → 256Mi',
        ),
      ],
      [
        warning(
          'argo_cd',
          'Deployment shop/checkout carries the Argo CD tracking label app.kubernetes.io/instance: Argo CD may undo a direct change on its next sync.',
        ),
      ],
    ),
  },
  restart_service: {
    ...base,
    id: 'apr_1111111111111111',
    tool: 'restart_service',
    arguments: { namespace: 'shop', name: 'checkout' },
    requested_arguments: { namespace: 'shop', name: 'checkout' },
    preview: preview('Restart Deployment shop/checkout (rolling restart of 3 Pods)', [
      change(
        {
          kind: 'template_annotation',
          key: 'kubectl.kubernetes.io/restartedAt',
          from: null,
          to: '2025-01-31T02:13:00Z',
        },
        'pod template annotation kubectl.kubernetes.io/restartedAt: (none) → 2025-01-31T02:13:00Z',
      ),
    ]),
  },
  scale_deployment: {
    ...base,
    id: 'apr_2222222222222222',
    tool: 'scale_deployment',
    arguments: { namespace: 'shop', name: 'checkout', replicas: 0 },
    requested_arguments: { namespace: 'shop', name: 'checkout', replicas: 0 },
    preview: preview(
      'Scale Deployment shop/checkout from 3 to 0 replicas',
      [change({ kind: 'replicas', from: 3, to: 0 }, 'spec.replicas: 3 → 0')],
      [
        warning('scale_to_zero', 'Scaling to 0 removes every Pod of shop/checkout: it will serve nothing.'),
        warning(
          'hpa',
          'HorizontalPodAutoscaler shop/checkout targets Deployment shop/checkout and sets its replica count itself.',
        ),
      ],
    ),
  },
  pause_rollout: {
    ...base,
    id: 'apr_3333333333333333',
    tool: 'pause_rollout',
    risk: 'write',
    arguments: { namespace: 'shop', name: 'checkout' },
    requested_arguments: { namespace: 'shop', name: 'checkout' },
    preview: preview('Pause rollouts of Deployment shop/checkout at revision 7 (checkout=checkout:2.4.1)', [
      change({ kind: 'paused', from: false, to: true }, 'spec.paused: false → true'),
    ]),
  },
  resume_rollout: {
    ...base,
    id: 'apr_4444444444444444',
    tool: 'resume_rollout',
    risk: 'write',
    arguments: { namespace: 'shop', name: 'checkout' },
    requested_arguments: { namespace: 'shop', name: 'checkout' },
    preview: preview('Resume rollouts of Deployment shop/checkout', [
      change({ kind: 'paused', from: true, to: false }, 'spec.paused: true → false'),
    ]),
  },
} satisfies Record<string, ApprovalRequest>;

/** A copy of the rollback fixture with `overrides` applied. */
export function approvalFixture(overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return structuredClone({ ...FIXTURES.rollback_deployment, ...overrides });
}
