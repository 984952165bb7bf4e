import { afterEach, describe, expect, it } from 'vitest';
import { PendingResultMetaSchema } from '../../../server/gate/index.ts';
import type { Identity } from '../../../server/pipeline.ts';
import { createTestPipeline, identities, textOf, type TestPipeline } from './fixtures/pipeline.ts';

const scale = { namespace: 'shop', name: 'checkout', replicas: 5 };

let p: TestPipeline;
afterEach(async () => {
  await p.close();
});

/** A pipeline whose identities carry credentials the test can revoke or rotate. */
function withCredentials(options: { identitiesReadable?: () => boolean } = {}): Record<string, Identity> {
  const known: Record<string, Identity> = {};
  for (const [name, identity] of Object.entries(identities)) {
    known[name] = { ...identity, credential: `${name}-token-1` };
  }
  p = createTestPipeline({ identities: known, ...options });
  return known;
}

async function hold(identity: string, args: Record<string, unknown> = scale): Promise<string> {
  const result = await p.call(identity, 'scale_deployment', args);
  return PendingResultMetaSchema.parse(result._meta).approval_request_id;
}

describe('approvals: a revoked or re-keyed requester', () => {
  it('cancels its pending requests and unused grants when the identity is revoked', async () => {
    const known = withCredentials();
    const pending = await hold('agent');
    const approved = await hold('agent', { ...scale, replicas: 6 });
    await p.gate.approvals.approve(approved, identities.alice!, {});
    const untouched = await hold('other');

    delete known.agent;
    const cancelled = await p.gate.approvals.reconcileIdentities();
    expect(cancelled.map((request) => request.id).sort()).toEqual([pending, approved].sort());
    for (const id of [pending, approved]) {
      expect(await p.gate.approvals.get(id)).toMatchObject({
        status: 'cancelled',
        status_reason: "identity 'agent' was revoked",
      });
    }
    expect((await p.gate.approvals.get(untouched)).status).toBe('pending');
    expect(p.events.filter((e) => e.type === 'approval_cancelled')).toHaveLength(2);
    await expect(p.gate.approvals.approve(pending, identities.alice!, {})).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('already cancelled'),
    });
  });

  it('voids what the old token was granted when the identity is re-added with a new token', async () => {
    const known = withCredentials();
    const approved = await hold('agent');
    await p.gate.approvals.approve(approved, identities.alice!, {});
    const windowed = await hold('agent', { namespace: 'staging-shop', name: 'web', replicas: 2 });
    await p.gate.approvals.approve(windowed, identities.alice!, { validity: { window: '1h' } });

    // Removed and re-added under the same name: a new token, a new credential.
    known.agent = { ...known.agent!, credential: 'agent-token-2' };
    // The retry of the approved call (before any sweep) is held again, not executed.
    const retry = await p.call('agent', 'scale_deployment', scale);
    expect(retry._meta).toMatchObject({ approval_status: 'pending' });
    const windowRetry = await p.call('agent', 'scale_deployment', {
      namespace: 'staging-shop',
      name: 'web',
      replicas: 6,
    });
    expect(windowRetry._meta).toMatchObject({ approval_status: 'pending' });
    expect(p.cluster.mutations).toEqual([]);

    await p.gate.approvals.list({});
    for (const id of [approved, windowed]) {
      expect(await p.gate.approvals.get(id)).toMatchObject({
        status: 'cancelled',
        status_reason: expect.stringContaining('now authenticates with a different token'),
      });
    }
    // The new token's own request stays.
    const mine = PendingResultMetaSchema.parse(retry._meta).approval_request_id;
    expect((await p.gate.approvals.get(mine)).status).toBe('pending');
  });

  it('cancels nothing while tokens.yaml cannot be read (a typo being fixed is not a revocation)', async () => {
    let readable = false;
    const known = withCredentials({ identitiesReadable: () => readable });
    const pending = await hold('agent');
    delete known.agent;
    expect(await p.gate.approvals.reconcileIdentities()).toEqual([]);
    expect((await p.gate.approvals.get(pending)).status).toBe('pending');
    readable = true;
    expect((await p.gate.approvals.reconcileIdentities()).map((request) => request.id)).toEqual([pending]);
  });

  it('cancels the old token’s pending request when the new token makes the same call', async () => {
    const known = withCredentials();
    const old = await hold('agent');
    known.agent = { ...known.agent!, credential: 'agent-token-2' };
    const fresh = await hold('agent');
    expect(fresh).not.toBe(old);
    expect((await p.store.get(old))?.status).toBe('cancelled');
  });
});

