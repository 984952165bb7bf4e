/**
 * `trust_upstream_approval` verified against the harness (server/gate/upstream.ts), through the
 * gate, with the real verifier reading the faithful fake TrueForge harness: an engineer's allow in
 * the harness UI runs the call once; a replay, a flipped deny, a stale allow, another call's allow
 * or no harness approval at all (a leaked connector token) is held. Upstream executions are recorded
 * as such: an approved request with `upstream`, `client_ref` and decision by `upstream:<identity>`.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createUpstreamVerifier } from '../../../server/gate/upstream.ts';
import type { Identity } from '../../../server/pipeline.ts';
import { FakeTrueForge } from '../../helpers/fake-trueforge.ts';
import { createTestPipeline, identities, textOf, type TestPipeline } from './fixtures/pipeline.ts';
import { fixtureTools, restartDeployment } from './fixtures/tools.ts';

const MINUTE = 60_000;
const scale = { namespace: 'shop', name: 'checkout', replicas: 5 };

let p: TestPipeline;
let harness: FakeTrueForge;
let clock: { now: Date };
let known: Record<string, Identity>;

beforeEach(async () => {
  clock = { now: new Date('2025-01-31T02:10:00.000Z') };
  harness = await new FakeTrueForge({ now: () => clock.now }).start();
  known = {
    ...identities,
    harness: { ...identities.harness!, upstreamHarness: { url: harness.url } },
  };
  p = createTestPipeline({
    identities: known,
    tools: [...fixtureTools, restartDeployment],
    upstreamVerifier: createUpstreamVerifier(),
  });
  // One clock for the server and the harness.
  clock = p.clock;
});
afterEach(async () => {
  await p.close();
  await harness.close();
});

const ui = (id: string, args: Record<string, unknown>, name = 'scale_deployment', decision?: 'deny') =>
  harness.uiApproval([{ id, name, arguments: args }], decision ? { [id]: decision } : {});

describe('upstream approval, verified against the harness', () => {
  it('runs a UI-approved call once, recorded and stamped as an upstream execution; its replay is not run', async () => {
    const { sessionId, pausedTurnId } = await ui('call_scale_1', scale);
    const first = await p.call('harness', 'scale_deployment', scale);
    expect(first._meta).toMatchObject({ approval_status: 'executed' });
    const id = String(first._meta?.approval_request_id);
    expect(p.cluster.mutations).toHaveLength(1);
    expect(await p.gate.approvals.get(id)).toMatchObject({
      status: 'executed',
      requester: 'harness',
      created_by: 'upstream:harness',
      decision: { decision: 'allow', by: 'upstream:harness' },
      upstream: { identity: 'harness', trusted_by: 'trust_upstream_approval' },
      client_ref: { session_id: sessionId, turn_id: pausedTurnId, tool_call_id: 'call_scale_1' },
    });

    // The harness replays the same tool call (previous_turn_id): the same allow, already used.
    const replay = await p.call('harness', 'scale_deployment', scale);
    expect(replay._meta?.approval_status).not.toBe('executed'); // a no-op now: nothing to hold
    expect(p.cluster.mutations).toHaveLength(1);
    // A change that is never a no-op: its replay is held, and says why.
    await ui('call_restart_10', { namespace: 'shop', name: 'checkout' }, 'restart_deployment');
    expect(
      (await p.call('harness', 'restart_deployment', { namespace: 'shop', name: 'checkout' }))._meta,
    ).toMatchObject({
      approval_status: 'executed',
    });
    p.clock.advance(11 * MINUTE); // past the replay window: only the consumed approval holds it
    const again = await p.call('harness', 'restart_deployment', { namespace: 'shop', name: 'checkout' });
    expect(again._meta).toMatchObject({ approval_status: 'pending' });
    expect(textOf(again)).toContain('The harness approval of this call was not honoured');
    expect(p.cluster.mutations).toHaveLength(2);
  });

  it('holds a call no harness approval matches: a leaked connector token cannot run a change alone', async () => {
    const direct = await p.call('harness', 'scale_deployment', scale);
    expect(direct._meta).toMatchObject({ approval_status: 'pending' });
    expect(textOf(direct)).toMatch(
      /The harness approval of this call was not honoured: the harness at http:\/\/127\.0\.0\.1:\d+ shows no allow of this exact scale_deployment call in the last 2m/,
    );
    // Another call's allow does not count, nor does an allow of other arguments.
    await ui('call_scale_2', { ...scale, replicas: 6 });
    await ui('call_restart_3', { namespace: 'shop', name: 'checkout' }, 'restart_deployment');
    expect((await p.call('harness', 'scale_deployment', scale))._meta).toMatchObject({
      approval_status: 'pending',
    });
    expect(p.cluster.mutations).toEqual([]);
  });

  it('does not honour a deny flipped to allow by a replay, nor an allow older than max_age', async () => {
    const { sessionId, pausedTurnId } = await ui('call_scale_4', scale, 'scale_deployment', 'deny');
    // previous_turn_id replay of the paused turn, the deny flipped to allow (OBSERVED.md, defect 1).
    await fetch(`${harness.url}/api/v1/sessions/${sessionId}/turns`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        input: [
          {
            type: 'user.tool_approval',
            thread_id: 'main',
            tool_call_id: 'call_scale_4',
            approval: { status: 'allow' },
          },
        ],
        previous_turn_id: pausedTurnId,
        stream: false,
      }),
    });
    expect((await p.call('harness', 'scale_deployment', scale))._meta).toMatchObject({
      approval_status: 'pending',
    });

    await ui('call_scale_5', { ...scale, replicas: 7 });
    p.clock.advance(3 * MINUTE);
    const stale = await p.call('harness', 'scale_deployment', { ...scale, replicas: 7 });
    expect(stale._meta).toMatchObject({ approval_status: 'pending' });
    expect(p.cluster.mutations).toEqual([]);
  });

  it('keeps the replay window for a second approval of the same change, keyed on the identity across a token rotation', async () => {
    await ui('call_restart_6', { namespace: 'shop', name: 'checkout' }, 'restart_deployment');
    const first = await p.call('harness', 'restart_deployment', { namespace: 'shop', name: 'checkout' });
    expect(first._meta).toMatchObject({ approval_status: 'executed' });
    // The same identity with a rotated token; a second UI approval of the same change (another name
    // for the same Deployment), inside the replay window: not executed twice.
    known.harness = { ...known.harness!, credential: 'rotated-token' };
    await ui('call_restart_7', { namespace: 'shop', name: 'svc-checkout' }, 'restart_deployment');
    const again = await p.call('harness', 'restart_deployment', { namespace: 'shop', name: 'svc-checkout' });
    expect(again._meta).toMatchObject({ approval_status: 'replayed' });
    expect(textOf(again)).toMatch(
      /^Not executed again: an identical call from this identity ran inside the replay window/,
    );
    expect(p.cluster.mutations).toHaveLength(1);
    // Past the window, a fresh approval runs.
    p.clock.advance(11 * MINUTE);
    await ui('call_restart_8', { namespace: 'shop', name: 'checkout' }, 'restart_deployment');
    const later = await p.call('harness', 'restart_deployment', { namespace: 'shop', name: 'checkout' });
    expect(later._meta).toMatchObject({ approval_status: 'executed' });
    expect(p.cluster.mutations).toHaveLength(2);
  });

  it('still applies policy denials to a trusted identity', async () => {
    await ui('call_scale_9', { namespace: 'kube-system', name: 'coredns', replicas: 1 });
    const denied = await p.call('harness', 'scale_deployment', {
      namespace: 'kube-system',
      name: 'coredns',
      replicas: 1,
    });
    expect(denied.isError).toBe(true);
    expect(p.cluster.mutations).toEqual([]);
  });
});
