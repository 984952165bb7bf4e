/**
 * Every bundled scenario loads, validates, and is in its failing state at t = 0 (the incident in
 * progress), with an expected outcome that names the right action.
 */
import { describe, expect, it } from 'vitest';
import { SimulatedCluster } from '../../../deploy/sim/cluster.ts';
import { listScenarios, loadScenario } from '../../../deploy/sim/scenario/load.ts';
import type {
  ControllerRevision,
  CoreEvent,
  DaemonSet,
  Deployment,
  Pod,
  ReplicaSet,
  StatefulSet,
} from '../../../deploy/sim/types.ts';

function start(name: string) {
  const cluster = new SimulatedCluster({ scenario: loadScenario(name), timeScale: 0 });
  const deployment = (deploymentName: string) =>
    cluster.store.get<Deployment>('deployments', 'shop', deploymentName)!;
  const pods = (prefix: string) =>
    cluster.store.list<Pod>('pods', 'shop').filter((pod) => pod.metadata.name.startsWith(`${prefix}-`));
  const waiting = (pod: Pod) => {
    const state = pod.status?.containerStatuses?.[0]?.state;
    return state && 'waiting' in state ? state.waiting.reason : undefined;
  };
  const revisionOf = (rs: ReplicaSet) => rs.metadata.annotations?.['deployment.kubernetes.io/revision'];
  const imageOf = (pod: Pod) => pod.spec.containers[0]!.image;
  const events = () => cluster.store.list<CoreEvent>('events', 'shop');
  return { cluster, deployment, pods, waiting, revisionOf, imageOf, events };
}

function progressing(deployment: Deployment) {
  return deployment.status?.conditions?.find((condition) => condition.type === 'Progressing');
}

