import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { ApprovalRequestSchema, PendingResultMetaSchema } from '../../../server/gate/index.ts';
import { renderApprovalHtml, renderApprovalText, withLocalTimes } from '../../../server/render/index.ts';
import { FakeCluster } from './fixtures/fake-cluster.ts';
import {
  BASE_POLICY,
  createTestPipeline,
  identities,
  textOf,
  type TestPipeline,
} from './fixtures/pipeline.ts';
import { fixtureDeployment, fixtureTools, restartDeployment } from './fixtures/tools.ts';

const MINUTE = 60_000;
const rollback = { namespace: 'shop', name: 'checkout' };

let p: TestPipeline;
beforeEach(() => {
  p = createTestPipeline();
});
afterEach(async () => {
  await p.close();
});

async function hold(identity: string, tool: string, args: Record<string, unknown>) {
  const result = await p.call(identity, tool, args);
  const meta = PendingResultMetaSchema.parse(result._meta);
  return { result, id: meta.approval_request_id };
}

describe('approval gate: policy decisions', () => {
  it('lets a read tool through without touching the store', async () => {
    const result = await p.call('agent', 'get_version', {});
    expect(result.isError).toBeUndefined();
    expect(textOf(result)).toBe('Kubernetes v1.31.0');
    expect(await p.store.list()).toEqual([]);
  });

  it('allows a dry run of a destructive tool and changes nothing', async () => {
    const result = await p.call('agent', 'rollback_deployment', { ...rollback, dry_run: true });
    expect(textOf(result)).toMatch(/^Dry run: Roll back Deployment shop\/checkout from revision 7/);
    expect(p.cluster.mutations).toEqual([]);
    expect(await p.store.list()).toEqual([]);
  });

  it('denies a write in a system namespace before any handler runs', async () => {
    const result = await p.call('agent', 'scale_deployment', {
      namespace: 'kube-system',
      name: 'coredns',
      replicas: 1,
    });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("Denied by policy rule 'system-namespaces'");
    expect(result._meta).toMatchObject({ approval_status: 'denied' });
    expect(p.cluster.mutations).toEqual([]);
    expect(await p.store.list()).toEqual([]);
  });

  it('runs a write the policy allows, once', async () => {
    const result = await p.call('agent', 'annotate_deployment', {
      ...rollback,
      key: 'team',
      value: 'payments',
    });
    expect(result.isError).toBeUndefined();
    expect(p.cluster.mutations).toHaveLength(1);
    expect(p.cluster.deployment('shop', 'checkout').metadata!.annotations!.team).toBe('payments');
  });
});

