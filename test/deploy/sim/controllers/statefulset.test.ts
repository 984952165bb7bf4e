/**
 * StatefulSet controller behaviour on the simulated cluster directly (no HTTP), against the
 * upstream semantics (pkg/controller/statefulset): OrderedReady creates one Pod at a time and
 * Parallel all at once, a partition keeps lower ordinals at the current revision, OnDelete replaces
 * only deleted Pods, unused revisions beyond revisionHistoryLimit go, claims follow the retention
 * policy, and deleting the set collects its Pods and revisions but keeps its claims.
 */
import { describe, expect, it } from 'vitest';
import { SimulatedCluster } from '../../../../deploy/sim/cluster.ts';
import { revisionData, hashControllerRevision, fnv1_32 } from '../../../../deploy/sim/controllers/history.ts';
import { loadScenario } from '../../../../deploy/sim/scenario/load.ts';
import type { ControllerRevision, Pod, StatefulSet } from '../../../../deploy/sim/types.ts';

function emptyCluster() {
  const cluster = new SimulatedCluster({
    timeScale: 0,
    scenario: loadScenario({
      name: 'empty',
      description: 'empty',
      symptom: 'none',
      namespaces: ['shop'],
      fates: [{ match: { image: 'db:bad' }, fate: { kind: 'crashLoop' } }],
      expected: { diagnosis: 'none', action: 'none' },
    }),
  });
  const set = () => cluster.store.get<StatefulSet>('statefulsets', 'shop', 'db')!;
  const pods = () => cluster.store.list<Pod>('pods', 'shop');
  const live = () => pods().filter((pod) => !pod.metadata.deletionTimestamp);
  const revisionOf = (pod: Pod) => pod.metadata.labels!['controller-revision-hash'];
  const revisions = () =>
    cluster.store
      .list<ControllerRevision>('controllerrevisions', 'shop')
      .map((r) => r.revision)
      .sort();
  const update = (change: (s: StatefulSet) => void) => {
    const next = set();
    change(next);
    cluster.store.update('statefulsets', next);
    cluster.reconcile();
  };
  const advance = (ms: number) => {
    cluster.clock.advance(ms);
    cluster.reconcile();
  };
  const image = (value: string) => (s: StatefulSet) => {
    s.spec.template.spec.containers[0]!.image = value;
  };
  /** Creates the set and lets the controllers see it (time does not move). */
  const create = (object: StatefulSet) => {
    cluster.createObject(object);
    cluster.reconcile();
  };
  return { cluster, create, set, pods, live, revisionOf, revisions, update, advance, image };
}

function db(spec: Partial<StatefulSet['spec']> = {}): StatefulSet {
  return {
    apiVersion: 'apps/v1',
    kind: 'StatefulSet',
    metadata: { name: 'db', namespace: 'shop' },
    spec: {
      replicas: 3,
      selector: { matchLabels: { app: 'db' } },
      template: {
        metadata: { labels: { app: 'db' } },
        spec: { containers: [{ name: 'db', image: 'db:1' }] },
      },
      volumeClaimTemplates: [
        {
          metadata: { name: 'data' },
          spec: { accessModes: ['ReadWriteOnce'], resources: { requests: { storage: '2Gi' } } },
        },
      ],
      ...spec,
    },
  };
}