describe('approvals: a revoked approver (issue 13, finding 4)', () => {
  const staging = { namespace: 'staging-shop', name: 'web', replicas: 2 };

  it('a once grant approved by an approver revoked since is not executed; the retry is held again', async () => {
    const known = withCredentials();
    const id = await hold('agent');
    await p.gate.approvals.approve(id, known.bob!, {});
    delete known.bob;
    // No sweep ran: the check at execution alone must stop it.
    const retry = await p.call('agent', 'scale_deployment', scale);
    expect(retry._meta).toMatchObject({ approval_status: 'pending' });
    expect(PendingResultMetaSchema.parse(retry._meta).approval_request_id).not.toBe(id);
    expect(p.cluster.mutations).toEqual([]);
    expect(await p.store.get(id)).toMatchObject({
      status: 'cancelled',
      status_reason: "approver 'bob' who approved this grant was revoked",
      executions: [],
    });
    expect(p.events.flatMap((e) => (e.type === 'approval_cancelled' ? [e.request.id] : []))).toContain(id);
  });

  it('a window grant stops letting calls through once its approver is revoked', async () => {
    const known = withCredentials();
    const id = await hold('agent', staging);
    await p.gate.approvals.approve(id, known.bob!, { validity: { window: '1h' } });
    expect((await p.call('agent', 'scale_deployment', staging))._meta).toMatchObject({
      approval_request_id: id,
    });
    expect(p.cluster.mutations).toHaveLength(1);
    delete known.bob;
    const later = await p.call('agent', 'scale_deployment', { ...staging, replicas: 3 });
    expect(later._meta).toMatchObject({ approval_status: 'pending' });
    expect(p.cluster.mutations).toHaveLength(1);
    expect(await p.store.get(id)).toMatchObject({
      status: 'cancelled',
      status_reason: "approver 'bob' who approved this grant was revoked",
    });
  });

  it('the sweep cancels the unused grants a revoked approver gave, naming the revocation', async () => {
    const known = withCredentials();
    const once = await hold('agent');
    await p.gate.approvals.approve(once, known.bob!, {});
    const windowed = await hold('agent', staging);
    await p.gate.approvals.approve(windowed, known.bob!, { validity: { window: '1h' } });
    const byAlice = await hold('agent', { ...scale, replicas: 7 });
    await p.gate.approvals.approve(byAlice, known.alice!, {});
    delete known.bob;
    const cancelled = await p.gate.approvals.reconcileIdentities();
    expect(cancelled.map((request) => request.id).sort()).toEqual([once, windowed].sort());
    for (const id of [once, windowed]) {
      expect(await p.gate.approvals.get(id)).toMatchObject({
        status: 'cancelled',
        status_reason: "approver 'bob' who approved this grant was revoked",
      });
    }
    expect((await p.gate.approvals.get(byAlice)).status).toBe('approved');
  });

  it('an approver who lost the right (no approver role any more) voids the grant at execution', async () => {
    const known = withCredentials();
    const id = await hold('agent');
    await p.gate.approvals.approve(id, known.bob!, {});
    known.bob = { ...known.bob!, roles: ['caller'] };
    const retry = await p.call('agent', 'scale_deployment', scale);
    expect(retry._meta).toMatchObject({ approval_status: 'pending' });
    expect(p.cluster.mutations).toEqual([]);
    expect(await p.store.get(id)).toMatchObject({
      status: 'cancelled',
      status_reason:
        "approver 'bob' who approved this grant no longer may approve it (roles now: caller; the rule names role:approver, admins as fallback)",
    });
  });

  it('rotating the approver’s token keeps the grants they gave (same identity)', async () => {
    const known = withCredentials();
    const id = await hold('agent');
    await p.gate.approvals.approve(id, known.bob!, {});
    known.bob = { ...known.bob!, credential: 'bob-token-2' };
    expect(await p.gate.approvals.reconcileIdentities()).toEqual([]);
    const retry = await p.call('agent', 'scale_deployment', scale);
    expect(retry._meta).toMatchObject({ approval_request_id: id, execution_id: expect.any(String) });
    expect(p.cluster.mutations).toHaveLength(1);
  });
});

