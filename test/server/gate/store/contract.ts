/**
 * The contract every `ApprovalStore` implementation must pass (SQLite now; PostgreSQL later runs the
 * same suite with its own factory). Each test gets a fresh, empty store.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  APPROVAL_STATUSES,
  type ApprovalRequest,
  type ApprovalStatus,
} from '../../../../server/gate/approval-request.ts';
import {
  REQUEST_EVENTS,
  transitionFor,
  TRANSITIONS,
  type RequestEvent,
} from '../../../../server/gate/store/transitions.ts';
import type { ApprovalStore, NewApprovalRequest } from '../../../../server/gate/store/types.ts';

const T0 = new Date('2025-01-31T02:10:00.000Z');
const at = (minutes: number) => new Date(T0.getTime() + minutes * 60_000);
let sequence = 0;

export function newRequest(
  overrides: Partial<ApprovalRequest> = {},
  keys: Partial<NewApprovalRequest> = {},
): NewApprovalRequest {
  sequence += 1;
  return {
    request: {
      id: `apr_${String(sequence).padStart(16, '0')}`,
      status: 'pending',
      requester: 'agent',
      created_by: 'agent',
      cluster: { context: 'kind', server: 'https://127.0.0.1:6443' },
      tool: 'scale_deployment',
      risk: 'destructive',
      arguments: { namespace: 'shop', name: 'web', replicas: 5 },
      requested_arguments: { namespace: 'shop', name: 'web', replicas: 5 },
      reason: null,
      policy: {
        rule: 'default:destructive',
        rules: ['default:destructive'],
        reason: 'r',
        validity: 'once',
        approvers: ['role:approver'],
      },
      preview: null,
      created_at: T0.toISOString(),
      expires_at: at(30).toISOString(),
      decision: null,
      grant: null,
      ...overrides,
    },
    requestedKey: 'key-requested',
    resolvedKey: 'key-resolved',
    scope: 'scope-1',
    requesterCredential: '',
    ...keys,
  };
}

const allow = (minutes = 1) => ({
  decision: 'allow' as const,
  by: 'alice',
  at: at(minutes).toISOString(),
  reason: null,
  admin_fallback: false,
});
const binding = {
  requester: 'agent',
  credential: '',
  cluster: 'kind',
  clusterServer: 'https://127.0.0.1:6443',
};

export function describeApprovalStoreContract(
  name: string,
  open: () => ApprovalStore | Promise<ApprovalStore>,
): void {
  describe(`ApprovalStore contract: ${name}`, () => {
    let store: ApprovalStore;
    beforeEach(async () => {
      store = await open();
    });
    afterEach(async () => {
      await store.close();
    });

    it('creates a pending request and reuses it for the same requester, cluster and key while pending', async () => {
      const first = await store.createOrReusePending(newRequest(), T0);
      expect(first.reused).toBe(false);
      expect(first.request).toMatchObject({ status: 'pending', executions: [] });
      const again = await store.createOrReusePending(newRequest(), at(5));
      expect(again).toMatchObject({ reused: true, request: { id: first.request.id } });
      const otherRequester = await store.createOrReusePending(newRequest({ requester: 'other' }), at(5));
      const otherCluster = await store.createOrReusePending(
        newRequest({ cluster: { context: 'prod', server: 's' } }),
        at(5),
      );
      expect(otherRequester.reused || otherCluster.reused).toBe(false);
      // After expiry a new one is created.
      const late = await store.createOrReusePending(newRequest(), at(31));
      expect(late.reused).toBe(false);
      expect((await store.get(first.request.id))?.status).toBe('expired');
    });

    it('reuses the pending request of the same resolved call made with other arguments, and ends duplicates', async () => {
      const named = await store.createOrReusePending(
        newRequest({}, { requestedKey: 'named', resolvedKey: 'r6' }),
        T0,
      );
      const defaulted = await store.createOrReusePending(
        newRequest({}, { requestedKey: 'default', resolvedKey: 'r6' }),
        at(1),
      );
      expect(defaulted).toMatchObject({ reused: true, request: { id: named.request.id } });
      // A resolution the effect check refuses: superseded by the new request, which stands alone.
      const changed = await store.createOrReusePending(
        newRequest({}, { requestedKey: 'default', resolvedKey: 'r6' }),
        at(2),
        () => 'the effect changed',
      );
      expect(changed.reused).toBe(false);
      expect(changed.superseded).toMatchObject({
        id: named.request.id,
        status: 'superseded',
        superseded_by: changed.request.id,
      });
      expect((await store.list({ status: 'pending' })).map((r) => r.id)).toEqual([changed.request.id]);
    });

    it('decides once: approve sets the grant, a second decision fails, an expired one fails', async () => {
      const { request } = await store.createOrReusePending(newRequest(), T0);
      const grant = { validity: 'once' as const, expires_at: at(31).toISOString() };
      const decided = await store.decide(request.id, allow(), grant, at(1));
      expect(decided).toMatchObject({
        ok: true,
        request: { status: 'approved', grant, decision: { by: 'alice' } },
      });
      expect(await store.decide(request.id, allow(), grant, at(2))).toMatchObject({
        ok: false,
        reason: 'not_pending',
      });
      expect(await store.decide('apr_missing', allow(), grant, at(2))).toEqual({
        ok: false,
        reason: 'not_found',
      });
      const late = await store.createOrReusePending(newRequest({}, { requestedKey: 'other' }), T0);
      expect(await store.decide(late.request.id, allow(), grant, at(30))).toMatchObject({
        ok: false,
        reason: 'expired',
      });
      expect(await store.withdraw(late.request.id, at(30))).toMatchObject({ ok: false, reason: 'expired' });
    });

    it('filters lists by status, tool and requester, newest first', async () => {
      const a = await store.createOrReusePending(
        newRequest({ created_at: at(1).toISOString() }, { requestedKey: 'a' }),
        T0,
      );
      const b = await store.createOrReusePending(
        newRequest(
          { created_at: at(2).toISOString(), tool: 'pause_rollout', requester: 'bot' },
          { requestedKey: 'b' },
        ),
        T0,
      );
      await store.withdraw(a.request.id, at(3));
      expect((await store.list()).map((r) => r.id)).toEqual([b.request.id, a.request.id]);
      expect((await store.list({ status: 'withdrawn' })).map((r) => r.id)).toEqual([a.request.id]);
      expect((await store.list({ tool: 'pause_rollout' })).map((r) => r.id)).toEqual([b.request.id]);
      expect((await store.list({ requester: 'agent' })).map((r) => r.id)).toEqual([a.request.id]);
    });

    it('delivers a denial once, for the requested or resolved key, before the original expiry', async () => {
      const { request } = await store.createOrReusePending(newRequest(), T0);
      await store.decide(request.id, { ...allow(), decision: 'deny', reason: 'no' }, null, at(1));
      expect(
        await store.claimDenial({ ...binding, requester: 'other' }, 'key-requested', at(2)),
      ).toBeUndefined();
      expect((await store.claimDenial(binding, 'key-resolved', at(2)))?.id).toBe(request.id);
      expect(await store.claimDenial(binding, 'key-requested', at(3))).toBeUndefined();
      const second = await store.createOrReusePending(
        newRequest({}, { requestedKey: 'k2', resolvedKey: 'k2' }),
        T0,
      );
      await store.decide(second.request.id, { ...allow(), decision: 'deny', reason: 'no' }, null, at(1));
      expect(await store.claimDenial(binding, 'k2', at(31))).toBeUndefined();
    });

    it('consumes a once grant exactly once, even when many executions start together', async () => {
      const { request } = await store.createOrReusePending(newRequest(), T0);
      await store.decide(request.id, allow(), { validity: 'once', expires_at: at(31).toISOString() }, at(1));
      expect((await store.findApprovedCall(binding, 'key-requested', at(2)))?.id).toBe(request.id);
      const starts = await Promise.all(
        Array.from({ length: 20 }, (_, i) =>
          store.beginExecution(
            {
              id: `exe_${i}`,
              ...binding,
              tool: 'scale_deployment',
              callKey: 'key-resolved',
              arguments: {},
              authorization: 'once',
              requestId: request.id,
            },
            at(2),
          ),
        ),
      );
      const started = starts.filter((s) => s.ok);
      expect(started).toHaveLength(1);
      expect(starts.filter((s) => !s.ok).every((s) => !s.ok && s.reason === 'not_approved')).toBe(true);
      expect((await store.get(request.id))?.status).toBe('executing');
      expect((await store.findApprovedCall(binding, 'key-requested', at(2)))?.status).toBe('executing');
      expect((await store.listExecuting()).map((e) => e.id)).toHaveLength(1);
      const execution = started[0]!.ok ? started[0]!.execution : undefined;
      await store.finishExecution(
        execution!.id,
        { status: 'succeeded', outcome: 'done', result: { content: [] } },
        at(3),
      );
      const after = await store.get(request.id);
      expect(after).toMatchObject({
        status: 'executed',
        executions: [{ status: 'succeeded', outcome: 'done' }],
      });
      expect(await store.findApprovedCall(binding, 'key-requested', at(4))).toBeUndefined();
      expect(await store.listExecuting()).toEqual([]);
    });

    it('expires an unused grant and never starts an execution from it', async () => {
      const { request } = await store.createOrReusePending(newRequest(), T0);
      await store.decide(request.id, allow(), { validity: 'once', expires_at: at(10).toISOString() }, at(1));
      const late = await store.beginExecution(
        {
          id: 'exe_late',
          ...binding,
          tool: 'scale_deployment',
          callKey: 'k',
          arguments: {},
          authorization: 'once',
          requestId: request.id,
        },
        at(11),
      );
      expect(late).toMatchObject({ ok: false, reason: 'not_approved' });
      expect((await store.expireDue(at(11))).map((r) => r.id)).toEqual([request.id]);
      expect((await store.get(request.id))?.status).toBe('expired');
    });

    it('finds window grants by binding, tool and scope, and refuses concurrent identical window executions', async () => {
      const { request } = await store.createOrReusePending(newRequest(), T0);
      await store.decide(
        request.id,
        allow(),
        { validity: { window: '15m' }, expires_at: at(16).toISOString() },
        at(1),
      );
      expect((await store.findWindowGrant(binding, 'scale_deployment', 'scope-1', at(5)))?.id).toBe(
        request.id,
      );
      expect(await store.findWindowGrant(binding, 'scale_deployment', 'scope-2', at(5))).toBeUndefined();
      expect(
        await store.findWindowGrant({ ...binding, cluster: 'prod' }, 'scale_deployment', 'scope-1', at(5)),
      ).toBeUndefined();
      expect(await store.findWindowGrant(binding, 'scale_deployment', 'scope-1', at(16))).toBeUndefined();
      const input = {
        ...binding,
        tool: 'scale_deployment',
        callKey: 'k9',
        arguments: {},
        authorization: 'window' as const,
        requestId: request.id,
      };
      expect(await store.beginExecution({ ...input, id: 'exe_w1' }, at(5))).toMatchObject({ ok: true });
      expect(await store.beginExecution({ ...input, id: 'exe_w2' }, at(5))).toMatchObject({
        ok: false,
        reason: 'duplicate',
      });
      expect(await store.beginExecution({ ...input, id: 'exe_w3', callKey: 'k10' }, at(5))).toMatchObject({
        ok: true,
      });
      expect(await store.beginExecution({ ...input, id: 'exe_w4', callKey: 'k11' }, at(17))).toMatchObject({
        ok: false,
        reason: 'not_approved',
      });
      // A window grant does not follow the request status.
      expect((await store.get(request.id))?.status).toBe('approved');
    });

    it('cancels an approved grant (used window or unused once) with its reason, and nothing else', async () => {
      const { request: once } = await store.createOrReusePending(newRequest(), T0);
      await store.decide(once.id, allow(), { validity: 'once', expires_at: at(30).toISOString() }, at(1));
      const cancelled = await store.cancelGrant(
        once.id,
        "approver 'alice' who approved this grant was revoked",
      );
      expect(cancelled).toMatchObject({
        status: 'cancelled',
        status_reason: "approver 'alice' who approved this grant was revoked",
      });
      expect(await store.cancelGrant(once.id, 'again')).toBeUndefined();
      const { request: pending } = await store.createOrReusePending(
        newRequest({}, { requestedKey: 'other-key' }),
        T0,
      );
      expect(await store.cancelGrant(pending.id, 'x')).toBeUndefined();
      expect((await store.get(pending.id))?.status).toBe('pending');
    });

    it('refuses a reused idempotency key and an upstream replay inside the window', async () => {
      const base = {
        ...binding,
        tool: 'pause_rollout',
        callKey: 'k',
        arguments: {},
        authorization: 'policy' as const,
      };
      expect(
        await store.beginExecution({ ...base, id: 'exe_i1', idempotencyKey: 'key-1' }, T0),
      ).toMatchObject({ ok: true });
      const reused = await store.beginExecution({ ...base, id: 'exe_i2', idempotencyKey: 'key-1' }, T0);
      expect(reused).toMatchObject({ ok: false, reason: 'idempotency_key_used', existing: { id: 'exe_i1' } });
      expect((await store.findExecutionByIdempotencyKey('agent', 'pause_rollout', 'key-1'))?.id).toBe(
        'exe_i1',
      );
      expect(await store.findExecutionByIdempotencyKey('other', 'pause_rollout', 'key-1')).toBeUndefined();
      expect(
        await store.beginExecution(
          { ...base, id: 'exe_i3', requester: 'other', idempotencyKey: 'key-1' },
          T0,
        ),
      ).toMatchObject({
        ok: true,
      });
      const upstream = { ...base, authorization: 'upstream' as const };
      expect(
        await store.beginExecution({ ...upstream, id: 'exe_u1', replaySince: at(-10) }, T0),
      ).toMatchObject({ ok: true });
      expect(
        await store.beginExecution({ ...upstream, id: 'exe_u2', replaySince: at(-5) }, at(5)),
      ).toMatchObject({
        ok: false,
        reason: 'duplicate',
        existing: { id: 'exe_u1' },
      });
      expect(
        await store.beginExecution({ ...upstream, id: 'exe_u3', replaySince: at(1) }, at(11)),
      ).toMatchObject({ ok: true });
    });

    it('keeps the freeze switch', async () => {
      expect(await store.getFreeze()).toEqual({ frozen: false, reason: null, by: null, since: null });
      expect(await store.setFreeze(true, 'incident', 'root', T0)).toEqual({
        frozen: true,
        reason: 'incident',
        by: 'root',
        since: T0.toISOString(),
      });
      expect((await store.setFreeze(false, null, 'root', at(1))).frozen).toBe(false);
    });
    it('moves a request only as the transition table allows: every store operation from every status', async () => {
      const refused: string[] = [];
      for (const status of APPROVAL_STATUSES) {
        for (const event of STORE_EVENTS) {
          const fresh = await open();
          try {
            const { request, execution } = await reach(fresh, status);
            expect(request.status, `reached ${status}`).toBe(status);
            await STORE_OPERATIONS[event](fresh, request, execution);
            const after = (await fresh.get(request.id))?.status;
            const expected = transitionFor(status, event)?.to ?? status;
            expect(after, `${status} × ${event}`).toBe(expected);
            if (!transitionFor(status, event)) refused.push(`${status} ${event}`);
          } finally {
            await fresh.close();
          }
        }
      }
      // Every status × event the table does not list was tried and refused.
      expect(refused).toHaveLength(APPROVAL_STATUSES.length * STORE_EVENTS.length - TRANSITIONS.length);
    });
  });
}

/** Every table event, each as the store operation that makes it. */
const STORE_EVENTS = REQUEST_EVENTS;

