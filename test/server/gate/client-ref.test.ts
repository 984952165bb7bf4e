/**
 * Harness mode at the server: one human decision per harness tool call (`client_ref` on
 * `POST /approvals`), a "no" recorded where it is enforced, and what restricts an identity (its
 * denials, the upstream replay window) holding across a rotation of its token.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { clientRefKey, CreateApprovalBodySchema, type ClientRef } from '../../../server/gate/index.ts';
import type { Identity } from '../../../server/pipeline.ts';
import { createTestPipeline, identities, textOf, type TestPipeline } from './fixtures/pipeline.ts';

const scale = { namespace: 'shop', name: 'checkout', replicas: 5 };
const ref: ClientRef = {
  harness_url: 'http://127.0.0.1:8000',
  session_id: 'session-1',
  turn_id: 'turn-2.local',
  tool_call_id: 'call_scale_1',
};

let p: TestPipeline;
afterEach(async () => {
  await p.close();
});

function withCredentials(): Record<string, Identity> {
  const known: Record<string, Identity> = {};
  for (const [name, identity] of Object.entries(identities)) {
    known[name] = { ...identity, credential: `${name}-token-1` };
  }
  p = createTestPipeline({ identities: known });
  return known;
}

describe('POST /approvals with client_ref: one decision per harness tool call', () => {
  it('makes one grant: a second POST with the same ref returns the first request, and the call runs once', async () => {
    withCredentials();
    const body = { requester: 'agent', tool: 'scale_deployment', arguments: scale, client_ref: ref };
    const first = await p.gate.approvals.createOnce(identities.alice!, body);
    expect(first.created).toBe(true);
    const id = 'id' in first.answer ? first.answer.id : '';
    expect(first.answer).toMatchObject({ status: 'approved', client_ref: ref });

    // Another approver, another process, a wiped ledger: the same harness tool call.
    const second = await p.gate.approvals.createOnce(identities.bob!, {
      ...body,
      client_ref: { ...ref, turn_id: 'turn-9.local', harness_url: 'http://127.0.0.1:8000/api/v1/' },
    });
    expect(second).toMatchObject({ created: false, answer: { id, status: 'approved' } });
    expect(await p.store.list({ clientRef: clientRefKey(ref) })).toHaveLength(1);
    expect(await p.gate.approvals.list({ client_ref: clientRefKey(ref) })).toHaveLength(1);

    const run = await p.call('agent', 'scale_deployment', scale);
    expect(run._meta).toMatchObject({ approval_status: 'executed', approval_request_id: id });
    const again = await p.call('agent', 'scale_deployment', scale);
    expect(again._meta?.approval_status).not.toBe('executed');
    expect(p.cluster.mutations).toHaveLength(1);

    // Asked again after it ran: still the first request (now executed), still no grant.
    const late = await p.gate.approvals.createOnce(identities.alice!, body);
    expect(late).toMatchObject({ created: false, answer: { id, status: 'executed' } });
    expect(p.cluster.mutations).toHaveLength(1);
  });

  it('answers two concurrent POSTs for one ref with one request', async () => {
    withCredentials();
    const body = { requester: 'agent', tool: 'scale_deployment', arguments: scale, client_ref: ref };
    const answers = await Promise.all([
      p.gate.approvals.createOnce(identities.alice!, body),
      p.gate.approvals.createOnce(identities.bob!, body),
    ]);
    expect(answers.map((a) => a.created).sort()).toEqual([false, true]);
    const ids = answers.map((a) => ('id' in a.answer ? a.answer.id : ''));
    expect(new Set(ids).size).toBe(1);
    expect(p.events.filter((e) => e.type === 'approval_created')).toHaveLength(1);
  });

  it('refuses (409, naming the first request) a ref reused for another call', async () => {
    withCredentials();
    const first = await p.gate.approvals.create(identities.alice!, {
      requester: 'agent',
      tool: 'scale_deployment',
      arguments: scale,
      client_ref: ref,
    });
    const id = 'id' in first ? first.id : '';
    await expect(
      p.gate.approvals.create(identities.alice!, {
        requester: 'agent',
        tool: 'scale_deployment',
        arguments: { ...scale, replicas: 9 },
        client_ref: ref,
      }),
    ).rejects.toMatchObject({
      code: 'conflict',
      field: 'client_ref',
      message: expect.stringContaining(`approval request '${id}'`),
    });
  });

  it('records a denial for the exact call: the identical call gets the isError denial text, once', async () => {
    withCredentials();
    const denied = await p.gate.approvals.createOnce(identities.alice!, {
      requester: 'agent',
      tool: 'scale_deployment',
      arguments: scale,
      client_ref: ref,
      decision: 'deny',
      reason: 'fix forward instead',
    });
    expect(denied.answer).toMatchObject({
      status: 'denied',
      grant: null,
      decision: { decision: 'deny', by: 'alice', reason: 'fix forward instead' },
      client_ref: ref,
    });
    expect(p.events.map((e) => e.type)).toEqual(['approval_created', 'approval_decided']);

    const call = await p.call('agent', 'scale_deployment', scale);
    expect(call.isError).toBe(true);
    expect(textOf(call)).toContain('was denied by alice: fix forward instead');
    expect(textOf(call)).toContain('A human reviewed and declined this exact scale_deployment call');
    expect(textOf(call)).toContain('Do not attempt it again');
    expect(p.cluster.mutations).toEqual([]);

    // A later "yes" for the same harness tool call cannot turn the "no" into a grant.
    const yes = await p.gate.approvals.createOnce(identities.bob!, {
      requester: 'agent',
      tool: 'scale_deployment',
      arguments: scale,
      client_ref: ref,
    });
    expect(yes).toMatchObject({ created: false, answer: { status: 'denied' } });
  });

  it('requires a reason for a denial, naming the field', async () => {
    withCredentials();
    const parsed = CreateApprovalBodySchema.safeParse({
      requester: 'agent',
      tool: 'scale_deployment',
      decision: 'deny',
    });
    expect(parsed.success).toBe(false);
    expect(parsed.error?.issues[0]?.path).toEqual(['reason']);
  });
});

describe("POST /approvals with decision 'ask': the harness call put up for a decision anywhere", () => {
  const body = { requester: 'agent', tool: 'scale_deployment', arguments: scale, client_ref: ref };

  it('creates a pending request for the ref; a decision on the page decides the harness tool call', async () => {
    withCredentials();
    const held = await p.gate.approvals.createOnce(identities.alice!, { ...body, decision: 'ask' });
    expect(held.created).toBe(true);
    expect(held.answer).toMatchObject({
      status: 'pending',
      requester: 'agent',
      created_by: 'alice',
      decision: null,
      grant: null,
      client_ref: ref,
    });
    expect(p.events.map((e) => e.type)).toEqual(['approval_created']);
    const id = 'id' in held.answer ? held.answer.id : '';

    // The same harness tool call asked again (a resumed CLI): the one pending request.
    const again = await p.gate.approvals.createOnce(identities.alice!, { ...body, decision: 'ask' });
    expect(again).toMatchObject({ created: false, answer: { id, status: 'pending' } });

    // bob decides on the page; the terminal's later "yes" cannot overturn it.
    await p.gate.approvals.deny(id, identities.bob!, 'not during the sale');
    const yes = await p.gate.approvals.createOnce(identities.alice!, body);
    expect(yes).toMatchObject({
      created: false,
      answer: { id, status: 'denied', decision: { by: 'bob', reason: 'not during the sale' } },
    });
    expect(await p.store.list({ clientRef: clientRefKey(ref) })).toHaveLength(1);
  });

  it("turns the pending request into the terminal's decision: yes grants it, no denies it", async () => {
    withCredentials();
    const held = await p.gate.approvals.createOnce(identities.alice!, { ...body, decision: 'ask' });
    const id = 'id' in held.answer ? held.answer.id : '';
    const yes = await p.gate.approvals.createOnce(identities.alice!, body);
    expect(yes).toMatchObject({
      created: true,
      answer: { id, status: 'approved', decision: { decision: 'allow', by: 'alice' } },
    });
    const run = await p.call('agent', 'scale_deployment', scale);
    expect(run._meta).toMatchObject({ approval_status: 'executed', approval_request_id: id });

    const other = { ...ref, tool_call_id: 'call_scale_2' };
    const second = await p.gate.approvals.createOnce(identities.alice!, {
      ...body,
      client_ref: other,
      decision: 'ask',
    });
    const no = await p.gate.approvals.createOnce(identities.alice!, {
      ...body,
      client_ref: other,
      decision: 'deny',
      reason: 'enough replicas',
    });
    expect(no).toMatchObject({
      created: true,
      answer: {
        id: 'id' in second.answer ? second.answer.id : '',
        status: 'denied',
        decision: { by: 'alice', reason: 'enough replicas' },
      },
    });
  });

  it('lets only the requester or an approver of the call put it up', async () => {
    withCredentials();
    await expect(
      p.gate.approvals.createOnce(identities.other!, { ...body, decision: 'ask' }),
    ).rejects.toMatchObject({ code: 'forbidden' });
    const own = await p.gate.approvals.createOnce(identities.agent!, { ...body, decision: 'ask' });
    expect(own.answer).toMatchObject({ status: 'pending', created_by: 'agent' });
  });
});

describe('what restricts an identity survives a rotation of its token', () => {
  it('delivers a denial to the same identity after its token changed', async () => {
    const known = withCredentials();
    await p.gate.approvals.create(identities.alice!, {
      requester: 'agent',
      tool: 'scale_deployment',
      arguments: scale,
      decision: 'deny',
      reason: 'not during the sale',
    });
    known.agent = { ...known.agent!, credential: 'agent-token-2' };
    const call = await p.call('agent', 'scale_deployment', scale);
    expect(call.isError).toBe(true);
    expect(textOf(call)).toContain('not during the sale');
  });
});
