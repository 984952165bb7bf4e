/**
 * get_rollout_status and get_rollout_history with kind StatefulSet / DaemonSet, and history's
 * `revision` detail for all kinds (issue 15), against nock on the real REST paths.
 */
import { describe, expect, it } from 'vitest';
import {
  getRolloutHistory,
  type GetRolloutHistoryOutput,
} from '../../../tools/investigate/get-rollout-history.ts';
import {
  getRolloutStatus,
  type GetRolloutStatusOutput,
} from '../../../tools/investigate/get-rollout-status.ts';
import { deployment, replicaSet } from '../../helpers/fixtures.ts';
import { mockApi, useMockedCluster } from '../../helpers/kube.ts';
import { APPS, listOf, mockTargetHealth } from '../../helpers/remediation.ts';
import { callTool, callToolError } from '../../helpers/tools.ts';
import { controllerRevision, mockRevisioned, workload } from '../../helpers/workloads.ts';

const kube = useMockedCluster();

function postgres(status: Record<string, unknown>, strategy?: Record<string, unknown>) {
  const sts = workload({
    kind: 'StatefulSet',
    name: 'postgres',
    image: 'db/postgres:16.2-bad',
    replicas: 3,
    status: { observedGeneration: 4, replicas: 3, ...status },
    ...(strategy && { strategy }),
  });
  const revisions = [
    {
      ...controllerRevision(sts, 4, 'db/postgres:16.1'),
      metadata: {
        ...(controllerRevision(sts, 4, 'db/postgres:16.1').metadata as object),
        annotations: { 'kubernetes.io/change-cause': 'upgrade to 16.1' },
      },
    },
    controllerRevision(sts, 5, 'db/postgres:16.2-bad'),
  ];
  return { sts, revisions };
}

const status = async (args: Record<string, unknown>) => {
  const output = await callTool(getRolloutStatus, { namespace: 'shop', ...args }, kube.context());
  return { text: output.text, s: output.structured as GetRolloutStatusOutput };
};

describe('get_rollout_status for StatefulSets and DaemonSets', () => {
  it('waits on a partitioned rolling update and names both revisions', async () => {
    const { sts, revisions } = postgres(
      { readyReplicas: 3, updatedReplicas: 1, currentRevision: 'postgres-h4', updateRevision: 'postgres-h5' },
      { type: 'RollingUpdate', rollingUpdate: { partition: 1 } },
    );
    mockRevisioned(sts, revisions);
    const { s, text } = await status({ name: 'postgres', kind: 'StatefulSet' });
    expect(s).toMatchObject({
      kind: 'StatefulSet',
      state: 'progressing',
      message: 'Waiting for partitioned roll out to finish: 1 out of 2 new pods have been updated...',
      revision: 5,
      controller_revisions: {
        current: 'postgres-h4',
        update: 'postgres-h5',
        current_number: 4,
        update_number: 5,
      },
    });
    expect(text).toContain('rollout of StatefulSet shop/postgres: PROGRESSING');
    expect(text).toContain(
      'currentRevision postgres-h4 (revision 4), updateRevision postgres-h5 (revision 5)',
    );
    // What decides whether a broken Pod blocks the controller (the forced-rollback case).
    expect(s.strategy).toEqual({
      type: 'RollingUpdate',
      partition: 1,
      pod_management_policy: 'OrderedReady',
    });
    expect(text).toContain('updateStrategy RollingUpdate (partition 1), podManagementPolicy OrderedReady');
  });

  it('waits for ready Pods first, says a partitioned roll out is complete, and cannot wait for OnDelete', async () => {
    let { sts, revisions } = postgres({ readyReplicas: 1, updatedReplicas: 3 });
    mockRevisioned(sts, revisions);
    expect((await status({ name: 'postgres', kind: 'StatefulSet' })).s.message).toBe(
      'Waiting for 2 pods to be ready...',
    );
    ({ sts, revisions } = postgres({ readyReplicas: 3, updatedReplicas: 3 }));
    mockRevisioned(sts, revisions);
    expect((await status({ name: 'postgres', kind: 'StatefulSet' })).s).toMatchObject({
      state: 'complete',
      message: 'partitioned roll out complete: 3 new pods have been updated...',
    });
    ({ sts, revisions } = postgres({ readyReplicas: 3 }, { type: 'OnDelete' }));
    mockRevisioned(sts, revisions);
    const onDelete = await status({ name: 'postgres', kind: 'StatefulSet', wait_seconds: 5 });
    expect(onDelete.s.state).toBe('unsupported');
    expect(onDelete.s.strategy).toMatchObject({ type: 'OnDelete', partition: 0 });
    expect(onDelete.s.message).toContain('rollout status is only available for RollingUpdate strategy type');
  });

  it('gives the DaemonSet verdicts', async () => {
    const ds = workload({
      kind: 'DaemonSet',
      name: 'node-agent',
      image: 'ops/agent:2',
      status: {
        observedGeneration: 4,
        desiredNumberScheduled: 3,
        updatedNumberScheduled: 3,
        numberAvailable: 2,
        numberReady: 2,
      },
    });
    mockRevisioned(ds, [controllerRevision(ds, 1, 'ops/agent:1'), controllerRevision(ds, 2, 'ops/agent:2')]);
    const { s } = await status({ name: 'node-agent', kind: 'DaemonSet' });
    expect(s).toMatchObject({
      state: 'progressing',
      message: 'Waiting for daemon set "node-agent" rollout to finish: 2 of 3 updated pods are available...',
      revision: 2,
      replicas: { desired: 3, updated: 3, ready: 2, available: 2 },
      strategy: { type: 'RollingUpdate', partition: null, pod_management_policy: null },
    });
  });
});