describe('approval gate: held calls', () => {
  it('holds a destructive call: success result, pending _meta, resolved call and preview recorded', async () => {
    const { result, id } = await hold('agent', 'rollback_deployment', {
      ...rollback,
      reason: 'errors since 02:10',
    });
    expect(result.isError).toBeUndefined();
    expect(result.structuredContent).toBeUndefined();
    expect(result._meta).toEqual({
      approval_status: 'pending',
      approval_request_id: id,
      expires_at: '2025-01-31T02:40:00.000Z',
    });
    const text = textOf(result);
    expect(text).toContain(`Approval request: ${id}`);
    expect(text).toContain(
      'Roll back Deployment shop/checkout from revision 7 (checkout:2.4.1) to revision 6 (checkout:2.4.0)',
    );
    expect(text).toContain('retry this identical call');
    expect(text).toContain('http://127.0.0.1:7070/ui/approvals');
    expect(p.cluster.mutations).toEqual([]);

    const request = ApprovalRequestSchema.parse(await p.gate.approvals.get(id));
    expect(request).toMatchObject({
      status: 'pending',
      requester: 'agent',
      tool: 'rollback_deployment',
      arguments: { namespace: 'shop', name: 'checkout', to_revision: 6 },
      requested_arguments: { namespace: 'shop', name: 'checkout' },
      reason: 'errors since 02:10',
      cluster: { context: 'kind-sentinel' },
      policy: { rule: 'default:destructive', validity: 'once' },
    });
    expect(request.preview?.effect).toMatchObject({ revision: { from: 7, to: 6 } });
  });

  it('reuses the pending request for the identical call, whatever the reason text', async () => {
    const first = await hold('agent', 'rollback_deployment', { ...rollback, reason: 'first' });
    const second = await hold('agent', 'rollback_deployment', {
      name: 'checkout',
      namespace: 'shop',
      reason: 'again',
      dry_run: false,
    });
    expect(second.id).toBe(first.id);
    expect(textOf(second.result)).toContain('already pending for this exact call');
    expect(await p.store.list()).toHaveLength(1);
    expect(p.events.map((e) => e.type)).toEqual(['approval_created', 'approval_reused']);
  });

  it('opens a separate request for a different call and for another requester', async () => {
    p.cluster.add(
      fixtureDeployment('shop', 'checkout', {
        revisions: { 5: 'checkout:2.3.9', 6: 'checkout:2.4.0', 7: 'checkout:2.4.1' },
      }),
    );
    const first = await hold('agent', 'rollback_deployment', rollback);
    const other = await hold('agent', 'rollback_deployment', { ...rollback, to_revision: 5 });
    const otherRequester = await hold('other', 'rollback_deployment', rollback);
    expect(new Set([first.id, other.id, otherRequester.id]).size).toBe(3);
  });

  it('reuses the pending request for the same resolved call, with or without the default spelled out', async () => {
    // The canonical call has its defaults applied: an omitted to_revision is the previous revision (6).
    const named = await hold('agent', 'rollback_deployment', { ...rollback, to_revision: 6 });
    const defaulted = await hold('agent', 'rollback_deployment', rollback);
    expect(defaulted.id).toBe(named.id);
    expect(textOf(defaulted.result)).toContain('already pending for this exact call');
    expect(await p.store.list()).toHaveLength(1);
    // Approved, the retry without to_revision runs it (and is not held as a new request).
    await p.gate.approvals.approve(named.id, identities.alice!, {});
    const run = await p.call('agent', 'rollback_deployment', rollback);
    expect(run._meta).toMatchObject({ approval_status: 'executed', approval_request_id: named.id });
    expect(p.cluster.mutations).toHaveLength(1);
    expect(await p.store.list()).toHaveLength(1);
  });

  it('delivers a denial to the retry that leaves the denied to_revision to its default', async () => {
    const named = await hold('agent', 'rollback_deployment', { ...rollback, to_revision: 6 });
    await p.gate.approvals.deny(named.id, identities.alice!, 'not during the sale');
    const retry = await p.call('agent', 'rollback_deployment', rollback);
    expect(retry.isError).toBe(true);
    expect(retry._meta).toMatchObject({ approval_status: 'denied' });
    expect(p.cluster.mutations).toEqual([]);
  });

  it('supersedes a pending request when the same call now does something else; refreshes it otherwise', async () => {
    const first = await hold('agent', 'scale_deployment', { ...rollback, replicas: 5 });
    expect((await p.gate.approvals.get(first.id)).preview?.summary).toContain('from 3 to 5');
    // Someone else scales the Deployment: the pending preview "3 → 5" is outdated.
    const deployment = p.cluster.deployment('shop', 'checkout');
    deployment.spec!.replicas = 4;
    deployment.metadata!.generation = (deployment.metadata!.generation ?? 1) + 1;
    const second = await hold('agent', 'scale_deployment', { ...rollback, replicas: 5 });
    expect(second.id).not.toBe(first.id);
    expect(textOf(second.result)).toContain('from 4 to 5');
    expect(await p.gate.approvals.get(first.id)).toMatchObject({
      status: 'superseded',
      superseded_by: second.id,
      status_reason: expect.stringContaining("the call's effect changed since it was requested"),
    });
    expect(p.events.map((e) => e.type)).toEqual([
      'approval_created',
      'approval_superseded',
      'approval_created',
    ]);
    await expect(p.gate.approvals.approve(first.id, identities.alice!, {})).rejects.toMatchObject({
      code: 'conflict',
    });
    // Unchanged effect: the same request, reused.
    const third = await hold('agent', 'scale_deployment', { ...rollback, replicas: 5 });
    expect(third.id).toBe(second.id);
  });

  it('makes no request for a call whose preview is a no-op, and runs nothing', async () => {
    const result = await p.call('agent', 'scale_deployment', { ...rollback, replicas: 3 });
    expect(result.isError).toBeUndefined();
    expect(result._meta).toMatchObject({ approval_status: 'not_required' });
    expect(textOf(result)).toMatch(/^Nothing to do: the scale_deployment call would change nothing/);
    expect(await p.store.list()).toEqual([]);
    expect(p.cluster.mutations).toEqual([]);
  });

  it('under a policy that asks for previews, answers a no-op preview at once and holds only a real one', async () => {
    await p.close();
    p = createTestPipeline({ policy: 'version: 1\nrules: []\n' });
    const noop = await p.call('agent', 'scale_deployment', { ...rollback, replicas: 3, dry_run: true });
    expect(noop._meta).toBeUndefined();
    expect(textOf(noop)).toBe('Dry run: Scale Deployment shop/checkout from 3 to 3 replicas.');
    expect(await p.store.list()).toEqual([]);
    const real = await p.call('agent', 'scale_deployment', { ...rollback, replicas: 4, dry_run: true });
    expect(real._meta).toMatchObject({ approval_status: 'pending' });
    expect(p.cluster.mutations).toEqual([]);
  });

  it('returns a failing preview as is and records nothing', async () => {
    const result = await p.call('agent', 'rollback_deployment', { namespace: 'shop', name: 'missing' });
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain("Deployment 'missing' not found");
    expect(await p.store.list()).toEqual([]);
  });

  it('holds a write tool without dry-run support with its own call as the resolution', async () => {
    const result = await p.call('agent', 'pause_rollout', rollback);
    const id = PendingResultMetaSchema.parse(result._meta).approval_request_id;
    expect((await p.gate.approvals.get(id)).policy.rule).toBe('default:write');
  });
});

