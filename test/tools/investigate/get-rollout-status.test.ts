import { describe, expect, it } from 'vitest';
import {
  getRolloutStatus,
  type GetRolloutStatusOutput,
} from '../../../tools/investigate/get-rollout-status.ts';
import { deployment } from '../../helpers/fixtures.ts';
import { TEST_CONTEXT, mockApi, useMockedCluster } from '../../helpers/kube.ts';
import { callTool } from '../../helpers/tools.ts';

const path = '/apis/apps/v1/namespaces/shop/deployments/web';
const kube = useMockedCluster();

const status = async (args: Record<string, unknown>, signal?: AbortSignal) => {
  const ctx = { ...kube.context(), ...(signal && { signal }) };
  const output = await callTool(getRolloutStatus, { namespace: 'shop', name: 'web', ...args }, ctx);
  return { text: output.text, s: output.structured as GetRolloutStatusOutput };
};

describe('get_rollout_status', () => {
  it('complete', async () => {
    mockApi()
      .get(path)
      .reply(200, deployment({ name: 'web', revision: 4 }));
    const { text, s } = await status({});
    expect(s).toMatchObject({
      state: 'complete',
      reason: null,
      revision: 4,
      waited_seconds: 0,
      cluster: { context: TEST_CONTEXT },
    });
    expect(text.split('\n').slice(0, 2)).toEqual([
      expect.stringContaining('rollout of Deployment shop/web: COMPLETE'),
      'deployment "web" successfully rolled out',
    ]);
  });

  it('failed with the condition reason, even when some replicas are available', async () => {
    mockApi()
      .get(path)
      .reply(
        200,
        deployment({
          name: 'web',
          updated: 1,
          conditions: [
            {
              type: 'Progressing',
              status: 'False',
              reason: 'ProgressDeadlineExceeded',
              message: 'ReplicaSet "web-9" has timed out progressing.',
            },
          ],
        }),
      );
    const { text, s } = await status({});
    expect(s).toMatchObject({
      state: 'failed',
      reason: 'ProgressDeadlineExceeded',
      progressing_condition: { status: 'False', reason: 'ProgressDeadlineExceeded' },
    });
    expect(text).toContain('FAILED (ProgressDeadlineExceeded)');
    expect(text).toContain(
      'deployment "web" exceeded its progress deadline: ReplicaSet "web-9" has timed out progressing.',
    );
  });

  it('progressing with x of y updated', async () => {
    mockApi()
      .get(path)
      .reply(200, deployment({ name: 'web', updated: 1 }));
    const { text, s } = await status({});
    expect(s).toMatchObject({ state: 'progressing', replicas: { desired: 3, updated: 1 } });
    expect(text).toContain(
      'Waiting for deployment "web" rollout to finish: 1 out of 3 new replicas have been updated...',
    );
    expect(text).toContain('call again (wait_seconds up to 45)');
  });

  it('does not trust a stale status: a failed condition from an older generation is still progressing', async () => {
    mockApi()
      .get(path)
      .reply(
        200,
        deployment({
          name: 'web',
          generation: 6,
          observedGeneration: 5,
          conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }],
        }),
      );
    const { s } = await status({});
    expect(s).toMatchObject({ state: 'progressing', generation: 6, observed_generation: 5 });
    expect(s.message).toContain('spec update to be observed');
  });

  it('paused', async () => {
    mockApi()
      .get(path)
      .reply(200, deployment({ name: 'web', updated: 1, paused: true }));
    expect((await status({})).s.state).toBe('paused');
  });

  it('with wait_seconds re-reads until the rollout settles', async () => {
    mockApi()
      .get(path)
      .reply(200, deployment({ name: 'web', updated: 2 }))
      .get(path)
      .reply(200, deployment({ name: 'web' }));
    const { s } = await status({ wait_seconds: 5 });
    expect(s.state).toBe('complete');
    expect(s.waited_seconds).toBeGreaterThanOrEqual(0.9);
  });

  it('stops waiting when the request is cancelled', async () => {
    mockApi()
      .get(path)
      .reply(200, deployment({ name: 'web', updated: 2 }));
    const controller = new AbortController();
    setTimeout(() => controller.abort(), 100);
    const { s } = await status({ wait_seconds: 45 }, controller.signal);
    expect(s.state).toBe('progressing');
    expect(s.waited_seconds).toBeLessThan(5);
  });

  it.each([-1, 46, 2.5])('rejects wait_seconds %j naming the range', (wait) => {
    const result = getRolloutStatus.input.safeParse({ namespace: 'shop', name: 'web', wait_seconds: wait });
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]).toMatchObject({
      path: ['wait_seconds'],
      message: 'must be a whole number of seconds from 0 to 45',
    });
  });
});