describe('StatefulSet controller', () => {
  it('OrderedReady creates db-0, db-1, db-2 one at a time, each after the previous is ready', () => {
    const { create, pods, advance } = emptyCluster();
    create(db());
    expect(pods().map((pod) => pod.metadata.name)).toEqual(['db-0']);
    for (let step = 0; step < 60; step++) advance(1_000);
    const all = pods();
    expect(all.map((pod) => pod.metadata.name)).toEqual(['db-0', 'db-1', 'db-2']);
    // Each Pod was created no earlier than its predecessor turned Ready.
    const readySince = (pod: Pod) =>
      Date.parse(
        pod.status!.conditions!.find((condition) => condition.type === 'Ready')!.lastTransitionTime!,
      );
    for (let ordinal = 1; ordinal < 3; ordinal++)
      expect(Date.parse(all[ordinal]!.metadata.creationTimestamp!)).toBeGreaterThanOrEqual(
        readySince(all[ordinal - 1]!),
      );
  });

  it('Parallel creates every Pod at once and scales down all at once', () => {
    const { cluster, create, pods, live, update, advance } = emptyCluster();
    create(db({ podManagementPolicy: 'Parallel' }));
    expect(pods().map((pod) => pod.metadata.name)).toEqual(['db-0', 'db-1', 'db-2']);
    advance(30_000);
    update((s) => (s.spec.replicas = 1));
    expect(
      pods()
        .filter((pod) => pod.metadata.deletionTimestamp)
        .map((pod) => pod.metadata.name),
    ).toEqual(['db-1', 'db-2']);
    advance(5_000);
    expect(live().map((pod) => pod.metadata.name)).toEqual(['db-0']);
    expect(cluster.store.list('persistentvolumeclaims', 'shop').map((claim) => claim.metadata.name)).toEqual([
      'data-db-0',
      'data-db-1',
      'data-db-2',
    ]);
  });

  it('a partition updates only the ordinals at or above it; currentRevision waits for all', () => {
    const { cluster, create, set, live, revisionOf, update, advance, image } = emptyCluster();
    create(db({ updateStrategy: { type: 'RollingUpdate', rollingUpdate: { partition: 2 } } }));
    advance(60_000);
    const first = set().status!.currentRevision!;
    update(image('db:2'));
    advance(60_000);
    const second = set().status!.updateRevision!;
    expect(live().map(revisionOf)).toEqual([first, first, second]);
    expect(set().status).toMatchObject({
      currentRevision: first,
      updateRevision: second,
      currentReplicas: 2,
      updatedReplicas: 1,
    });
    // A deleted Pod below the partition comes back at the current revision.
    cluster.store.markDeleting('pods', 'shop', 'db-0', 0);
    advance(60_000);
    expect(live().map(revisionOf)).toEqual([first, first, second]);
    update((s) => (s.spec.updateStrategy!.rollingUpdate!.partition = 0));
    advance(120_000);
    expect(live().map(revisionOf)).toEqual([second, second, second]);
    expect(set().status).toMatchObject({ currentRevision: second, currentReplicas: 3, updatedReplicas: 3 });
  });

  it('OnDelete replaces a Pod only when it is deleted, and keeps currentRevision', () => {
    const { cluster, create, set, live, revisionOf, update, advance, image } = emptyCluster();
    create(db({ updateStrategy: { type: 'OnDelete' } }));
    advance(60_000);
    const first = set().status!.currentRevision!;
    update(image('db:2'));
    advance(120_000);
    const second = set().status!.updateRevision!;
    expect(live().map(revisionOf)).toEqual([first, first, first]);
    cluster.store.markDeleting('pods', 'shop', 'db-1', 0);
    advance(60_000);
    expect(live().map(revisionOf)).toEqual([first, second, first]);
    expect(set().status).toMatchObject({ currentRevision: first, updatedReplicas: 1, currentReplicas: 2 });
  });

  it('a rolling update stops at a broken Pod', () => {
    const { create, set, live, revisionOf, update, advance, image } = emptyCluster();
    create(db());
    advance(60_000);
    const first = set().status!.currentRevision!;
    update(image('db:bad'));
    advance(300_000);
    const bad = set().status!.updateRevision!;
    expect(live().map(revisionOf)).toEqual([first, first, bad]);
    expect(set().status).toMatchObject({ readyReplicas: 2, updatedReplicas: 1, currentReplicas: 2 });
  });

  it('keeps revisionHistoryLimit unused revisions and renumbers one that returns', () => {
    const { create, set, revisions, update, advance, image } = emptyCluster();
    create(db({ revisionHistoryLimit: 1 }));
    advance(60_000);
    for (const tag of ['db:2', 'db:3', 'db:4']) {
      update(image(tag));
      advance(180_000);
    }
    // Revision 4 in use, revision 3 kept as history, 1 and 2 deleted.
    expect(revisions()).toEqual([3, 4]);
    update(image('db:3'));
    advance(180_000);
    expect(revisions()).toEqual([4, 5]);
    expect(set().status!.updateRevision).toBe(set().status!.currentRevision);
  });

  it('scaling down keeps claims (Retain); whenScaled Delete removes them with the Pod', () => {
    const { cluster, create, update, advance } = emptyCluster();
    create(db());
    advance(60_000);
    const claims = () =>
      cluster.store.list('persistentvolumeclaims', 'shop').map((claim) => claim.metadata.name);
    update((s) => (s.spec.replicas = 2));
    advance(30_000);
    expect(claims()).toEqual(['data-db-0', 'data-db-1', 'data-db-2']);
    update((s) => {
      s.spec.persistentVolumeClaimRetentionPolicy = { whenDeleted: 'Retain', whenScaled: 'Delete' };
      s.spec.replicas = 1;
    });
    advance(30_000);
    expect(claims()).toEqual(['data-db-0', 'data-db-2']);
  });

  it('deleting the set collects its Pods and revisions; the claims stay (whenDeleted Retain)', () => {
    const { cluster, create, pods, advance } = emptyCluster();
    create(db());
    advance(60_000);
    cluster.store.delete('statefulsets', 'shop', 'db');
    cluster.reconcile();
    advance(60_000);
    expect(pods()).toEqual([]);
    expect(cluster.store.list('controllerrevisions', 'shop')).toEqual([]);
    expect(cluster.store.list('persistentvolumeclaims', 'shop')).toHaveLength(3);
  });
});

describe('controller history', () => {
  it('FNV-1 32 is Go’s hash/fnv New32 (test vectors)', () => {
    expect(fnv1_32(Buffer.from(''))).toBe(0x811c9dc5);
    expect(fnv1_32(Buffer.from('a'))).toBe(0x050c5d7e);
    expect(fnv1_32(Buffer.from('foobar'))).toBe(0x31f0b262);
  });

  it('revision data is the Go encoding of the template: sorted keys, creationTimestamp null, $patch replace', () => {
    const data = revisionData({
      metadata: { labels: { app: 'db' } },
      spec: { containers: [{ name: 'db', image: 'db:1' }] },
    });
    expect(JSON.stringify(data)).toBe(
      '{"spec":{"template":{"$patch":"replace","metadata":{"creationTimestamp":null,"labels":{"app":"db"}},"spec":{"containers":[{"image":"db:1","name":"db","resources":{}}]}}}}',
    );
    expect(hashControllerRevision(data, 0)).toMatch(/^[bcdfghjklmnpqrstvwxz2456789]+$/);
    expect(hashControllerRevision(data, 0)).not.toBe(hashControllerRevision(data, 1));
  });
});
