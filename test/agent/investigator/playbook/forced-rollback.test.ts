/**
 * The forced-rollback check (agent/investigator/playbook/forced-rollback.ts): which Pod an
 * OrderedReady StatefulSet waits on after a rollback, and when the controller finishes by itself.
 */
import { describe, expect, it } from 'vitest';
import type { PodView } from '../../../../agent/investigator/evidence.ts';
import {
  findStuckPod,
  podNameSelector,
  type StatefulSetStatus,
} from '../../../../agent/investigator/playbook/forced-rollback.ts';

const status = (overrides: Partial<StatefulSetStatus> = {}): StatefulSetStatus => ({
  state: 'progressing',
  message: 'Waiting for 1 pods to be ready...',
  revision: 4,
  generation: 5,
  observed_generation: 5,
  replicas: { desired: 3 },
  controller_revisions: { update_number: 4 },
  strategy: { type: 'RollingUpdate', partition: 0, pod_management_policy: 'OrderedReady' },
  ...overrides,
});

const pod = (
  name: string,
  revision: number | null,
  ready: boolean,
  extra: Partial<PodView> = {},
): PodView => ({
  name,
  phase: 'Running',
  status: ready ? 'Running' : 'CrashLoopBackOff',
  ready_containers: ready ? 1 : 0,
  total_containers: 1,
  restarts: ready ? 0 : 7,
  created: null,
  revision,
  containers: [],
  ...extra,
});

const stuckSet = [pod('postgres-0', 4, true), pod('postgres-1', 4, true), pod('postgres-2', 3, false)];

describe('findStuckPod', () => {
  it('names the first not-ready Pod in ordinal order when it runs another revision than the update revision', () => {
    expect(findStuckPod('shop', 'postgres', status(), stuckSet)).toEqual({
      pod: 'postgres-2',
      ordinal: 2,
      revision: 3,
      updateRevision: 4,
      status: 'CrashLoopBackOff',
      line: expect.stringMatching(
        /^Pod shop\/postgres-2 still runs revision 3 and is not ready \(CrashLoopBackOff\) while StatefulSet shop\/postgres rolls back to revision 4: with podManagementPolicy OrderedReady/,
      ),
    });
    // Ordinal order, not name order: postgres-10 comes after postgres-9.
    const many = Array.from({ length: 11 }, (_, i) => pod(`postgres-${i}`, 4, true));
    many[10] = pod('postgres-10', 3, false);
    many[9] = pod('postgres-9', 3, false);
    expect(findStuckPod('shop', 'postgres', status({ replicas: { desired: 11 } }), many)?.pod).toBe(
      'postgres-9',
    );
  });

  it('leaves the controller alone when it can finish by itself', () => {
    const none = (s: StatefulSetStatus, pods: PodView[] = stuckSet) =>
      findStuckPod('shop', 'postgres', s, pods);
    // Parallel: the controller deletes a Pod not at the update revision before it waits on it.
    expect(
      none(status({ strategy: { type: 'RollingUpdate', partition: 0, pod_management_policy: 'Parallel' } })),
    ).toBeUndefined();
    // OnDelete: no rolling update at all (a human decides which Pods to delete).
    expect(
      none(status({ strategy: { type: 'OnDelete', partition: 0, pod_management_policy: 'OrderedReady' } })),
    ).toBeUndefined();
    // The rollback is not observed yet, or the rollout is no longer progressing.
    expect(none(status({ observed_generation: 4 }))).toBeUndefined();
    expect(none(status({ state: 'complete' }))).toBeUndefined();
    // The waiting Pod already runs the update revision (still starting, or the restored one fails too).
    expect(
      none(status(), [pod('postgres-0', 4, true), pod('postgres-1', 4, true), pod('postgres-2', 4, false)]),
    ).toBeUndefined();
    // The Pod the controller waits on is a healthy-revision one below the broken one: nothing to delete yet.
    expect(
      none(status(), [pod('postgres-0', 4, true), pod('postgres-1', 4, false), pod('postgres-2', 3, false)]),
    ).toBeUndefined();
    // Below the partition the controller keeps the current revision: deleting would not help.
    expect(
      none(
        status({ strategy: { type: 'RollingUpdate', partition: 3, pod_management_policy: 'OrderedReady' } }),
      ),
    ).toBeUndefined();
    // Already terminating; or its revision is unknown; or outside the replicas.
    expect(
      none(status(), [
        pod('postgres-0', 4, true),
        pod('postgres-1', 4, true),
        pod('postgres-2', 3, false, { status: 'Terminating' }),
      ]),
    ).toBeUndefined();
    expect(
      none(status(), [
        pod('postgres-0', 4, true),
        pod('postgres-1', 4, true),
        pod('postgres-2', null, false),
      ]),
    ).toBeUndefined();
    expect(none(status({ replicas: { desired: 2 } }))).toBeUndefined();
    // Every Pod ready.
    expect(
      none(status(), [pod('postgres-0', 4, true), pod('postgres-1', 4, true), pod('postgres-2', 3, true)]),
    ).toBeUndefined();
  });

  it('defaults a missing podManagementPolicy to OrderedReady, as the API server does', () => {
    const s = status({ strategy: { type: 'RollingUpdate', partition: null, pod_management_policy: null } });
    expect(findStuckPod('shop', 'postgres', s, stuckSet)?.pod).toBe('postgres-2');
  });
});

describe('podNameSelector', () => {
  it("selects the set's Pods by the controller's pod-name label, ordinals 0 to replicas - 1, at most 50", () => {
    expect(podNameSelector('web', 3)).toBe('statefulset.kubernetes.io/pod-name in (web-0,web-1,web-2)');
    expect(podNameSelector('web', 0)).toBe('statefulset.kubernetes.io/pod-name in (web-0)');
    expect(podNameSelector('web', 500).split(',')).toHaveLength(50);
  });
});