describe('approval gate: once grants', () => {
  it('runs after an autoscaler moved the generation, recording that generation for reconciliation', async () => {
    const { id } = await hold('agent', 'rollback_deployment', { ...rollback, reason: 'bad release' });
    await p.gate.approvals.approve(id, identities.alice!, {});
    const deployment = p.cluster.deployment('shop', 'checkout');
    deployment.spec!.replicas = 6; // what an HorizontalPodAutoscaler does: the generation moves
    deployment.metadata!.generation = 2;
    const result = await p.call('agent', 'rollback_deployment', rollback);
    expect(result._meta).toMatchObject({ approval_status: 'executed', approval_request_id: id });
    const execution = await p.store.getExecution(String(result._meta!.execution_id));
    expect(execution?.effect).toMatchObject({ target: { name: 'checkout' }, generation_before: 2 });
  });

  it('executes the resolved call on the first retry after approval, exactly once', async () => {
    const { id } = await hold('agent', 'rollback_deployment', { ...rollback, reason: 'bad release' });
    await p.gate.approvals.approve(id, identities.alice!, {});
    const result = await p.call('agent', 'rollback_deployment', rollback);
    expect(result.isError).toBeUndefined();
    expect(textOf(result)).toContain('to revision 6 (checkout:2.4.0): done, now revision 8');
    expect(result._meta).toMatchObject({ approval_status: 'executed', approval_request_id: id });
    expect(p.cluster.mutations).toHaveLength(1);
    const annotations = p.cluster.deployment('shop', 'checkout').metadata!.annotations!;
    expect(annotations['sentinel.dev/approval-request-id']).toBe(id);
    const request = await p.gate.approvals.get(id);
    expect(request.status).toBe('executed');
    expect(request.executions).toMatchObject([
      { status: 'succeeded', arguments: { to_revision: 6, reason: 'bad release' } },
    ]);

    // The grant is used up: the same call again is a new request, not a second execution.
    const again = await hold('agent', 'rollback_deployment', rollback);
    expect(again.id).not.toBe(id);
    expect(p.cluster.mutations).toHaveLength(1);
  });

  it('matches a retry that spells out the resolved arguments', async () => {
    const { id } = await hold('agent', 'rollback_deployment', rollback);
    await p.gate.approvals.approve(id, identities.alice!, {});
    const result = await p.call('agent', 'rollback_deployment', { ...rollback, to_revision: 6 });
    expect(result._meta).toMatchObject({ approval_status: 'executed', approval_request_id: id });
  });

  it('runs 50 concurrent identical retries exactly once', async () => {
    const { id } = await hold('agent', 'scale_deployment', { ...rollback, replicas: 5 });
    await p.gate.approvals.approve(id, identities.alice!, {});
    const results = await Promise.all(
      Array.from({ length: 50 }, () => p.call('agent', 'scale_deployment', { ...rollback, replicas: 5 })),
    );
    expect(p.cluster.mutations).toHaveLength(1);
    const statuses = results.map((r) => (r._meta as { approval_status: string }).approval_status);
    expect(statuses.filter((s) => s === 'executed')).toHaveLength(1);
    expect(statuses.filter((s) => s === 'executed' || s === 'in_progress' || s === 'pending')).toHaveLength(
      50,
    );
    expect((await p.gate.approvals.get(id)).executions).toHaveLength(1);
  });

  it('binds the grant to the cluster server too: the same context name on another cluster is held again', async () => {
    const { id } = await hold('agent', 'scale_deployment', { ...rollback, replicas: 5 });
    await p.gate.approvals.approve(id, identities.alice!, {});
    const impostor = new FakeCluster({ context: 'kind-sentinel', server: 'https://10.9.9.9:6443' });
    impostor.add(fixtureDeployment('shop', 'checkout'));
    const held = await p.call('agent', 'scale_deployment', { ...rollback, replicas: 5 }, impostor);
    expect(held._meta).toMatchObject({ approval_status: 'pending' });
    expect(impostor.mutations).toEqual([]);
    // The grant still works on the cluster it was given for.
    const result = await p.call('agent', 'scale_deployment', { ...rollback, replicas: 5 });
    expect(result._meta).toMatchObject({ approval_status: 'executed', approval_request_id: id });
  });

  it('holds a call with different arguments again', async () => {
    const { id } = await hold('agent', 'scale_deployment', { ...rollback, replicas: 5 });
    await p.gate.approvals.approve(id, identities.alice!, {});
    const different = await hold('agent', 'scale_deployment', { ...rollback, replicas: 6 });
    expect(different.id).not.toBe(id);
    expect(p.cluster.mutations).toEqual([]);
  });

  it("does not let identity B use A's grant", async () => {
    const { id } = await hold('agent', 'scale_deployment', { ...rollback, replicas: 5 });
    await p.gate.approvals.approve(id, identities.alice!, {});
    const other = await hold('other', 'scale_deployment', { ...rollback, replicas: 5 });
    expect(other.id).not.toBe(id);
    expect(p.cluster.mutations).toEqual([]);
    expect((await p.gate.approvals.get(id)).status).toBe('approved');
  });

  it('does not execute a stale approval when the target changed after approval', async () => {
    const { id } = await hold('agent', 'rollback_deployment', rollback);
    await p.gate.approvals.approve(id, identities.alice!, {});
    // Someone else rolls out a new revision in between.
    p.cluster.add(
      fixtureDeployment('shop', 'checkout', {
        revisions: { 6: 'checkout:2.4.0', 7: 'checkout:2.4.1', 8: 'checkout:2.5.0' },
      }),
    );
    const result = await p.call('agent', 'rollback_deployment', rollback);
    expect(result.isError).toBe(true);
    expect(textOf(result)).toContain(`Approval request ${id} is stale`);
    expect(textOf(result)).toContain('revision');
    expect(result._meta).toMatchObject({ approval_status: 'stale' });
    expect(p.cluster.mutations).toEqual([]);
    expect((await p.gate.approvals.get(id)).status).toBe('stale');
  });

  it('never executes an approval whose grant ended unused', async () => {
    const { id } = await hold('agent', 'scale_deployment', { ...rollback, replicas: 5 });
    await p.gate.approvals.approve(id, identities.alice!, {});
    p.clock.advance(31 * MINUTE);
    const retry = await hold('agent', 'scale_deployment', { ...rollback, replicas: 5 });
    expect(retry.id).not.toBe(id);
    expect((await p.gate.approvals.get(id)).status).toBe('expired');
    expect(p.cluster.mutations).toEqual([]);
  });
});