describe('approvals: revoking an unused grant', () => {
  it('an approver takes back an approved grant before the retry; the retry is then held again', async () => {
    withCredentials();
    const id = await hold('agent');
    await p.gate.approvals.approve(id, identities.alice!, {});
    const revoked = await p.gate.approvals.revokeGrant(id, identities.bob!, 'wrong Deployment');
    expect(revoked).toMatchObject({
      status: 'cancelled',
      status_reason: 'grant revoked by bob: wrong Deployment',
    });
    const retry = await p.call('agent', 'scale_deployment', scale);
    expect(retry._meta).toMatchObject({ approval_status: 'pending' });
    expect(p.cluster.mutations).toEqual([]);
  });

  it('refuses to revoke a pending request or a used grant, and the requester cannot revoke', async () => {
    withCredentials();
    const id = await hold('agent');
    await expect(p.gate.approvals.revokeGrant(id, identities.alice!, 'x')).rejects.toMatchObject({
      code: 'conflict',
    });
    await p.gate.approvals.approve(id, identities.alice!, {});
    await expect(p.gate.approvals.revokeGrant(id, identities.agent!, 'x')).rejects.toMatchObject({
      code: 'forbidden',
    });
    await p.call('agent', 'scale_deployment', scale);
    await expect(p.gate.approvals.revokeGrant(id, identities.alice!, 'x')).rejects.toMatchObject({
      code: 'conflict',
      message: expect.stringContaining('executed'),
    });
  });
});

describe('approvals: self-approval through POST /approvals', () => {
  it('names the pending request of that call, not a placeholder', async () => {
    withCredentials();
    const id = await hold('local');
    await expect(
      p.gate.approvals.create(identities.local!, {
        requester: 'local',
        tool: 'scale_deployment',
        arguments: scale,
      }),
    ).rejects.toMatchObject({
      code: 'forbidden',
      message: `Identity 'local' made approval request '${id}' for this call and cannot decide it; another approver must.`,
    });
    await expect(
      p.gate.approvals.create(identities.local!, {
        requester: 'local',
        tool: 'scale_deployment',
        arguments: { ...scale, replicas: 9 },
      }),
    ).rejects.toMatchObject({ message: expect.not.stringContaining('(new)') });
    expect(textOf(await p.call('agent', 'get_version', {}))).toContain('Kubernetes');
  });
});

describe('approvals: what changed since the preview (check)', () => {
  it('re-reads the target and names what differs from the preview the request was made with', async () => {
    p = createTestPipeline();
    const id = await hold('agent');
    expect(await p.gate.approvals.check(id)).toMatchObject({ id, stale: false, warnings: [] });
    // Someone scales the Deployment after the preview "from 3 to 5".
    const deployment = p.cluster.deployment('shop', 'checkout');
    deployment.spec!.replicas = 4;
    const check = await p.gate.approvals.check(id);
    expect(check.stale).toBe(true);
    expect(check.warnings).toEqual([expect.stringContaining('replicas.from now 4, the preview said 3')]);
    expect(check.warnings[0]).toContain('the gate re-checks at execution and refuses it as stale');
    // Read-only: nothing was sent, the request is still pending and unchanged.
    expect(p.cluster.mutations).toEqual([]);
    expect((await p.gate.approvals.get(id)).status).toBe('pending');
  });

  it('warns that a change freeze is on: the call is refused until it lifts', async () => {
    p = createTestPipeline();
    const id = await hold('agent');
    await p.gate.approvals.setFreeze(identities.root!, true, 'Black Friday');
    const check = await p.gate.approvals.check(id);
    expect(check.stale).toBe(false);
    expect(check.warnings).toEqual([
      'A change freeze is on (by root: Black Friday): the call will be refused until it lifts.',
    ]);
  });

  it('a second freeze on keeps who froze and since when, changes the reason, and says what it was', async () => {
    p = createTestPipeline();
    const first = await p.gate.approvals.setFreeze(identities.root!, true, 'Black Friday');
    expect(first).toMatchObject({
      frozen: true,
      by: 'root',
      reason: 'Black Friday',
      since: '2025-01-31T02:10:00.000Z',
    });
    expect(first.previous).toBeUndefined();
    p.clock.advance(60_000);
    const again = await p.gate.approvals.setFreeze(identities.root!, true, 'again');
    expect(again).toMatchObject({
      frozen: true,
      reason: 'again',
      by: 'root',
      since: '2025-01-31T02:10:00.000Z',
      previous: { reason: 'Black Friday', by: 'root', since: '2025-01-31T02:10:00.000Z' },
    });
    expect((await p.gate.approvals.getFreeze()).since).toBe('2025-01-31T02:10:00.000Z');
    // Off, then on again: a new freeze with its own since.
    await p.gate.approvals.setFreeze(identities.root!, false, null);
    const fresh = await p.gate.approvals.setFreeze(identities.root!, true, 'new');
    expect(fresh.since).toBe('2025-01-31T02:11:00.000Z');
    expect(fresh.previous).toBeUndefined();
  });

  it('names an unknown request', async () => {
    p = createTestPipeline();
    await expect(p.gate.approvals.check('apr_0000000000000000')).rejects.toMatchObject({ code: 'not_found' });
  });
});
