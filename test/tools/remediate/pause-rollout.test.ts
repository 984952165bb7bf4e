import { describe, expect, it } from 'vitest';
import { pauseRollout } from '../../../tools/remediate/pause-rollout.ts';
import type { Deployment, ReplicaSet } from '../../../tools/kube/types.ts';
import { deployment, replicaSet } from '../../helpers/fixtures.ts';
import {
  APPS,
  dryRunContext,
  edit,
  executeContext,
  mockObserve,
  structured,
  useRemediationApi,
} from '../../helpers/remediation.ts';
import { callTool } from '../../helpers/tools.ts';

function checkout(extra: { paused?: boolean; updated?: number } = {}) {
  const dep = deployment({
    name: 'checkout',
    image: 'shop/checkout:2.4.1',
    revision: 7,
    ...extra,
  }) as Deployment;
  const sets = [
    replicaSet({ deployment: dep as never, revision: 7, hash: 'h7', image: 'shop/checkout:2.4.1' }),
  ] as ReplicaSet[];
  return { dep, sets };
}

const api = useRemediationApi();

describe('pause_rollout', () => {
  it('is a reversible write tool with dry runs', () => {
    expect(pauseRollout.risk).toBe('write');
    expect(pauseRollout.annotations).toMatchObject({ readOnlyHint: false, destructiveHint: false });
    expect(pauseRollout.supportsDryRun).toBe(true);
  });

  it('previews the pause and says a rollout in progress stops where it is', async () => {
    const { dep, sets } = checkout({ updated: 1 });
    mockObserve(dep, sets);
    const result = structured(
      await callTool(
        pauseRollout,
        { namespace: 'shop', name: 'checkout', dry_run: true },
        dryRunContext(api.cluster),
      ),
    );
    expect(api.unexpected).toEqual([]);
    expect(result).toMatchObject({
      status: 'preview',
      summary:
        'Pause rollouts of Deployment shop/checkout at revision 7 (shop/checkout:2.4.1): its Pods stay, template changes wait until resume_rollout',
      resolved_arguments: { namespace: 'shop', name: 'checkout' },
      effect: { tool: 'pause_rollout', paused_from: false, paused_to: true, revision: 7 },
    });
    expect(result.changes[0]!.text).toContain('A rollout is in progress and stops where it is');
  });

  it('sends the strategic merge patch kubectl sends, with attribution', async () => {
    const { dep, sets } = checkout();
    const scope = mockObserve(dep, sets)
      .patch(`${APPS}/shop/deployments/checkout`, {
        spec: { paused: true },
        metadata: {
          annotations: {
            'sentinel.dev/reason': 'hold the canary',
            'sentinel.dev/approval-request-id': 'ar-3',
          },
        },
      })
      .query({ fieldManager: 'sentinel' })
      .matchHeader('content-type', 'application/strategic-merge-patch+json')
      .reply(
        200,
        edit(dep, (d) => (d.spec!.paused = true)),
      );
    const result = structured(
      await callTool(
        pauseRollout,
        { namespace: 'shop', name: 'checkout', reason: 'hold the canary' },
        executeContext(api.cluster, 'ar-3'),
      ),
    );
    scope.done();
    expect(result).toMatchObject({ status: 'applied', rollout_status: { state: 'complete' } });
    expect(result.new_revision).toBeUndefined();
  });

  it('is a no-op that says so when already paused', async () => {
    const { dep, sets } = checkout({ paused: true });
    mockObserve(dep, sets);
    const output = await callTool(
      pauseRollout,
      { namespace: 'shop', name: 'checkout' },
      executeContext(api.cluster, 'ar-4'),
    );
    expect(api.unexpected).toEqual([]);
    expect(structured(output)).toMatchObject({
      status: 'no_op',
      summary: 'Deployment shop/checkout is already paused',
    });
    expect(output.text).toContain(
      'Nothing to do, nothing was sent: Deployment shop/checkout is already paused.',
    );
  });
});