describe('approval gate: window grants', () => {
  const staging = { namespace: 'staging-shop', name: 'web' };

  it('covers other arguments of the same tool and rules until the window ends, on the same cluster only', async () => {
    const { id } = await hold('agent', 'scale_deployment', { ...staging, replicas: 4 });
    const request = await p.gate.approvals.approve(id, identities.alice!, { validity: { window: '15m' } });
    expect(request.grant).toEqual({
      validity: { window: '15m' },
      expires_at: '2025-01-31T02:25:00.000Z',
      scope: {
        kind: 'rules',
        requester: 'agent',
        tool: 'scale_deployment',
        cluster: { context: 'kind-sentinel', server: 'https://127.0.0.1:6443' },
        rules: ['staging-window'],
        description:
          'any scale_deployment call by agent on context kind-sentinel (https://127.0.0.1:6443) that matches policy rule staging-window (tool scale_deployment; namespace matches staging-*) and no stricter rule, with any value of name, replicas, until 2025-01-31T02:25:00.000Z; for example scale_deployment name=other-web namespace=staging-shop replicas=4, which is not the approved call',
      },
    });
    expect(renderApprovalText(request, { now: p.clock.now })).toContain(
      'Grant:      any scale_deployment call by agent on context kind-sentinel',
    );

    const other = await p.call('agent', 'scale_deployment', { ...staging, replicas: 7 });
    expect(other._meta).toMatchObject({ approval_status: 'executed', approval_request_id: id });
    expect(p.cluster.deployment('staging-shop', 'web').spec!.replicas).toBe(7);

    // Another cluster, and the same context name pointing at another API server: held again.
    const renamed = new FakeCluster({ context: 'kind-sentinel', server: 'https://10.0.0.2' });
    renamed.add(fixtureDeployment('staging-shop', 'web'));
    const impostor = await p.call('agent', 'scale_deployment', { ...staging, replicas: 7 }, renamed);
    expect(impostor._meta).toMatchObject({ approval_status: 'pending' });
    expect(renamed.mutations).toEqual([]);
    const elsewhere = new FakeCluster({ context: 'prod-eu', server: 'https://10.0.0.1' });
    elsewhere.add(fixtureDeployment('staging-shop', 'web'));
    const held = await p.call('agent', 'scale_deployment', { ...staging, replicas: 7 }, elsewhere);
    expect(held._meta).toMatchObject({ approval_status: 'pending' });
    expect(elsewhere.mutations).toEqual([]);

    // A call matching a stricter rule (scale to 0) is not covered.
    const zero = await p.call('agent', 'scale_deployment', { ...staging, replicas: 0 });
    expect(zero._meta).toMatchObject({ approval_status: 'pending' });

    p.clock.advance(16 * MINUTE);
    const late = await p.call('agent', 'scale_deployment', { ...staging, replicas: 2 });
    expect(late._meta).toMatchObject({ approval_status: 'pending' });
    expect(p.cluster.mutations).toHaveLength(1);
  });

  it('keeps the window open after the approved call itself runs: later calls it covers are not held', async () => {
    const { id } = await hold('bob', 'scale_deployment', { ...staging, replicas: 4 });
    await p.gate.approvals.approve(id, identities.alice!, { validity: { window: '15m' } });

    const retry = await p.call('bob', 'scale_deployment', { ...staging, replicas: 4 });
    expect(retry._meta).toMatchObject({ approval_status: 'executed', approval_request_id: id });
    expect(await p.gate.approvals.get(id)).toMatchObject({ status: 'approved' });

    const next = await p.call('bob', 'scale_deployment', { ...staging, replicas: 7 });
    expect(next._meta).toMatchObject({ approval_status: 'executed', approval_request_id: id });
    // The approved call again: checked against the cluster now, not against the first preview.
    const again = await p.call('bob', 'scale_deployment', { ...staging, replicas: 4 });
    expect(again._meta).toMatchObject({ approval_status: 'executed', approval_request_id: id });
    expect(p.cluster.deployment('staging-shop', 'web').spec!.replicas).toBe(4);
    const request = await p.gate.approvals.get(id);
    expect(request.status).toBe('approved');
    expect(request.executions).toHaveLength(3);
  });

  it('checks the approved call of a window against the preview the approver saw (stale before its first run)', async () => {
    const { id } = await hold('bob', 'scale_deployment', { ...staging, replicas: 4 });
    await p.gate.approvals.approve(id, identities.alice!, { validity: { window: '15m' } });
    p.cluster.deployment('staging-shop', 'web').spec!.replicas = 4;
    const stale = await p.call('bob', 'scale_deployment', { ...staging, replicas: 4 });
    expect(textOf(stale)).toMatch(/stale/i);
    expect(p.cluster.mutations).toEqual([]);
  });

  it('refuses, at approval, a window longer than settings.max_window, naming the field', async () => {
    await p.close();
    p = createTestPipeline({
      policy: BASE_POLICY.replace('version: 1\n', 'version: 1\nsettings:\n  max_window: 30m\n').replace(
        'validity: { window: 1h }',
        'validity: { window: 30m }',
      ),
    });
    const staged = await hold('agent', 'scale_deployment', { ...staging, replicas: 4 });
    await expect(
      p.gate.approvals.approve(staged.id, identities.alice!, { validity: { window: '45m' } }),
    ).rejects.toMatchObject({
      code: 'invalid_input',
      field: 'validity.window',
      message:
        "validity.window: 45m is longer than the policy's settings.max_window (30m); ask for a window of at most 30m.",
    });
    await expect(
      p.gate.approvals.create(identities.alice!, {
        requester: 'agent',
        tool: 'scale_deployment',
        arguments: { ...staging, replicas: 5 },
        validity: { window: '2h' },
      }),
    ).rejects.toMatchObject({ field: 'validity.window' });
  });

  it('refuses a window longer than the rule allows, and any window where the rule says once', async () => {
    const staged = await hold('agent', 'scale_deployment', { ...staging, replicas: 4 });
    await expect(
      p.gate.approvals.approve(staged.id, identities.alice!, { validity: { window: '2h' } }),
    ).rejects.toThrow(/at most 1h/);
    const prod = await hold('agent', 'scale_deployment', { ...rollback, replicas: 4 });
    await expect(
      p.gate.approvals.approve(prod.id, identities.alice!, { validity: { window: '5m' } }),
    ).rejects.toThrow(/only 'once'/);
  });
});

