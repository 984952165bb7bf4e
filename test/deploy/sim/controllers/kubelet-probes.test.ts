/**
 * The simulated kubelet's liveness and startup probe kills, against the real kubelet's behaviour
 * (pkg/kubelet/prober, kuberuntime_manager.go computePodActions): `Unhealthy` events every
 * periodSeconds, the `Killing` event at failureThreshold, exit 137 reason Error, a restart with
 * back-off; timing from the container's probe, defaults from the API.
 */
import { describe, expect, it } from 'vitest';
import { SimulatedCluster } from '../../../../deploy/sim/cluster.ts';
import { loadScenario } from '../../../../deploy/sim/scenario/load.ts';
import type { FateSpec } from '../../../../deploy/sim/scenario/schema.ts';
import type { CoreEvent, Pod } from '../../../../deploy/sim/types.ts';

type Input = Record<string, unknown>;

function cluster(container: Input, fate: Input) {
  const sim = new SimulatedCluster({
    timeScale: 0,
    scenario: loadScenario({
      name: 'probes',
      description: 'probes',
      symptom: 'none',
      namespaces: ['shop'],
      deployments: [
        {
          at: '0s',
          manifest: {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            metadata: { name: 'api', namespace: 'shop' },
            spec: {
              replicas: 1,
              selector: { matchLabels: { app: 'api' } },
              template: {
                metadata: { labels: { app: 'api' } },
                spec: { containers: [{ name: 'api', image: 'api:1', ...container }] },
              },
            },
          },
        },
      ],
      fates: [{ match: { labels: { app: 'api' } }, fate: fate as FateSpec }],
      expected: { diagnosis: 'none', action: 'none' },
    }),
  });
  const pod = () => sim.store.list<Pod>('pods', 'shop')[0]!;
  const status = () => pod().status!.containerStatuses![0]!;
  const events = (reason: string) =>
    sim.store
      .list<CoreEvent>('events', 'shop')
      .filter((e) => e.reason === reason && e.involvedObject.kind === 'Pod');
  const advance = (seconds: number) => {
    sim.clock.advance(seconds * 1000);
    sim.reconcile();
  };
  return { status, events, advance };
}

const LIVENESS = { httpGet: { path: '/healthz', port: 8080 }, periodSeconds: 5, failureThreshold: 3 };

describe('liveness probe fate', () => {
  it('fails every periodSeconds, then the kubelet kills the container (137, Error) and restarts it', () => {
    const { status, events, advance } = cluster(
      { livenessProbe: LIVENESS },
      { kind: 'livenessFailure', probeMessage: 'HTTP probe failed with statuscode: 500', logs: ['up'] },
    );
    advance(5); // pulled, started (first probe at 1 s), ready at 2 s + pull
    expect(status().restartCount).toBe(0);
    expect(events('Killing')).toEqual([]);
    advance(12); // second and third failures, 5 s apart, then the kill
    const [unhealthy] = events('Unhealthy');
    expect(unhealthy).toMatchObject({
      type: 'Warning',
      message: 'Liveness probe failed: HTTP probe failed with statuscode: 500',
      count: 3,
      source: { component: 'kubelet' },
      involvedObject: { fieldPath: 'spec.containers{api}' },
    });
    expect(events('Killing')).toMatchObject([
      { type: 'Normal', message: 'Container api failed liveness probe, will be restarted' },
    ]);
    expect(status().lastState).toMatchObject({ terminated: { exitCode: 137, reason: 'Error' } });
    expect(events('BackOff')).toHaveLength(1);
    advance(11); // 10 s back-off
    expect(status().restartCount).toBe(1);
    expect(status().state).toHaveProperty('running');
  });

  it('begins at `since`: ready and unprobed-failing until then', () => {
    const { status, events, advance } = cluster(
      { livenessProbe: LIVENESS },
      { kind: 'livenessFailure', since: '2m' },
    );
    advance(60);
    expect(status()).toMatchObject({ ready: true, restartCount: 0 });
    expect(events('Unhealthy')).toEqual([]);
    advance(75);
    expect(events('Killing')).toHaveLength(1);
  });

  it('uses the API defaults (period 10 s, threshold 3) and does nothing without a livenessProbe', () => {
    const probed = cluster({ livenessProbe: { tcpSocket: { port: 8080 } } }, { kind: 'livenessFailure' });
    probed.advance(22);
    expect(probed.events('Killing')).toEqual([]);
    probed.advance(5);
    expect(probed.events('Killing')).toHaveLength(1);

    const unprobed = cluster({}, { kind: 'livenessFailure' });
    unprobed.advance(120);
    expect(unprobed.status()).toMatchObject({ ready: true, restartCount: 0 });
    expect(unprobed.events('Unhealthy')).toEqual([]);
  });
});

describe('startup probe fate', () => {
  it('never starts: killed after failureThreshold × periodSeconds, not started, not ready', () => {
    const { status, events, advance } = cluster(
      { startupProbe: { httpGet: { path: '/started', port: 8080 }, periodSeconds: 2, failureThreshold: 4 } },
      { kind: 'startupFailure', failureLogs: ['loading model...'] },
    );
    advance(4);
    expect(status()).toMatchObject({ started: false, ready: false });
    advance(8);
    expect(events('Unhealthy')[0]).toMatchObject({
      message: 'Startup probe failed: HTTP probe failed with statuscode: 503',
      count: 4,
    });
    expect(events('Killing')).toMatchObject([
      { message: 'Container api failed startup probe, will be restarted' },
    ]);
    expect(status().lastState).toMatchObject({ terminated: { exitCode: 137, reason: 'Error' } });
    expect(status().state).toMatchObject({ waiting: { reason: 'CrashLoopBackOff' } });
  });
});