const onceGrant = { validity: 'once' as const, expires_at: at(30).toISOString() } as ApprovalRequest['grant'];

function beginOnce(id: string, requestId: string) {
  return {
    id,
    ...binding,
    tool: 'scale_deployment',
    callKey: 'key-resolved',
    arguments: {},
    authorization: 'once' as const,
    requestId,
  };
}

/** A new request in `status`, by store operations only (and the execution that consumed it). */
async function reach(
  store: ApprovalStore,
  status: ApprovalStatus,
): Promise<{ request: ApprovalRequest; execution?: string }> {
  const { request } = await store.createOrReusePending(newRequest(), T0);
  const id = request.id;
  const decide = (allowed: boolean) =>
    store.decide(id, allowed ? allow() : { ...allow(), decision: 'deny' }, allowed ? onceGrant : null, at(1));
  const done = async (execution?: string) => ({
    request: (await store.get(id))!,
    ...(execution && { execution }),
  });
  if (status === 'pending') return done();
  if (status === 'denied') return (await decide(false), done());
  if (status === 'withdrawn') return (await store.withdraw(id, at(1)), done());
  if (status === 'expired') return (await store.expireDue(at(31)), done());
  if (status === 'superseded') {
    await store.createOrReusePending(newRequest(), at(1), () => 'effect changed');
    return done();
  }
  await decide(true);
  if (status === 'approved') return done();
  if (status === 'cancelled') return (await store.revokeGrant(id, 'revoked', at(1)), done());
  await store.beginExecution(beginOnce('exe_reach', id), at(2));
  if (status === 'executing') return done('exe_reach');
  const finished = { executed: 'succeeded', failed: 'failed', stale: 'stale' } as const;
  const outcome = finished[status as keyof typeof finished];
  await store.finishExecution('exe_reach', { status: outcome, outcome }, at(3));
  return done('exe_reach');
}