describe('approval gate: concurrent identical calls under one window grant (issue 13, finding 7)', () => {
  const RESTART_WINDOW_POLICY = `${BASE_POLICY}  - name: shop-window
    tool: restart_deployment
    args: { namespace: shop }
    decision: ask
    validity: { window: 15m }
`;
  const checkout = { namespace: 'shop', name: 'checkout' };

  it('coalesces 50 concurrent identical calls (two spellings) into one execution; all get its result', async () => {
    await p.close();
    p = createTestPipeline({ policy: RESTART_WINDOW_POLICY, tools: [...fixtureTools, restartDeployment] });
    const { id } = await hold('agent', 'restart_deployment', checkout);
    await p.gate.approvals.approve(id, identities.alice!, { validity: { window: '15m' } });
    const results = await Promise.all(
      Array.from({ length: 50 }, (_, i) =>
        p.call('agent', 'restart_deployment', {
          ...checkout,
          name: i % 2 === 0 ? 'checkout' : 'svc-checkout',
        }),
      ),
    );
    expect(p.cluster.mutations).toHaveLength(1);
    const executed = results.filter((r) => r._meta?.approval_status === 'executed');
    expect(executed).toHaveLength(1);
    const executionId = executed[0]!._meta!.execution_id;
    const coalesced = results.filter((r) => r !== executed[0]);
    expect(coalesced).toHaveLength(49);
    for (const result of coalesced) {
      expect(result.isError).toBeFalsy();
      expect(result._meta).toMatchObject({
        approval_status: 'replayed',
        approval_request_id: id,
        execution_id: executionId,
        coalesced: true,
      });
      expect(textOf(result)).toMatch(/^Not executed again: an identical call under the same window grant/);
      expect(textOf(result)).toContain('Restart Deployment shop/checkout: done (restart 1).');
    }
    expect((await p.gate.approvals.get(id)).executions).toHaveLength(1);

    // A later call (after that execution ended) is a new call the window covers: it runs.
    const later = await p.call('agent', 'restart_deployment', checkout);
    expect(later._meta).toMatchObject({ approval_status: 'executed', approval_request_id: id });
    expect(p.cluster.mutations).toHaveLength(2);
  });

  it('holds in the store: a call that arrived while an identical execution ran does not run after it', async () => {
    await p.close();
    p = createTestPipeline({ policy: RESTART_WINDOW_POLICY, tools: [...fixtureTools, restartDeployment] });
    const { id } = await hold('agent', 'restart_deployment', checkout);
    await p.gate.approvals.approve(id, identities.alice!, { validity: { window: '15m' } });
    const binding = {
      requester: 'agent',
      credential: '',
      cluster: 'kind-sentinel',
      clusterServer: 'https://127.0.0.1:6443',
    };
    const request = (await p.store.get(id))!;
    const begin = {
      ...binding,
      tool: 'restart_deployment',
      callKey: 'k-resolved',
      arguments: checkout,
      authorization: 'window' as const,
      requestId: request.id,
    };
    // Another process starts an identical execution; this call arrives while it runs ...
    const other = await p.store.beginExecution({ ...begin, id: 'exe_other' }, p.clock.now);
    expect(other.ok).toBe(true);
    const arrival = await p.store.executionMark();
    // ... and it ends before this call gets to start its own.
    await p.store.finishExecution('exe_other', { status: 'succeeded', outcome: 'done' }, p.clock.now);
    const mine = await p.store.beginExecution({ ...begin, id: 'exe_mine', arrival }, p.clock.now);
    expect(mine).toMatchObject({ ok: false, reason: 'duplicate', existing: { id: 'exe_other' } });
    // A call arriving after it ended runs.
    const fresh = await p.store.beginExecution(
      { ...begin, id: 'exe_fresh', arrival: await p.store.executionMark() },
      p.clock.now,
    );
    expect(fresh.ok).toBe(true);
  });
});

