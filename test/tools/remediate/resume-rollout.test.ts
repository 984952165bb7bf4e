import { describe, expect, it } from 'vitest';
import { resumeRollout } from '../../../tools/remediate/resume-rollout.ts';
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

/** A paused Deployment at revision 7 whose template was changed (to `image`) while paused. */
function paused(image = 'shop/checkout:2.4.1') {
  const dep = deployment({ name: 'checkout', image, revision: 7, paused: true }) as Deployment;
  const sets = [6, 7].map((revision) =>
    replicaSet({
      deployment: dep as never,
      revision,
      hash: `h${revision}`,
      image: revision === 7 ? 'shop/checkout:2.4.1' : 'shop/checkout:2.4.0',
    }),
  ) as ReplicaSet[];
  return { dep, sets };
}

const api = useRemediationApi();

describe('resume_rollout', () => {
  it('is a reversible write tool with dry runs', () => {
    expect(resumeRollout.risk).toBe('write');
    expect(resumeRollout.supportsDryRun).toBe(true);
  });

  it('previews the template changes that resuming rolls out, and the revision they become', async () => {
    const { dep, sets } = paused('shop/checkout:2.5.0');
    mockObserve(dep, sets);
    const result = structured(
      await callTool(
        resumeRollout,
        { namespace: 'shop', name: 'checkout', dry_run: true },
        dryRunContext(api.cluster),
      ),
    );
    expect(api.unexpected).toEqual([]);
    expect(result).toMatchObject({
      status: 'preview',
      summary:
        'Resume rollouts of Deployment shop/checkout: the template changed while it was paused, so the controller rolls out revision 8 (shop/checkout:2.5.0) replacing revision 7 (shop/checkout:2.4.1)',
      new_revision: 8,
      effect: { paused_from: true, paused_to: false, revision: 7, new_revision: 8 },
    });
    expect(result.changes.map((c) => c.text)).toEqual([
      'spec.paused: true → false',
      'container app: image shop/checkout:2.4.1 → shop/checkout:2.5.0',
    ]);
  });

  it('says no Pod is replaced when nothing changed while paused, and sends paused: null as kubectl does', async () => {
    const { dep, sets } = paused();
    const scope = mockObserve(dep, sets)
      .patch(`${APPS}/shop/deployments/checkout`, { spec: { paused: null } })
      .query({ fieldManager: 'sentinel' })
      .matchHeader('content-type', 'application/strategic-merge-patch+json')
      .reply(
        200,
        edit(dep, (d) => delete d.spec!.paused),
      );
    const output = await callTool(
      resumeRollout,
      { namespace: 'shop', name: 'checkout' },
      executeContext(api.cluster),
    );
    scope.done();
    const result = structured(output);
    expect(result.summary).toBe(
      'Resume rollouts of Deployment shop/checkout at revision 7 (shop/checkout:2.4.1); no template change is waiting, so no Pod is replaced',
    );
    expect(result.new_revision).toBeUndefined();
    expect(result.status).toBe('applied');
  });

  it('is a no-op that says so when the Deployment is not paused', async () => {
    const { dep, sets } = paused();
    delete dep.spec!.paused;
    mockObserve(dep, sets);
    const output = await callTool(
      resumeRollout,
      { namespace: 'shop', name: 'checkout' },
      executeContext(api.cluster, 'ar-5'),
    );
    expect(api.unexpected).toEqual([]);
    expect(structured(output)).toMatchObject({
      status: 'no_op',
      summary: 'Deployment shop/checkout is not paused',
    });
  });
});
