/**
 * Approval request fixtures: one pending request per remediation tool, with dry-run previews shaped
 * like the remediation tools' contract (`summary`, `changes`, `warnings`, `effect`, `text`).
 */
import type { ApprovalPreview, ApprovalRequest } from '../../server/gate/approval-request.ts';

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

/** A pending request for `tool` with a preview shaped like that tool's dry run. */
export const FIXTURES = {
  rollback_deployment: {
    ...base,
    preview: preview(
      'Roll back Deployment shop/checkout from revision 7 (checkout:2.4.1) to revision 6 (checkout:2.4.0)',
      [
        { kind: 'image', container: 'checkout', from: 'checkout:2.4.1', to: 'checkout:2.4.0' },
        { kind: 'env', container: 'checkout', name: 'FEATURE_FLAGS', from: 'new-cart', to: null },
        { kind: 'env', container: 'checkout', name: 'DB_PASSWORD', from: 'hunter2', to: 'swordfish' },
        { kind: 'resources', container: 'checkout', name: 'limits.memory', from: '512Mi', to: '256Mi' },
      ],
      [
        {
          code: 'gitops',
          message:
            'Deployment shop/checkout is managed by Argo CD (label app.kubernetes.io/instance); it may undo a direct change.',
        },
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
      {
        kind: 'annotation',
        name: 'kubectl.kubernetes.io/restartedAt',
        from: null,
        to: '2025-01-31T02:13:00Z',
      },
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
      [{ kind: 'replicas', from: 3, to: 0 }],
      [
        'Scaling to 0 removes every Pod of shop/checkout: it will serve nothing.',
        {
          code: 'hpa',
          message: 'HorizontalPodAutoscaler shop/checkout targets this Deployment and may change replicas.',
        },
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
    preview: preview('Pause the rollout of Deployment shop/checkout', [
      { field: 'spec.paused', from: false, to: true },
    ]),
  },
  resume_rollout: {
    ...base,
    id: 'apr_4444444444444444',
    tool: 'resume_rollout',
    risk: 'write',
    arguments: { namespace: 'shop', name: 'checkout' },
    requested_arguments: { namespace: 'shop', name: 'checkout' },
    preview: preview('Resume the rollout of Deployment shop/checkout', [
      { field: 'spec.paused', from: true, to: false },
    ]),
  },
} satisfies Record<string, ApprovalRequest>;

/** A copy of the rollback fixture with `overrides` applied. */
export function approvalFixture(overrides: Partial<ApprovalRequest> = {}): ApprovalRequest {
  return structuredClone({ ...FIXTURES.rollback_deployment, ...overrides });
}
