/**
 * StatefulSets, ControllerRevisions and PVCs on the simulator through the real kubectl (the
 * independent client): `get` Tables, `rollout history|status|undo|restart`, `scale`, `delete pod`,
 * with kubectl's own output. The clock is frozen (timeScale 0) and moved by the test, so every
 * step is deterministic; `rollout status` runs with `--watch=false`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator } from '../../../deploy/sim/index.ts';
import type { Simulator } from '../../../deploy/sim/index.ts';
import type { ControllerRevision, Pod, StatefulSet } from '../../../deploy/sim/types.ts';
import { runKubectl } from '../../helpers/sim-kubectl.ts';
import { describeWithTool } from '../../helpers/system-tools.ts';
import { workloadScenario } from '../../helpers/workload-scenario.ts';

describeWithTool('kubectl', 'StatefulSets on the simulator via kubectl', (kubectlPath) => {
  let sim: Simulator;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sentinel-sim-sts-'));
    sim = await startSimulator({
      scenario: workloadScenario(),
      timeScale: 0,
      kubeconfigPath: join(dir, 'kubeconfig'),
    });
  });

  afterAll(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function kubectl(...args: string[]): Promise<string> {
    const result = await runKubectl(kubectlPath, sim.kubeconfigPath!, dir, ['-n', 'shop', ...args]);
    if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${result.stderr}`);
    return result.stdout;
  }

  const store = () => sim.cluster.store;
  const revisions = () =>
    Object.fromEntries(
      store()
        .list<ControllerRevision>('controllerrevisions', 'shop')
        .filter((revision) => revision.metadata.ownerReferences?.[0]?.kind === 'StatefulSet')
        .map((revision) => [revision.metadata.name, revision.revision]),
    );
  const set = () => store().get<StatefulSet>('statefulsets', 'shop', 'db')!;
  const pods = () =>
    store()
      .list<Pod>('pods', 'shop')
      .filter((pod) => pod.metadata.name.startsWith('db-'));

  it('get shows the StatefulSet, its revisions and claims as a cluster prints them', async () => {
    const out = await kubectl('get', 'statefulsets,controllerrevisions,persistentvolumeclaims');
    expect(out).toMatch(/NAME\s+READY\s+AGE\nstatefulset\.apps\/db\s+2\/3\s+60m/);
    expect(out).toMatch(/NAME\s+CONTROLLER\s+REVISION\s+AGE/);
    expect(out).toMatch(/controllerrevision\.apps\/db-[a-z0-9]+\s+statefulset\.apps\/db\s+1\s+60m/);
    expect(out).toMatch(/controllerrevision\.apps\/db-[a-z0-9]+\s+statefulset\.apps\/db\s+2\s+10m/);
    expect(out).toMatch(
      /NAME\s+STATUS\s+VOLUME\s+CAPACITY\s+ACCESS MODES\s+STORAGECLASS\s+VOLUMEATTRIBUTESCLASS\s+AGE/,
    );
    expect(out).toMatch(/persistentvolumeclaim\/data-db-0\s+Bound\s+pvc-\S+\s+1Gi\s+RWO\s+<unset>\s+60m/);
    const podsOut = await kubectl('get', 'pods', '-l', 'app=db', '-L', 'controller-revision-hash');
    expect(podsOut).toMatch(/db-0\s+1\/1\s+Running\s+0\s+60m\s+db-/);
    expect(podsOut).toMatch(/db-2\s+0\/1\s+CrashLoopBackOff/);
  });

  it('the controller keeps revisions, names and labels as upstream does', () => {
    const status = set().status!;
    expect(status).toMatchObject({ replicas: 3, readyReplicas: 2, currentReplicas: 2, updatedReplicas: 1 });
    expect(status.currentRevision).not.toBe(status.updateRevision);
    expect(revisions()).toEqual({ [status.currentRevision!]: 1, [status.updateRevision!]: 2 });
    const db2 = pods().find((pod) => pod.metadata.name === 'db-2')!;
    expect(db2.metadata.labels).toMatchObject({
      'controller-revision-hash': status.updateRevision,
      'statefulset.kubernetes.io/pod-name': 'db-2',
      'apps.kubernetes.io/pod-index': '2',
    });
    expect(db2.spec['hostname']).toBe('db-2');
    expect(db2.spec['subdomain']).toBe('db');
    expect(db2.spec['volumes']).toEqual([
      { name: 'data', persistentVolumeClaim: { claimName: 'data-db-2' } },
    ]);
  });

  it('rollout history lists the revisions with their change-causes and one revision’s template', async () => {
    expect(await kubectl('rollout', 'history', 'statefulset/db')).toMatch(
      /statefulset\.apps\/db\s*\nREVISION\s+CHANGE-CAUSE\n1\s+postgres 16\.1\n2\s+postgres 16\.2\n/,
    );
    const one = await kubectl('rollout', 'history', 'statefulset/db', '--revision=1');
    expect(one).toMatch(/statefulset\.apps\/db with revision #1/);
    expect(one).toMatch(/Image:\s+registry\.example\.com\/postgres:16\.1/);
  });

  it('rollout status reports the Pods not ready', async () => {
    expect(await kubectl('rollout', 'status', 'statefulset/db', '--watch=false')).toBe(
      'Waiting for 1 pods to be ready...\n',
    );
  });

  it('rollout undo restores revision 1 as revision 3; the broken Pod holds an OrderedReady set until deleted', async () => {
    const before = set().status!;
    expect(await kubectl('rollout', 'undo', 'statefulset/db')).toBe('statefulset.apps/db rolled back\n');
    sim.clock.advance(1000);
    expect(revisions()).toEqual({ [before.currentRevision!]: 3, [before.updateRevision!]: 2 });
    expect(set().spec.template.spec.containers[0]!.image).toBe('registry.example.com/postgres:16.1');
    expect(set().status!.updateRevision).toBe(before.currentRevision);
    // Forced rollback (StatefulSet docs): the Pod at the bad revision is not Running and Ready, so
    // the OrderedReady controller waits on it and never replaces it.
    sim.clock.advance(120_000);
    const db2 = () => pods().find((pod) => pod.metadata.name === 'db-2')!;
    expect(db2().metadata.labels!['controller-revision-hash']).toBe(before.updateRevision);
    expect(await kubectl('delete', 'pod', 'db-2')).toBe('pod "db-2" deleted\n');
    sim.clock.advance(60_000);
    expect(db2().metadata.labels!['controller-revision-hash']).toBe(before.currentRevision);
    expect(await kubectl('rollout', 'status', 'statefulset/db', '--watch=false')).toBe(
      'partitioned roll out complete: 3 new pods have been updated...\n',
    );
    expect(set().status).toMatchObject({
      replicas: 3,
      readyReplicas: 3,
      currentReplicas: 3,
      updatedReplicas: 3,
      availableReplicas: 3,
      currentRevision: before.currentRevision,
      updateRevision: before.currentRevision,
      observedGeneration: set().metadata.generation,
    });
  });

  it('undo to the revision in use is skipped, as kubectl compares the revision data byte for byte', async () => {
    expect(await kubectl('rollout', 'undo', 'statefulset/db', '--to-revision=3')).toBe(
      'statefulset.apps/db skipped rollback (current template already matches revision 3)\n',
    );
  });

  it('rollout restart makes revision 4 and replaces the Pods from the highest ordinal down', async () => {
    expect(await kubectl('rollout', 'restart', 'statefulset/db')).toBe('statefulset.apps/db restarted\n');
    // Every write settles the controllers: db-2 is terminating, db-0 and db-1 wait their turn.
    expect(Object.values(revisions()).sort()).toEqual([2, 3, 4]);
    const update = set().status!.updateRevision!;
    expect(
      pods()
        .filter((pod) => pod.metadata.deletionTimestamp)
        .map((pod) => pod.metadata.name),
    ).toEqual(['db-2']);
    for (let step = 0; step < 10; step++) sim.clock.advance(10_000);
    expect(pods().map((pod) => pod.metadata.labels!['controller-revision-hash'])).toEqual([
      update,
      update,
      update,
    ]);
    // A revision copies the set's annotations when created: undo left the change-cause at 16.2, so
    // revision 4 (made by the restart) carries it, while revision 3 kept revision 1's.
    expect(await kubectl('rollout', 'history', 'statefulset/db')).toMatch(
      /\n2\s+postgres 16\.2\n3\s+postgres 16\.1\n4\s+postgres 16\.2\n/,
    );
  });

  it('scale goes through statefulsets/scale, removes the highest ordinals first and keeps the claims', async () => {
    expect(await kubectl('scale', 'statefulset/db', '--replicas=1')).toBe('statefulset.apps/db scaled\n');
    // One at a time: db-2 goes first.
    expect(
      pods()
        .filter((pod) => pod.metadata.deletionTimestamp)
        .map((pod) => pod.metadata.name),
    ).toEqual(['db-2']);
    for (let step = 0; step < 10; step++) sim.clock.advance(5_000);
    expect(pods().map((pod) => pod.metadata.name)).toEqual(['db-0']);
    expect(
      store()
        .list('persistentvolumeclaims', 'shop')
        .map((claim) => claim.metadata.name),
    ).toEqual(['data-db-0', 'data-db-1', 'data-db-2']);
    const mutation = sim.mutationLog.findLast((record) => record.resource === 'statefulsets.apps');
    expect(mutation).toMatchObject({ verb: 'patch', subresource: 'scale', code: 200 });
  });
});