describe('get_rollout_history for StatefulSets and with revision', () => {
  it('lists ControllerRevisions newest first with change-causes, and shows one revision against the current', async () => {
    const { sts, revisions } = postgres({});
    mockRevisioned(sts, revisions);
    const output = await callTool(
      getRolloutHistory,
      { namespace: 'shop', name: 'postgres', kind: 'StatefulSet', revision: 4 },
      kube.context(),
    );
    const h = output.structured as GetRolloutHistoryOutput;
    expect(
      h.revisions.map((r) => [r.revision, r.current, r.replica_set, r.pod_template_hash, r.change_cause]),
    ).toEqual([
      [5, true, 'postgres-h5', 'h5', null],
      [4, false, 'postgres-h4', 'h4', 'upgrade to 16.1'],
    ]);
    expect(h.revision_detail).toMatchObject({
      revision: 4,
      current: false,
      changes_from_current: [{ kind: 'image', from: 'db/postgres:16.2-bad', to: 'db/postgres:16.1' }],
    });
    expect(output.text).toContain('StatefulSet shop/postgres revision 4 — Pod Template:');
    expect(output.text).toContain('image: db/postgres:16.1');
    expect(output.text).toContain('Rolling back to revision 4 would change:');
    mockRevisioned(sts, revisions);
    const missing = await callToolError(
      getRolloutHistory,
      { namespace: 'shop', name: 'postgres', kind: 'StatefulSet', revision: 9 },
      kube.context(),
    );
    expect(missing.message).toBe(
      'Revision 9 of StatefulSet shop/postgres not found; its revisions are 4, 5.',
    );
  });

  it('shows one Deployment revision too', async () => {
    const dep = deployment({ name: 'web', image: 'shop/web:2', revision: 2 });
    const sets = [1, 2].map((revision) =>
      replicaSet({ deployment: dep as never, revision, hash: `h${revision}`, image: `shop/web:${revision}` }),
    );
    mockApi()
      .get(`${APPS}/shop/deployments/web`)
      .reply(200, dep)
      .get(`${APPS}/shop/replicasets`)
      .query(true)
      .reply(200, listOf('ReplicaSetList', sets));
    mockTargetHealth(dep as never, [], [], 'app=web');
    const output = await callTool(
      getRolloutHistory,
      { namespace: 'shop', name: 'web', revision: 1 },
      kube.context(),
    );
    const h = output.structured as GetRolloutHistoryOutput;
    expect(h.revision_detail?.changes_from_current).toMatchObject([
      { kind: 'image', from: 'shop/web:2', to: 'shop/web:1' },
    ]);
    expect(output.text).toContain('Deployment shop/web revision 1 — Pod Template:');
  });
});
