/**
 * The simulated kubelet's container config errors (deploy/sim/controllers/container-config.ts), in
 * the kubelet's words: a missing key or object a container's env references keeps it waiting in
 * CreateContainerConfigError with a `Failed` event, retried until the key exists.
 */
import { describe, expect, it } from 'vitest';
import { SimulatedCluster } from '../../../../deploy/sim/cluster.ts';
import { containerConfigError } from '../../../../deploy/sim/controllers/container-config.ts';
import { loadScenario } from '../../../../deploy/sim/scenario/load.ts';
import type { Container, CoreEvent, KubeObject, Pod } from '../../../../deploy/sim/types.ts';

const configMap = (data: Record<string, string>): KubeObject =>
  ({ apiVersion: 'v1', kind: 'ConfigMap', metadata: { name: 'cfg', namespace: 'shop' }, data }) as KubeObject;

function cluster(env: Container['env'], objects: KubeObject[] = []) {
  return new SimulatedCluster({
    timeScale: 0,
    scenario: loadScenario({
      name: 'config',
      description: 'config',
      symptom: 'none',
      namespaces: ['shop'],
      objects: objects.map((manifest) => ({ at: '-1h', manifest })),
      deployments: [
        {
          at: '-10m',
          manifest: {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            metadata: { name: 'api', namespace: 'shop' },
            spec: {
              replicas: 1,
              selector: { matchLabels: { app: 'api' } },
              template: {
                metadata: { labels: { app: 'api' } },
                spec: { containers: [{ name: 'api', image: 'api:1', env }] },
              },
            },
          },
        },
      ],
      expected: { diagnosis: 'none', action: 'none' },
    }),
  });
}

const keyRef = (key: string, optional?: boolean) => [
  { name: 'X', valueFrom: { configMapKeyRef: { name: 'cfg', key, ...(optional && { optional }) } } },
];

describe('container config errors', () => {
  it('a missing key: CreateContainerConfigError and Failed "Error: couldn\'t find key …", retried until it exists', () => {
    const sim = cluster(keyRef('url'), [configMap({ other: '1' })]);
    const pod = () => sim.store.list<Pod>('pods', 'shop')[0]!;
    expect(pod().status!.phase).toBe('Pending');
    expect(pod().status!.containerStatuses![0]!.state).toEqual({
      waiting: {
        reason: 'CreateContainerConfigError',
        message: "couldn't find key url in ConfigMap shop/cfg",
      },
    });
    const failed = sim.store.list<CoreEvent>('events', 'shop').find((e) => e.reason === 'Failed')!;
    expect(failed).toMatchObject({
      type: 'Warning',
      message: "Error: couldn't find key url in ConfigMap shop/cfg",
      involvedObject: { fieldPath: 'spec.containers{api}' },
    });
    expect(failed.count).toBeGreaterThan(10);
    // The key appears: the next retry creates the container.
    const cm = sim.store.get<KubeObject>('configmaps', 'shop', 'cfg')!;
    sim.store.update('configmaps', { ...cm, data: { url: 'http://x' } } as KubeObject);
    sim.clock.advance(15_000);
    sim.reconcile();
    expect(pod().status!.containerStatuses![0]!.state).toHaveProperty('running');
  });

  it('names a missing object as the kubelet does, and skips optional references', () => {
    const sim = cluster([]);
    const pod = sim.store.list<Pod>('pods', 'shop')[0]!;
    const container = (env: Container['env']): Container => ({ name: 'api', image: 'api:1', env });
    expect(containerConfigError(sim.store, pod, container(keyRef('url')))).toBe('configmap "cfg" not found');
    expect(containerConfigError(sim.store, pod, container(keyRef('url', true)))).toBeUndefined();
    expect(
      containerConfigError(sim.store, pod, {
        name: 'api',
        image: 'api:1',
        envFrom: [{ secretRef: { name: 'creds' } }],
      }),
    ).toBe('secret "creds" not found');
  });
});
