/**
 * The simulator through the unchanged @kubernetes/client-node code paths: typed API clients over
 * HTTPS with the written kubeconfig, on a frozen clock that the tests advance.
 */
import {
  ApiException,
  AppsV1Api,
  CoreV1Api,
  EventsV1Api,
  PatchStrategy,
  VersionApi,
  Watch,
  setHeaderOptions,
} from '@kubernetes/client-node';
import type { V1Deployment, V1ReplicaSet } from '@kubernetes/client-node';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startSimulator } from '../../../deploy/sim/index.ts';
import type { Simulator } from '../../../deploy/sim/index.ts';
import { kubeConfigFor } from '../../helpers/sim.ts';

const NS = 'shop';
const GOOD = 'registry.example.com/shop/checkout:2.4.0';
const BAD = 'registry.example.com/shop/checkout:2.4.1';
const jsonPatch = setHeaderOptions('Content-Type', PatchStrategy.JsonPatch);
const strategicPatch = setHeaderOptions('Content-Type', PatchStrategy.StrategicMergePatch);
const mergePatch = setHeaderOptions('Content-Type', PatchStrategy.MergePatch);

let sim: Simulator;
let apps: AppsV1Api;
let core: CoreV1Api;

beforeEach(async () => {
  sim = await startSimulator({ scenario: 'bad-image-rollout', timeScale: 0 });
  const kc = kubeConfigFor(sim);
  apps = kc.makeApiClient(AppsV1Api);
  core = kc.makeApiClient(CoreV1Api);
});

afterEach(async () => {
  await sim.close();
});

const revision = (object: { metadata?: { annotations?: Record<string, string> } }) =>
  object.metadata?.annotations?.['deployment.kubernetes.io/revision'];

async function replicaSets(): Promise<V1ReplicaSet[]> {
  return (await apps.listNamespacedReplicaSet({ namespace: NS })).items;
}

function byImage(sets: V1ReplicaSet[], image: string): V1ReplicaSet | undefined {
  return sets.find((rs) => rs.spec?.template?.spec?.containers[0]?.image === image);
}

/** The JSON Patch `kubectl rollout undo` sends to restore the template of `rs`. */
function undoPatch(rs: V1ReplicaSet, deployment: V1Deployment) {
  const template = structuredClone(rs.spec!.template!);
  delete template.metadata!.labels!['pod-template-hash'];
  const annotations: Record<string, string> = {
    'deployment.kubernetes.io/revision': revision(deployment)!,
    ...Object.fromEntries(
      Object.entries(rs.metadata!.annotations!).filter(
        ([key]) => !key.startsWith('deployment.kubernetes.io/'),
      ),
    ),
  };
  return [
    { op: 'replace', path: '/spec/template', value: template },
    { op: 'replace', path: '/metadata/annotations', value: annotations },
  ];
}

async function expectApiError(promise: Promise<unknown>, code: number, reason: string): Promise<void> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  );
  expect(error).toBeInstanceOf(ApiException);
  const apiError = error as ApiException<string>;
  expect(apiError.code).toBe(code);
  expect(JSON.parse(apiError.body)).toMatchObject({ kind: 'Status', status: 'Failure', reason, code });
}

