/**
 * Deployment controller behaviour on the simulated cluster directly (no HTTP): rolling update
 * arithmetic, Recreate, minReadySeconds and Available, Pods replaced after deletion, garbage
 * collection, and event expiry.
 */
import { describe, expect, it } from 'vitest';
import { SimulatedCluster } from '../../../../deploy/sim/cluster.ts';
import { EVENT_TTL_MS } from '../../../../deploy/sim/controllers/events.ts';
import { loadScenario } from '../../../../deploy/sim/scenario/load.ts';
import type { CoreEvent, Deployment, Pod, ReplicaSet } from '../../../../deploy/sim/types.ts';

function emptyCluster() {
  const cluster = new SimulatedCluster({
    timeScale: 0,
    scenario: loadScenario({
      name: 'empty',
      description: 'empty',
      symptom: 'none',
      namespaces: ['shop'],
      fates: [{ match: { image: 'web:bad' }, fate: { kind: 'crashLoop' } }],
      expected: { diagnosis: 'none', action: 'none' },
    }),
  });
  const deployment = () => cluster.store.get<Deployment>('deployments', 'shop', 'web')!;
  const replicaSets = () => cluster.store.list<ReplicaSet>('replicasets', 'shop');
  const pods = () => cluster.store.list<Pod>('pods', 'shop');
  const update = (change: (d: Deployment) => void) => {
    const next = deployment();
    change(next);
    cluster.store.update('deployments', next);
    cluster.reconcile();
  };
  const advance = (ms: number) => {
    cluster.clock.advance(ms);
    cluster.reconcile();
  };
  return { cluster, deployment, replicaSets, pods, update, advance };
}

function web(spec: Partial<Deployment['spec']> = {}): Deployment {
  return {
    apiVersion: 'apps/v1',
    kind: 'Deployment',
    metadata: { name: 'web', namespace: 'shop' },
    spec: {
      replicas: 4,
      selector: { matchLabels: { app: 'web' } },
      template: {
        metadata: { labels: { app: 'web' } },
        spec: { containers: [{ name: 'web', image: 'web:1' }] },
      },
      ...spec,
    },
  };
}

describe('Deployment controller', () => {
  it('rolls out within maxSurge and maxUnavailable', () => {
    const { cluster, update, replicaSets, pods, deployment, advance } = emptyCluster();
    cluster.createObject(
      web({ strategy: { type: 'RollingUpdate', rollingUpdate: { maxSurge: 1, maxUnavailable: 0 } } }),
    );
    cluster.reconcile();
    advance(30_000);
    expect(deployment().status?.availableReplicas).toBe(4);
    update((d) => (d.spec.template.spec.containers[0]!.image = 'web:2'));
    let maxPods = 0;
    let minAvailable = Infinity;
    for (let second = 0; second < 60; second++) {
      advance(1_000);
      maxPods = Math.max(maxPods, pods().filter((pod) => !pod.metadata.deletionTimestamp).length);
      minAvailable = Math.min(minAvailable, deployment().status?.availableReplicas ?? 0);
    }
    expect(maxPods).toBe(5);
    expect(minAvailable).toBeGreaterThanOrEqual(4);
    expect(deployment().status).toMatchObject({ replicas: 4, updatedReplicas: 4, availableReplicas: 4 });
    expect(
      replicaSets()
        .map((rs) => rs.spec.replicas)
        .sort(),
    ).toEqual([0, 4]);
  });

  it('Recreate scales the old ReplicaSet to zero before the new one starts', () => {
    const { cluster, update, replicaSets, pods, advance } = emptyCluster();
    cluster.createObject(web({ strategy: { type: 'Recreate' } }));
    cluster.reconcile();
    advance(30_000);
    update((d) => (d.spec.template.spec.containers[0]!.image = 'web:2'));
    const images = new Set(
      pods()
        .filter((pod) => !pod.metadata.deletionTimestamp)
        .map((pod) => pod.spec.containers[0]!.image),
    );
    expect(images.has('web:2')).toBe(false);
    advance(30_000);
    expect(pods().map((pod) => pod.spec.containers[0]!.image)).toEqual(Array(4).fill('web:2'));
    expect(
      replicaSets()
        .map((rs) => rs.spec.replicas)
        .sort(),
    ).toEqual([0, 4]);
  });

  it('counts a Pod available only after minReadySeconds', () => {
    const { cluster, deployment, advance } = emptyCluster();
    cluster.createObject(web({ replicas: 1, minReadySeconds: 30 }));
    cluster.reconcile();
    advance(10_000);
    expect(deployment().status).toMatchObject({ readyReplicas: 1 });
    expect(deployment().status?.availableReplicas).toBeUndefined();
    expect(deployment().status?.conditions?.find((c) => c.type === 'Available')?.status).toBe('False');
    advance(30_000);
    expect(deployment().status?.availableReplicas).toBe(1);
    expect(deployment().status?.conditions?.find((c) => c.type === 'Available')?.status).toBe('True');
  });

  it('replaces a deleted Pod and garbage-collects the ReplicaSets and Pods of a deleted Deployment', () => {
    const { cluster, pods, replicaSets, advance } = emptyCluster();
    cluster.createObject(web({ replicas: 2 }));
    cluster.reconcile();
    advance(10_000);
    const victim = pods()[0]!;
    cluster.store.markDeleting('pods', 'shop', victim.metadata.name, 30);
    cluster.reconcile();
    advance(5_000);
    expect(pods().map((pod) => pod.metadata.name)).not.toContain(victim.metadata.name);
    expect(pods()).toHaveLength(2);
    cluster.store.delete('deployments', 'shop', 'web');
    cluster.reconcile();
    advance(5_000);
    expect(replicaSets()).toEqual([]);
    expect(pods()).toEqual([]);
  });

  it('aggregates repeated events into count and expires them an hour after their last occurrence', () => {
    const { cluster, update, advance } = emptyCluster();
    cluster.createObject(web({ replicas: 1 }));
    cluster.reconcile();
    update((d) => (d.spec.template.spec.containers[0]!.image = 'web:bad'));
    advance(10 * 60_000);
    const backOff = cluster.store
      .list<CoreEvent>('events', 'shop')
      .find((event) => event.reason === 'BackOff')!;
    expect(backOff.count).toBeGreaterThan(3);
    expect(Date.parse(backOff.lastTimestamp!)).toBeGreaterThan(Date.parse(backOff.firstTimestamp!));
    update((d) => (d.spec.template.spec.containers[0]!.image = 'web:1'));
    advance(EVENT_TTL_MS + 120_000);
    expect(
      cluster.store
        .list<CoreEvent>('events', 'shop')
        .some((event) => event.metadata.name === backOff.metadata.name),
    ).toBe(false);
  });
});