type Operation = (store: ApprovalStore, request: ApprovalRequest, execution?: string) => Promise<unknown>;

/** The store operation of each event, at a time its guard holds for a live request. */
const STORE_OPERATIONS: Record<RequestEvent, Operation> = {
  approve: (store, r) => store.decide(r.id, allow(2), onceGrant, at(2)),
  deny: (store, r) => store.decide(r.id, { ...allow(2), decision: 'deny' }, null, at(2)),
  withdraw: (store, r) => store.withdraw(r.id, at(2)),
  expire: (store) => store.expireDue(at(45)),
  supersede: (store) => store.createOrReusePending(newRequest(), at(2), () => 'effect changed'),
  cancel: (store, r) => store.cancelForRequester(r.requester, undefined, 'revoked'),
  revoke: (store, r) => store.revokeGrant(r.id, 'taken back', at(2)),
  cancel_grant: (store, r) => store.cancelGrant(r.id, 'approver left'),
  begin: (store, r) => store.beginExecution(beginOnce('exe_op', r.id), at(2)),
  succeed: (store, _r, e) => finishIf(store, e, 'succeeded'),
  fail: (store, _r, e) => finishIf(store, e, 'failed'),
  go_stale: (store, _r, e) => finishIf(store, e, 'stale'),
};

/** Finishes the execution that consumed the request (again, for one that already finished). */
async function finishIf(
  store: ApprovalStore,
  execution: string | undefined,
  status: 'succeeded' | 'failed' | 'stale',
) {
  if (execution) await store.finishExecution(execution, { status, outcome: status }, at(4));
}