describe('simulator via client-node', () => {
  it('serves /version and the incident in progress: the newest revision crash-loops, the previous one serves', async () => {
    const version = await kubeConfigFor(sim).makeApiClient(VersionApi).getCode();
    expect(version.gitVersion).toMatch(/^v1\.\d+\.\d+$/);

    const deployment = await apps.readNamespacedDeployment({ name: 'checkout', namespace: NS });
    expect(revision(deployment)).toBe('3');
    expect(deployment.status?.conditions?.find((c) => c.type === 'Progressing')?.reason).toBe(
      'ProgressDeadlineExceeded',
    );

    const sets = await replicaSets();
    expect(sets.map(revision).sort()).toEqual(['1', '2', '3']);
    const bad = byImage(sets, BAD)!;
    expect(bad.metadata?.name).toBe(`checkout-${bad.metadata?.labels?.['pod-template-hash']}`);
    expect(bad.spec?.selector?.matchLabels?.['pod-template-hash']).toBe(
      bad.metadata?.labels?.['pod-template-hash'],
    );
    expect(bad.metadata?.ownerReferences?.[0]).toMatchObject({
      kind: 'Deployment',
      name: 'checkout',
      controller: true,
      uid: deployment.metadata?.uid,
    });

    const pods = (
      await core.listNamespacedPod({
        namespace: NS,
        labelSelector: `pod-template-hash=${bad.metadata?.labels?.['pod-template-hash']}`,
      })
    ).items;
    expect(pods.length).toBe(2);
    for (const pod of pods) {
      const status = pod.status!.containerStatuses![0]!;
      expect(status.state?.waiting?.reason).toBe('CrashLoopBackOff');
      expect(status.restartCount).toBeGreaterThanOrEqual(4);
      expect(status.lastState?.terminated?.exitCode).toBe(1);
    }
  });

  it('crash-loop restart counts grow with back-off, and previous logs are served', async () => {
    const pods = (await core.listNamespacedPod({ namespace: NS })).items.filter(
      (pod) => pod.spec?.containers[0]?.image === BAD,
    );
    const name = pods[0]!.metadata!.name!;
    const before = pods[0]!.status!.containerStatuses![0]!.restartCount;
    sim.clock.advance(11 * 60_000);
    const after = (await core.readNamespacedPod({ name, namespace: NS })).status!.containerStatuses![0]!;
    // 5-minute back-off cap: two more restarts in 11 minutes.
    expect(after.restartCount - before).toBe(2);
    expect(after.state?.waiting?.message).toMatch(/^back-off 5m0s restarting failed container=checkout pod=/);

    const previous = await core.readNamespacedPodLog({ name, namespace: NS, previous: true });
    expect(previous).toContain('invalid configuration: payments.idempotencyKeyHeader is required');
    const tail = await core.readNamespacedPodLog({ name, namespace: NS, tailLines: 1 });
    expect(tail.trim().split('\n')).toHaveLength(1);
    expect(await core.readNamespacedPodLog({ name, namespace: NS, limitBytes: 12 })).toBe('{"level":"in');
    // The last run ended minutes ago: nothing in the last second, all of it in the last hour.
    expect(await core.readNamespacedPodLog({ name, namespace: NS, sinceSeconds: 1 })).toBe('');
    expect(await core.readNamespacedPodLog({ name, namespace: NS, sinceSeconds: 3600 })).toBe(previous);

    const healthy = (await core.listNamespacedPod({ namespace: NS })).items.find(
      (pod) => pod.spec?.containers[0]?.image === GOOD,
    )!;
    await expectApiError(
      core.readNamespacedPodLog({ name: healthy.metadata!.name!, namespace: NS, previous: true }),
      400,
      'BadRequest',
    );
    await expectApiError(core.readNamespacedPodLog({ name: 'nope', namespace: NS }), 404, 'NotFound');
  });

  it('a template change creates a new ReplicaSet with the next revision; rollouts and rollbacks converge', async () => {
    const patched = await apps.patchNamespacedDeployment(
      {
        name: 'checkout',
        namespace: NS,
        fieldManager: 'sentinel',
        body: {
          spec: {
            template: {
              spec: { containers: [{ name: 'checkout', image: 'registry.example.com/shop/checkout:2.4.2' }] },
            },
          },
        },
      },
      strategicPatch,
    );
    expect(patched.metadata?.generation).toBe(4);
    const sets = await replicaSets();
    expect(sets).toHaveLength(4);
    const newest = byImage(sets, 'registry.example.com/shop/checkout:2.4.2')!;
    expect(revision(newest)).toBe('4');
    expect(revision(await apps.readNamespacedDeployment({ name: 'checkout', namespace: NS }))).toBe('4');
    const progressing = (
      await apps.readNamespacedDeployment({ name: 'checkout', namespace: NS })
    ).status?.conditions?.find((c) => c.type === 'Progressing');
    expect(progressing).toMatchObject({ status: 'True' });
    expect(progressing?.reason).not.toBe('ProgressDeadlineExceeded');

    sim.clock.advance(60_000);
    const done = await apps.readNamespacedDeployment({ name: 'checkout', namespace: NS });
    expect(done.status).toMatchObject({
      replicas: 3,
      updatedReplicas: 3,
      readyReplicas: 3,
      availableReplicas: 3,
      observedGeneration: 4,
    });
    expect(done.status?.conditions?.find((c) => c.type === 'Progressing')?.reason).toBe(
      'NewReplicaSetAvailable',
    );
    const pods = (await core.listNamespacedPod({ namespace: NS })).items;
    expect(pods.map((pod) => pod.spec?.containers[0]?.image)).toEqual(
      Array(3).fill('registry.example.com/shop/checkout:2.4.2'),
    );
  });

  it('the JSON Patch of `kubectl rollout undo` reuses the old ReplicaSet and renumbers its revision', async () => {
    const deployment = await apps.readNamespacedDeployment({ name: 'checkout', namespace: NS });
    const good = byImage(await replicaSets(), GOOD)!;
    await apps.patchNamespacedDeployment(
      { name: 'checkout', namespace: NS, body: undoPatch(good, deployment) },
      jsonPatch,
    );

    const sets = await replicaSets();
    expect(sets).toHaveLength(3);
    const reused = sets.find((rs) => rs.metadata?.uid === good.metadata?.uid)!;
    expect(revision(reused)).toBe('4');
    expect(reused.metadata?.annotations?.['deployment.kubernetes.io/revision-history']).toBe('2');
    expect(revision(await apps.readNamespacedDeployment({ name: 'checkout', namespace: NS }))).toBe('4');

    sim.clock.advance(30_000);
    const after = await apps.readNamespacedDeployment({ name: 'checkout', namespace: NS });
    expect(after.status).toMatchObject({ replicas: 3, updatedReplicas: 3, availableReplicas: 3 });
    expect(byImage(await replicaSets(), BAD)?.spec?.replicas).toBe(0);
    expect(sim.mutationLog.at(-1)).toMatchObject({
      verb: 'patch',
      identity: 'sim-admin',
      name: 'checkout',
      code: 200,
      contentType: 'application/json-patch+json',
    });
    expect(sim.mutationLog.at(-1)?.patch).toEqual(undoPatch(good, deployment));
  });

  it('rejects an update or patch with a stale resourceVersion with 409 Conflict', async () => {
    const deployment = await apps.readNamespacedDeployment({ name: 'checkout', namespace: NS });
    await apps.patchNamespacedDeployment(
      { name: 'checkout', namespace: NS, body: { metadata: { labels: { team: 'payments' } } } },
      mergePatch,
    );
    const stale = structuredClone(deployment);
    stale.spec!.replicas = 5;
    await expectApiError(
      apps.replaceNamespacedDeployment({ name: 'checkout', namespace: NS, body: stale }),
      409,
      'Conflict',
    );
    await expectApiError(
      apps.patchNamespacedDeployment(
        {
          name: 'checkout',
          namespace: NS,
          body: {
            metadata: { resourceVersion: deployment.metadata!.resourceVersion },
            spec: { replicas: 5 },
          },
        },
        mergePatch,
      ),
      409,
      'Conflict',
    );
    expect((await apps.readNamespacedDeployment({ name: 'checkout', namespace: NS })).spec?.replicas).toBe(3);
  });

  it('prunes ReplicaSets beyond revisionHistoryLimit once the rollout completes', async () => {
    await apps.patchNamespacedDeployment(
      {
        name: 'checkout',
        namespace: NS,
        body: {
          spec: {
            revisionHistoryLimit: 1,
            template: {
              spec: { containers: [{ name: 'checkout', image: 'registry.example.com/shop/checkout:2.4.2' }] },
            },
          },
        },
      },
      strategicPatch,
    );
    sim.clock.advance(60_000);
    const sets = await replicaSets();
    expect(sets.map(revision).sort()).toEqual(['3', '4']);
  });

  it('a paused Deployment does not roll out until resumed', async () => {
    await apps.patchNamespacedDeployment(
      { name: 'checkout', namespace: NS, body: { spec: { paused: true } } },
      strategicPatch,
    );
    await apps.patchNamespacedDeployment(
      {
        name: 'checkout',
        namespace: NS,
        body: {
          spec: {
            template: {
              metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': '2026-01-01T00:00:00Z' } },
            },
          },
        },
      },
      strategicPatch,
    );
    sim.clock.advance(30_000);
    expect(await replicaSets()).toHaveLength(3);
    const paused = await apps.readNamespacedDeployment({ name: 'checkout', namespace: NS });
    // Like checkPausedConditions: a reported lack of progress is not overwritten by DeploymentPaused.
    expect(paused.status?.conditions?.find((c) => c.type === 'Progressing')?.reason).toBe(
      'ProgressDeadlineExceeded',
    );

    await apps.patchNamespacedDeployment(
      { name: 'checkout', namespace: NS, body: { spec: { paused: null } } },
      strategicPatch,
    );
    const sets = await replicaSets();
    expect(sets).toHaveLength(4);
    expect(
      sets.find((rs) => revision(rs) === '4')?.spec?.template?.metadata?.annotations?.[
        'kubectl.kubernetes.io/restartedAt'
      ],
    ).toBe('2026-01-01T00:00:00Z');
  });

  it('Progressing resets on a new rollout and turns ProgressDeadlineExceeded after progressDeadlineSeconds without progress', async () => {
    await apps.patchNamespacedDeployment(
      {
        name: 'checkout',
        namespace: NS,
        body: {
          spec: {
            progressDeadlineSeconds: 120,
            template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': 'now' } } },
          },
        },
      },
      strategicPatch,
    );
    const condition = async () =>
      (await apps.readNamespacedDeployment({ name: 'checkout', namespace: NS })).status?.conditions?.find(
        (c) => c.type === 'Progressing',
      );
    const reset = await condition();
    expect(reset?.status).toBe('True');
    expect(['NewReplicaSetCreated', 'ReplicaSetUpdated']).toContain(reset?.reason);
    sim.clock.advance(119_000);
    expect((await condition())?.status).toBe('True');
    sim.clock.advance(10_000);
    expect(await condition()).toMatchObject({ status: 'False', reason: 'ProgressDeadlineExceeded' });
  });

  it('pages lists with limit/continue and serves the scale subresource', async () => {
    const first = await core.listNamespacedEvent({ namespace: NS, limit: 5 });
    expect(first.items).toHaveLength(5);
    expect(first.metadata?._continue).toBeTruthy();
    const second = await core.listNamespacedEvent({
      namespace: NS,
      limit: 500,
      _continue: first.metadata!._continue!,
    });
    const all = await core.listNamespacedEvent({ namespace: NS });
    expect([...first.items, ...second.items].map((event) => event.metadata?.name)).toEqual(
      all.items.map((event) => event.metadata?.name),
    );

    const scale = await apps.readNamespacedDeploymentScale({ name: 'checkout', namespace: NS });
    expect(scale).toMatchObject({ spec: { replicas: 3 }, status: { selector: 'app=checkout' } });
    const scaled = await apps.patchNamespacedDeploymentScale(
      { name: 'checkout', namespace: NS, body: { spec: { replicas: 5 } } },
      mergePatch,
    );
    expect(scaled.spec?.replicas).toBe(5);
    expect((await apps.readNamespacedDeployment({ name: 'checkout', namespace: NS })).spec?.replicas).toBe(5);
    await expectApiError(
      apps.patchNamespacedDeploymentScale(
        { name: 'checkout', namespace: NS, body: { spec: { replicas: -1 } } },
        mergePatch,
      ),
      422,
      'Invalid',
    );
  });

  it('serves events.k8s.io/v1 Events with series for repeated events', async () => {
    const events = (
      await kubeConfigFor(sim).makeApiClient(EventsV1Api).listNamespacedEvent({ namespace: NS })
    ).items;
    const backOff = events.find((event) => event.reason === 'BackOff')!;
    expect(backOff.regarding?.kind).toBe('Pod');
    expect(backOff.series?.count).toBeGreaterThan(1);
    expect(backOff.deprecatedCount).toBe(backOff.series?.count);
  });

  it('streams watch events for what rollout status watches', async () => {
    const watched: string[] = [];
    let sawModified: () => void = () => undefined;
    const gotModified = new Promise<void>((resolve) => (sawModified = resolve));
    const controller = await new Watch(kubeConfigFor(sim)).watch(
      `/apis/apps/v1/namespaces/${NS}/deployments`,
      { fieldSelector: 'metadata.name=checkout' },
      (phase: string, object: V1Deployment) => {
        watched.push(`${phase} ${object.metadata?.name}`);
        if (phase === 'MODIFIED') sawModified();
      },
      () => undefined,
    );
    try {
      await apps.patchNamespacedDeployment(
        { name: 'checkout', namespace: NS, body: { spec: { replicas: 4 } } },
        mergePatch,
      );
      await gotModified;
      expect(watched[0]).toBe('ADDED checkout');
      expect(watched).toContain('MODIFIED checkout');
    } finally {
      controller.abort();
    }
  });
});