describe('approval gate: what a window covers, shown before approval (issue 13, finding 7)', () => {
  const SHOP_WINDOW_POLICY = `${BASE_POLICY}  - name: shop-window
    tool: restart_deployment
    args: { namespace: shop }
    decision: ask
    validity: { window: 15m }
`;

  it('records the rule predicates, the free arguments and a verified example of another covered call', async () => {
    await p.close();
    p = createTestPipeline({ policy: SHOP_WINDOW_POLICY, tools: [...fixtureTools, restartDeployment] });
    p.cluster.add(fixtureDeployment('shop', 'payments'));
    const { id } = await hold('agent', 'restart_deployment', { namespace: 'shop', name: 'checkout' });
    const request = await p.gate.approvals.get(id);
    expect(request.policy.window).toEqual({
      conditions: [{ rule: 'shop-window', tool: 'restart_deployment', args: { namespace: 'shop' } }],
      free_arguments: ['name'],
      example: { arguments: { namespace: 'shop', name: 'other-checkout' }, differs_in: ['name'] },
    });
    const coverage =
      'a window of up to 15m (until 2025-01-31T02:25:00.000Z if approved now) would cover any restart_deployment call by agent on context kind-sentinel (https://127.0.0.1:6443) that matches policy rule shop-window (tool restart_deployment; namespace = shop) and no stricter rule, with any value of name; for example restart_deployment name=other-checkout namespace=shop, which is not the call above';
    // The CLI (`sentinel approvals show`) and the page show it while the request is pending.
    const text = renderApprovalText(request, { now: p.clock.now });
    // The terminal reads the time in the local zone, with UTC alongside.
    expect(text).toContain(`Grant:      once by default; ${withLocalTimes(coverage, { now: p.clock.now })}`);
    // The page's time is a <time>, which its script shows in the viewer's zone.
    expect(renderApprovalHtml(request, { now: p.clock.now })).toContain(
      `<dt>Grant</dt><dd>once by default; ${coverage.replace(
        '2025-01-31T02:25:00.000Z',
        '<time datetime="2025-01-31T02:25:00.000Z" title="2025-01-31T02:25:00.000Z (UTC)">2025-01-31T02:25:00.000Z</time>',
      )}</dd>`,
    );

    // The example is really covered: after a window approval it runs without a new request.
    const approved = await p.gate.approvals.approve(id, identities.alice!, { validity: { window: '15m' } });
    expect(approved.grant?.scope?.description).toBe(
      'any restart_deployment call by agent on context kind-sentinel (https://127.0.0.1:6443) that matches policy rule shop-window (tool restart_deployment; namespace = shop) and no stricter rule, with any value of name, until 2025-01-31T02:25:00.000Z; for example restart_deployment name=other-checkout namespace=shop, which is not the approved call',
    );
    p.cluster.add(fixtureDeployment('shop', 'other-checkout'));
    const example = await p.call('agent', 'restart_deployment', {
      namespace: 'shop',
      name: 'other-checkout',
    });
    expect(example._meta).toMatchObject({ approval_status: 'executed', approval_request_id: id });
  });

  it('says so when a window admits only this exact call', async () => {
    await p.close();
    p = createTestPipeline({
      policy: `${BASE_POLICY}  - name: exact-window
    tool: restart_deployment
    args: { namespace: shop, name: checkout }
    decision: ask
    validity: { window: 15m }
`,
      tools: [...fixtureTools, restartDeployment],
    });
    const { id } = await hold('agent', 'restart_deployment', { namespace: 'shop', name: 'checkout' });
    const request = await p.gate.approvals.get(id);
    expect(request.policy.window).toMatchObject({ free_arguments: [], example: null });
    expect(renderApprovalText(request, { now: p.clock.now })).toContain(
      '(tool restart_deployment; name = checkout, namespace = shop) and no stricter rule; no other call found that it would cover',
    );
  });
});