describe('bundled scenarios', () => {
  it('are the ones the demo, the eval and the end-to-end tests use', () => {
    expect(listScenarios()).toEqual([
      'bad-image-rollout',
      'config-key-missing',
      'config-key-removed',
      'cpu-request-tenfold',
      'daemonset-bad-rollout',
      'dependency-db-statefulset',
      'dependency-postgres-oom',
      'dependency-then-bad-rollout',
      'gitops-reverts-rollback',
      'healthy',
      'hpa-at-max',
      'hpa-at-min',
      'image-pull-error',
      'image-pull-unauthorized',
      'liveness-probe-tightened',
      'no-healthy-revision',
      'noisy-neighbour',
      'oom-after-limit-change',
      'paused-rollout',
      'pending-no-capacity',
      'pull-secret-not-found',
      'pull-secret-removed',
      'rollback-skips-broken-revision',
      'secret-missing',
      'startup-probe-budget',
      'statefulset-bad-rollout',
      'stuck-config',
    ]);
  });

  it('rollback-skips-broken-revision: revision 2 Pods are gone but their BackOff events remain', () => {
    const { cluster, pods, events, imageOf } = start('rollback-skips-broken-revision');
    expect(pods('cart').some((pod) => imageOf(pod).endsWith(':2.1.0'))).toBe(false);
    const rs2 = cluster.store
      .list<ReplicaSet>('replicasets', 'shop')
      .find((rs) => rs.metadata.annotations?.['deployment.kubernetes.io/revision'] === '2')!;
    expect(
      events().some(
        (e) => e.reason === 'BackOff' && e.involvedObject.name?.startsWith(`${rs2.metadata.name}-`),
      ),
    ).toBe(true);
  });

  it('no-healthy-revision: every revision of recommendations left BackOff events; no ReplicaSet has a ready Pod', () => {
    const { cluster, events } = start('no-healthy-revision');
    const sets = cluster.store.list<ReplicaSet>('replicasets', 'shop');
    expect(sets.map((rs) => rs.metadata.annotations?.['deployment.kubernetes.io/revision']).sort()).toEqual([
      '1',
      '2',
      '3',
    ]);
    for (const rs of sets) {
      expect(rs.status?.readyReplicas ?? 0).toBe(0);
      expect(
        events().some(
          (e) => e.reason === 'BackOff' && e.involvedObject.name?.startsWith(`${rs.metadata.name}-`),
        ),
        rs.metadata.name,
      ).toBe(true);
    }
  });

  it('liveness-probe-tightened: the kubelet kills revision 3 for failed liveness probes, as a real kubelet reports it', () => {
    const { pods, events } = start('liveness-probe-tightened');
    const killed = pods('orders').filter((pod) => pod.status!.containerStatuses![0]!.restartCount > 0);
    expect(killed).toHaveLength(1);
    expect(killed[0]!.status!.containerStatuses![0]!.lastState).toMatchObject({
      terminated: { exitCode: 137, reason: 'Error' },
    });
    const about = events().filter((e) => e.involvedObject.name === killed[0]!.metadata.name);
    expect(about.find((e) => e.reason === 'Unhealthy')?.message).toMatch(
      /^Liveness probe failed: Get "http:\/\/10\.244\.1\.23:8080\/healthz\/deep": context deadline exceeded/,
    );
    expect(about.find((e) => e.reason === 'Killing')?.message).toBe(
      'Container orders failed liveness probe, will be restarted',
    );
  });

  it('config-key-missing / config-key-removed: the new Pods wait in CreateContainerConfigError naming the key', () => {
    for (const [scenario, prefix, message] of [
      ['config-key-missing', 'payments', "couldn't find key fraud.api.url in ConfigMap shop/payments-config"],
      [
        'config-key-removed',
        'notifications',
        "couldn't find key smtp.host in ConfigMap shop/notifications-config",
      ],
    ] as const) {
      const { pods, waiting } = start(scenario);
      const stuck = pods(prefix).filter((pod) => waiting(pod) === 'CreateContainerConfigError');
      expect(stuck.length, scenario).toBeGreaterThan(0);
      expect(stuck[0]!.status!.containerStatuses![0]!.state).toMatchObject({ waiting: { message } });
      // The Pods that started before the key went missing (or before the new revision) still run.
      expect(
        pods(prefix).some((pod) => pod.status!.containerStatuses![0]!.ready),
        scenario,
      ).toBe(true);
    }
  });

  it('startup-probe-budget: the new Pod is never started, killed after its startup probe budget', () => {
    const { pods, events } = start('startup-probe-budget');
    const fresh = pods('search').find((pod) => pod.spec.containers[0]!.image.endsWith(':4.0.0'))!;
    expect(fresh.status!.containerStatuses![0]).toMatchObject({ started: false, ready: false });
    expect(fresh.status!.containerStatuses![0]!.restartCount).toBeGreaterThan(2);
    const about = events().filter((e) => e.involvedObject.name === fresh.metadata.name);
    expect(about.find((e) => e.reason === 'Killing')?.message).toBe(
      'Container search failed startup probe, will be restarted',
    );
  });

  it('dependency-postgres-oom: checkout ran healthy for days, crash-loops since postgres broke', () => {
    const { pods, waiting } = start('dependency-postgres-oom');
    const checkout = pods('checkout');
    expect(checkout).toHaveLength(2);
    expect(checkout.every((pod) => pod.status!.containerStatuses![0]!.restartCount >= 2)).toBe(true);
    const postgres = pods('postgres')[0]!;
    expect(postgres.status!.containerStatuses![0]!.lastState).toMatchObject({
      terminated: { reason: 'OOMKilled' },
    });
    expect(waiting(checkout[0]!)).toBe('CrashLoopBackOff');
  });

  it('dependency-db-statefulset: checkout crash-loops while StatefulSet postgres behind Service db has no available replica', () => {
    const { cluster, pods, waiting } = start('dependency-db-statefulset');
    const checkout = pods('checkout');
    expect(checkout).toHaveLength(2);
    expect(checkout.map(waiting)).toEqual(['CrashLoopBackOff', 'CrashLoopBackOff']);
    const postgres = cluster.store.get<StatefulSet>('statefulsets', 'shop', 'postgres')!;
    expect(postgres.status?.availableReplicas ?? 0).toBe(0);
    expect(cluster.store.get('services', 'shop', 'db')).toBeDefined();
    expect(cluster.store.get('services', 'shop', 'postgres')).toBeUndefined();
  });

  it('dependency-then-bad-rollout: two incidents, two investigations (steps), each with its own expected', () => {
    const { cluster, pods, waiting } = start('dependency-then-bad-rollout');
    expect(pods('checkout').map(waiting)).toEqual(['CrashLoopBackOff', 'CrashLoopBackOff']);
    expect(pods('payments').some((pod) => waiting(pod) === 'CrashLoopBackOff')).toBe(true);
    expect(cluster.scenario.expected.culprit?.name).toBe('postgres');
    expect(cluster.scenario.steps).toHaveLength(1);
    expect(cluster.scenario.steps[0]).toMatchObject({
      afterSeconds: 30,
      expected: { culprit: { name: 'payments' }, action: 'rollback', toRevision: 1 },
    });
  });

  it('pull-secret-removed: the revision without imagePullSecrets cannot pull; revision 1 serves', () => {
    const { pods, waiting } = start('pull-secret-removed');
    const failing = pods('billing').filter((pod) => !pod.spec.imagePullSecrets);
    expect(failing.length).toBeGreaterThan(0);
    expect(failing.map(waiting).every((r) => r === 'ImagePullBackOff' || r === 'ErrImagePull')).toBe(true);
  });

  it('cpu-request-tenfold: the new Pods are Pending on Insufficient cpu', () => {
    const { pods, events } = start('cpu-request-tenfold');
    expect(pods('search').some((pod) => pod.status?.phase === 'Pending')).toBe(true);
    expect(
      events().some((e) => e.reason === 'FailedScheduling' && /Insufficient cpu/.test(e.message ?? '')),
    ).toBe(true);
  });

  it('bad-image-rollout: revision 3 crash-loops with growing restarts; revision 2 serves; rollback expected', () => {
    const { deployment, pods, waiting, imageOf, cluster } = start('bad-image-rollout');
    const checkout = deployment('checkout');
    expect(checkout.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('3');
    expect(progressing(checkout)?.reason).toBe('ProgressDeadlineExceeded');
    const bad = pods('checkout').filter((pod) => imageOf(pod).endsWith(':2.4.1'));
    expect(bad.map(waiting)).toEqual(['CrashLoopBackOff', 'CrashLoopBackOff']);
    expect(bad.every((pod) => pod.status!.containerStatuses![0]!.restartCount >= 5)).toBe(true);
    expect(
      pods('checkout').filter(
        (pod) => imageOf(pod).endsWith(':2.4.0') && pod.status?.containerStatuses?.[0]?.ready,
      ),
    ).toHaveLength(2);
    expect(cluster.scenario.expected).toMatchObject({
      action: 'rollback',
      toRevision: 2,
      culprit: { namespace: 'shop', name: 'checkout' },
    });
  });

  it('image-pull-error: the new Pods are in ImagePullBackOff with Failed events; rollback expected', () => {
    const { pods, waiting, imageOf, events, cluster } = start('image-pull-error');
    const pulling = pods('checkout').filter((pod) => imageOf(pod).endsWith(':2.4.2'));
    expect(pulling.length).toBeGreaterThan(0);
    expect(
      pulling.map(waiting).every((reason) => reason === 'ImagePullBackOff' || reason === 'ErrImagePull'),
    ).toBe(true);
    expect(pulling.every((pod) => pod.status?.phase === 'Pending')).toBe(true);
    const failed = events().find(
      (event) => event.reason === 'Failed' && event.message.startsWith('Failed to pull image'),
    );
    expect(failed?.count).toBeGreaterThan(1);
    expect(cluster.scenario.expected.action).toBe('rollback');
  });

  it('oom-after-limit-change: revision 3 lowered the limit and its Pods are OOMKilled; rollback expected', () => {
    const { pods, imageOf, cluster } = start('oom-after-limit-change');
    const oom = pods('checkout').filter(
      (pod) => pod.spec.containers[0]!.resources?.limits?.['memory'] === '128Mi',
    );
    expect(oom.length).toBe(2);
    for (const pod of oom) {
      expect(imageOf(pod)).toBe('registry.example.com/shop/checkout:2.4.0');
      const last = pod.status!.containerStatuses![0]!.lastState;
      expect('terminated' in last && last.terminated).toMatchObject({ reason: 'OOMKilled', exitCode: 137 });
    }
    expect(cluster.scenario.expected).toMatchObject({ action: 'rollback', toRevision: 2 });
  });

  it('stuck-config: no Pod is ready, the template is unchanged and a restart cures it', () => {
    const { deployment, pods, events, cluster } = start('stuck-config');
    const checkout = deployment('checkout');
    expect(checkout.metadata.annotations?.['deployment.kubernetes.io/revision']).toBe('2');
    expect(checkout.status?.readyReplicas ?? 0).toBe(0);
    expect(checkout.status?.conditions?.find((condition) => condition.type === 'Available')?.status).toBe(
      'False',
    );
    expect(
      pods('checkout').every(
        (pod) => pod.status?.phase === 'Running' && !pod.status.containerStatuses![0]!.ready,
      ),
    ).toBe(true);
    expect(events().some((event) => event.reason === 'Unhealthy' && (event.count ?? 0) > 10)).toBe(true);
    expect(cluster.scenario.expected.action).toBe('restart');

    // A restart (new Pods) recovers, as the scenario promises.
    const restarted = structuredClone(checkout);
    restarted.spec.template.metadata = {
      ...restarted.spec.template.metadata,
      annotations: { 'kubectl.kubernetes.io/restartedAt': 'now' },
    };
    cluster.store.update('deployments', restarted);
    cluster.reconcile();
    cluster.clock.advance(120_000);
    cluster.reconcile();
    expect(deployment('checkout').status).toMatchObject({
      readyReplicas: 3,
      availableReplicas: 3,
      updatedReplicas: 3,
    });
  });

  it('healthy: every Deployment is available with no restarts and no warnings; no action expected', () => {
    const { cluster, events } = start('healthy');
    const deployments = cluster.store.list<Deployment>('deployments');
    expect(deployments.map((d) => d.metadata.name).sort()).toEqual(['cart', 'checkout']);
    for (const d of deployments) expect(d.status?.availableReplicas).toBe(d.spec.replicas);
    expect(
      cluster.store.list<Pod>('pods').every((pod) => pod.status!.containerStatuses![0]!.restartCount === 0),
    ).toBe(true);
    expect(events().filter((event) => event.type === 'Warning')).toEqual([]);
    expect(cluster.scenario.expected).toMatchObject({ action: 'none' });
    expect(cluster.scenario.expected.culprit).toBeUndefined();
  });

  it('noisy-neighbour: a long-broken neighbour and an unschedulable Pod next to the fresh culprit', () => {
    const { deployment, pods, waiting, events, cluster } = start('noisy-neighbour');
    const neighbours = pods('recommendations');
    expect(neighbours.map(waiting)).toEqual(['CrashLoopBackOff', 'CrashLoopBackOff']);
    expect(neighbours.every((pod) => pod.status!.containerStatuses![0]!.restartCount > 50)).toBe(true);
    expect(Date.parse(deployment('recommendations').metadata.creationTimestamp!)).toBeLessThan(
      cluster.startTime - 5 * 3_600_000,
    );
    expect(pods('report-builder')[0]!.status?.conditions?.[0]).toMatchObject({
      type: 'PodScheduled',
      status: 'False',
      reason: 'Unschedulable',
    });
    expect(events().some((event) => event.reason === 'FailedScheduling')).toBe(true);
    expect(pods('checkout').filter((pod) => waiting(pod) === 'CrashLoopBackOff')).toHaveLength(2);
    expect(cluster.scenario.expected).toMatchObject({ action: 'rollback', culprit: { name: 'checkout' } });
  });

  it('paused-rollout: the culprit is paused mid-rollout and the expected answer is a refusal', () => {
    const { deployment, pods, waiting, cluster } = start('paused-rollout');
    const checkout = deployment('checkout');
    expect(checkout.spec.paused).toBe(true);
    expect(pods('checkout').filter((pod) => waiting(pod) === 'CrashLoopBackOff')).toHaveLength(2);
    expect(cluster.scenario.expected.action).toBe('refused:deployment-paused');
  });

  it('statefulset-bad-rollout: postgres-2 crash-loops at revision 3, the OrderedReady rollout is stuck; rollback to 2', () => {
    const { cluster, pods, waiting, imageOf } = start('statefulset-bad-rollout');
    const set = cluster.store.get<StatefulSet>('statefulsets', 'shop', 'postgres')!;
    const revisions = cluster.store
      .list<ControllerRevision>('controllerrevisions', 'shop')
      .sort((a, b) => a.revision - b.revision);
    expect(revisions.map((revision) => revision.revision)).toEqual([1, 2, 3]);
    expect(
      revisions.map((revision) => revision.metadata.annotations?.['kubernetes.io/change-cause']),
    ).toEqual(['postgres 16.2', 'postgres 16.3', 'postgres 17.0']);
    expect(set.status).toMatchObject({
      replicas: 3,
      readyReplicas: 2,
      currentReplicas: 2,
      updatedReplicas: 1,
      currentRevision: revisions[1]!.metadata.name,
      updateRevision: revisions[2]!.metadata.name,
    });
    const all = pods('postgres');
    expect(all.map((pod) => pod.metadata.name)).toEqual(['postgres-0', 'postgres-1', 'postgres-2']);
    expect(all.map(imageOf)).toEqual([
      'registry.example.com/shop/postgres:16.3',
      'registry.example.com/shop/postgres:16.3',
      'registry.example.com/shop/postgres:17.0',
    ]);
    expect(waiting(all[2]!)).toBe('CrashLoopBackOff');
    expect(all[2]!.status!.containerStatuses![0]!.restartCount).toBeGreaterThanOrEqual(5);
    expect(cluster.store.list('persistentvolumeclaims', 'shop').map((claim) => claim.metadata.name)).toEqual([
      'data-postgres-0',
      'data-postgres-1',
      'data-postgres-2',
    ]);
    expect(cluster.scenario.expected).toMatchObject({
      action: 'rollback',
      toRevision: 2,
      culprit: { kind: 'StatefulSet', namespace: 'shop', name: 'postgres' },
    });
  });

  it('daemonset-bad-rollout: one node’s log-shipper crash-loops at revision 2, the rollout is stuck; rollback to 1', () => {
    const { cluster, pods, waiting, imageOf } = start('daemonset-bad-rollout');
    const ds = cluster.store.get<DaemonSet>('daemonsets', 'shop', 'log-shipper')!;
    expect(ds.status).toMatchObject({
      desiredNumberScheduled: 3,
      currentNumberScheduled: 3,
      numberReady: 2,
      updatedNumberScheduled: 1,
      numberAvailable: 2,
      numberUnavailable: 1,
    });
    const all = pods('log-shipper');
    expect(all.map((pod) => pod.spec.nodeName).sort()).toEqual(['sim-worker', 'sim-worker2', 'sim-worker3']);
    const broken = all.filter((pod) => imageOf(pod).endsWith(':3.1.4'));
    expect(broken.map(waiting)).toEqual(['CrashLoopBackOff']);
    expect(
      cluster.store
        .list<ControllerRevision>('controllerrevisions', 'shop')
        .map((revision) => revision.revision)
        .sort(),
    ).toEqual([1, 2]);
    expect(cluster.scenario.expected).toMatchObject({
      action: 'rollback',
      toRevision: 1,
      culprit: { kind: 'DaemonSet', namespace: 'shop', name: 'log-shipper' },
    });
  });
});