describe('approval gate: decisions', () => {
  it('never lets the requester decide its own request, even with every role', async () => {
    const result = await p.call('local', 'scale_deployment', { ...rollback, replicas: 5 });
    const id = PendingResultMetaSchema.parse(result._meta).approval_request_id;
    await expect(p.gate.approvals.approve(id, identities.local!, {})).rejects.toMatchObject({
      code: 'forbidden',
    });
    await expect(p.gate.approvals.deny(id, identities.local!, 'no')).rejects.toMatchObject({
      code: 'forbidden',
    });
    await expect(p.gate.approvals.approve(id, identities.other!, {})).rejects.toMatchObject({
      code: 'forbidden',
    });
    const byAdmin = await p.gate.approvals.approve(id, identities.root!, {});
    expect(byAdmin.decision).toMatchObject({ by: 'root', admin_fallback: true });
  });

  it('deny: the first identical retry hears the human declined, the next opens a new request', async () => {
    const { id } = await hold('agent', 'scale_deployment', { ...rollback, replicas: 5 });
    await p.gate.approvals.deny(id, identities.alice!, 'peak traffic, scale tomorrow');
    const first = await p.call('agent', 'scale_deployment', { ...rollback, replicas: 5 });
    expect(first.isError).toBe(true);
    expect(textOf(first)).toBe(
      [
        `Approval request ${id} was denied by alice: peak traffic, scale tomorrow`,
        'A human reviewed and declined this exact scale_deployment call. It was not run and nothing changed.',
        'Do not attempt it again. Tell the user it was declined and offer alternatives.',
      ].join('\n'),
    );
    expect(first._meta).toMatchObject({ approval_status: 'denied', approval_request_id: id });
    const second = await hold('agent', 'scale_deployment', { ...rollback, replicas: 5 });
    expect(second.id).not.toBe(id);
    expect(p.cluster.mutations).toEqual([]);
  });

  it('after the original expiry, a denied call opens a new request straight away', async () => {
    const { id } = await hold('agent', 'scale_deployment', { ...rollback, replicas: 5 });
    await p.gate.approvals.deny(id, identities.alice!, 'no');
    p.clock.advance(31 * MINUTE);
    const next = await hold('agent', 'scale_deployment', { ...rollback, replicas: 5 });
    expect(next.id).not.toBe(id);
  });

  it('expires pending requests: never approved, never executed', async () => {
    const { id } = await hold('agent', 'scale_deployment', { ...rollback, replicas: 5 });
    p.clock.advance(30 * MINUTE);
    await expect(p.gate.approvals.approve(id, identities.alice!, {})).rejects.toMatchObject({
      code: 'approval_expired',
    });
    expect((await p.gate.approvals.get(id)).status).toBe('expired');
    expect(p.events.some((e) => e.type === 'approval_expired')).toBe(true);
    const retry = await hold('agent', 'scale_deployment', { ...rollback, replicas: 5 });
    expect(retry.id).not.toBe(id);
    expect(p.cluster.mutations).toEqual([]);
  });

  it('refuses a second decision and lets only the requester withdraw', async () => {
    const { id } = await hold('agent', 'scale_deployment', { ...rollback, replicas: 5 });
    await expect(p.gate.approvals.withdraw(id, identities.other!)).rejects.toMatchObject({
      code: 'forbidden',
    });
    expect((await p.gate.approvals.withdraw(id, identities.agent!)).status).toBe('withdrawn');
    await expect(p.gate.approvals.approve(id, identities.alice!, {})).rejects.toMatchObject({
      code: 'conflict',
    });
  });

  it('an approver creates an approved request for a named requester; the requester then runs it', async () => {
    const created = await p.gate.approvals.create(identities.alice!, {
      requester: 'agent',
      tool: 'rollback_deployment',
      arguments: rollback,
    });
    expect(created).toMatchObject({
      status: 'approved',
      requester: 'agent',
      created_by: 'alice',
      arguments: { to_revision: 6 },
      decision: { decision: 'allow', by: 'alice' },
    });
    const result = await p.call('agent', 'rollback_deployment', rollback);
    expect(result._meta).toMatchObject({ approval_status: 'executed' });
    expect(p.cluster.mutations).toHaveLength(1);
    await expect(
      p.gate.approvals.create(identities.alice!, {
        requester: 'alice',
        tool: 'rollback_deployment',
        arguments: rollback,
      }),
    ).rejects.toMatchObject({ code: 'forbidden' });
    await expect(
      p.gate.approvals.create(identities.alice!, {
        requester: 'agent',
        tool: 'rollback_deployment',
        arguments: { namespace: 'shop' },
      }),
    ).rejects.toMatchObject({ code: 'invalid_input', field: 'arguments.name' });
    expect(
      await p.gate.approvals.create(identities.alice!, {
        requester: 'agent',
        tool: 'rollback_deployment',
        arguments: { ...rollback, dry_run: true },
      }),
    ).toEqual({ approval_required: false, decision: 'allow', rule: 'dry-runs' });
  });
});

describe('approval gate: upstream approval, idempotency, freeze', () => {
  it('warns once when a trusted upstream identity appears that was not there at start-up', async () => {
    await p.close();
    const warnings: unknown[] = [];
    p = createTestPipeline({
      trustedAtStart: new Set(['harness:']),
      logger: { warn: (...args: unknown[]) => warnings.push(args), info() {}, error() {} },
      identities: { ...identities, late: { name: 'late', roles: ['caller'], trustUpstreamApproval: true } },
    });
    await p.call('harness', 'pause_rollout', rollback);
    expect(p.events.filter((e) => e.type === 'upstream_trust_added')).toEqual([]);
    await p.call('late', 'pause_rollout', rollback);
    await p.call('late', 'pause_rollout', { namespace: 'staging-shop', name: 'web' });
    expect(p.events.filter((e) => e.type === 'upstream_trust_added')).toEqual([
      { type: 'upstream_trust_added', identity: 'late', at: '2025-01-31T02:10:00.000Z' },
    ]);
    expect(JSON.stringify(warnings)).toContain('trust_upstream_approval added while the server runs');
  });

  it('returns the first result for a repeated idempotency key without executing again', async () => {
    const args = { ...rollback, key: 'team', value: 'payments', idempotency_key: 'k-1' };
    const first = await p.call('agent', 'annotate_deployment', args);
    const second = await p.call('agent', 'annotate_deployment', args);
    expect(p.cluster.mutations).toHaveLength(1);
    expect(textOf(second)).toBe(textOf(first));
    expect(second._meta).toMatchObject({ idempotent_replay: true });
    const misuse = await p.call('agent', 'annotate_deployment', { ...args, value: 'other' });
    expect(misuse.isError).toBe(true);
    expect(textOf(misuse)).toContain(
      "idempotency_key 'k-1' was already used for a different annotate_deployment call",
    );
    expect(misuse._meta).toMatchObject({ error: { code: 'conflict', field: 'idempotency_key' } });
    // Keys are per identity.
    await p.call('other', 'annotate_deployment', args);
    expect(p.cluster.mutations).toHaveLength(2);
  });

  it('an idempotency key on an approved retry is recorded; repeating it does not execute again', async () => {
    const { id } = await hold('agent', 'scale_deployment', {
      ...rollback,
      replicas: 5,
      idempotency_key: 'scale-5',
    });
    await p.gate.approvals.approve(id, identities.alice!, {});
    const run = await p.call('agent', 'scale_deployment', {
      ...rollback,
      replicas: 5,
      idempotency_key: 'scale-5',
    });
    const again = await p.call('agent', 'scale_deployment', {
      ...rollback,
      replicas: 5,
      idempotency_key: 'scale-5',
    });
    expect(textOf(again)).toBe(textOf(run));
    expect(p.cluster.mutations).toHaveLength(1);
  });

  it('freeze denies every change with its reason; reads and dry runs continue', async () => {
    await expect(p.gate.approvals.setFreeze(identities.alice!, true, 'x')).rejects.toMatchObject({
      code: 'forbidden',
    });
    await p.gate.approvals.setFreeze(identities.root!, true, 'Black Friday change freeze');
    for (const [tool, args] of [
      ['annotate_deployment', { ...rollback, key: 'a', value: 'b' }],
      ['scale_deployment', { ...rollback, replicas: 5 }],
    ] as const) {
      const result = await p.call('harness', tool, args);
      expect(result.isError).toBe(true);
      expect(textOf(result)).toContain('Black Friday change freeze');
      expect(result._meta).toMatchObject({ approval_status: 'frozen' });
    }
    expect((await p.call('agent', 'get_version', {})).isError).toBeUndefined();
    expect(
      (await p.call('agent', 'scale_deployment', { ...rollback, replicas: 5, dry_run: true })).isError,
    ).toBeUndefined();
    expect(p.cluster.mutations).toEqual([]);
    await p.gate.approvals.setFreeze(identities.root!, false, null);
    expect((await p.call('agent', 'scale_deployment', { ...rollback, replicas: 5 }))._meta).toMatchObject({
      approval_status: 'pending',
    });
  });
});

describe('approval gate: the policy judges the resolved call', () => {
  const RESOLVED_POLICY = `version: 1
rules:
  - name: rollbacks-asked
    tool: rollback_deployment
    decision: ask
  - name: revision-6-withdrawn
    tool: rollback_deployment
    args: { to_revision: 6 }
    decision: deny
    reason: Revision 6 leaks memory.
`;

  it('denies a call whose default target a deny rule covers, through tools/call and POST /approvals', async () => {
    await p.close();
    p = createTestPipeline({ policy: RESOLVED_POLICY });
    const result = await p.call('agent', 'rollback_deployment', rollback);
    expect(result.isError).toBe(true);
    expect(result._meta).toMatchObject({ approval_status: 'denied', policy_rule: 'revision-6-withdrawn' });
    expect(textOf(result)).toContain(
      'The rule applies to what the call resolves to: rollback_deployment {"namespace":"shop","name":"checkout","to_revision":6}.',
    );
    expect(p.cluster.mutations).toEqual([]);
    await expect(
      p.gate.approvals.create(identities.alice!, {
        requester: 'agent',
        tool: 'rollback_deployment',
        arguments: rollback,
      }),
    ).rejects.toMatchObject({ code: 'forbidden', message: expect.stringContaining('"to_revision":6') });
    expect(await p.store.list()).toEqual([]);
  });

  // Destructive tools cannot be allowed by policy (load.ts): the resolved call runs once approved.
  it('never runs a change whose dry run fails, and executes the resolved call when it resolves', async () => {
    await p.close();
    p = createTestPipeline({ policy: RESOLVED_POLICY });
    p.cluster.add(fixtureDeployment('shop', 'single', { revisions: { 1: 'single:1.0.0' } }));
    const failed = await p.call('agent', 'rollback_deployment', { namespace: 'shop', name: 'single' });
    expect(failed.isError).toBe(true);
    expect(textOf(failed)).toContain('has no revision 0 to roll back to');
    expect(p.cluster.mutations).toEqual([]);
    p.cluster.add(
      fixtureDeployment('shop', 'web', { revisions: { 3: 'web:1.0.0', 4: 'web:1.1.0', 5: 'web:1.2.0' } }),
    );
    const { id } = await hold('agent', 'rollback_deployment', { namespace: 'shop', name: 'web' });
    await p.gate.approvals.approve(id, identities.alice!, {});
    const run = await p.call('agent', 'rollback_deployment', { namespace: 'shop', name: 'web' });
    expect(run.isError).toBeUndefined();
    expect(textOf(run)).toMatch(/to revision 4 .*: done/);
    expect(p.cluster.mutations).toHaveLength(1);
  });
});
