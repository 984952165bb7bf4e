/**
 * Fate rules with `when`: a failure that starts when a dependency has no available replicas and
 * ends when it is available again, and one that starts at a time — played out by the simulated
 * kubelet on a running cluster (no HTTP).
 */
import { describe, expect, it } from 'vitest';
import { SimulatedCluster } from '../../../../deploy/sim/cluster.ts';
import { loadScenario } from '../../../../deploy/sim/scenario/load.ts';
import type { Deployment, Pod } from '../../../../deploy/sim/types.ts';

const REFUSED = 'Error: connect ECONNREFUSED postgres:5432';

function deployment(name: string, image: string, replicas = 1) {
  return {
    at: '-1h',
    manifest: {
      apiVersion: 'apps/v1',
      kind: 'Deployment',
      metadata: { name, namespace: 'shop' },
      spec: {
        replicas,
        selector: { matchLabels: { app: name } },
        template: {
          metadata: { labels: { app: name } },
          spec: { containers: [{ name, image }] },
        },
      },
    },
  };
}

function cluster(when: Record<string, unknown>) {
  const sim = new SimulatedCluster({
    timeScale: 0,
    scenario: loadScenario({
      name: 'when',
      description: 'dependency fates',
      symptom: 'checkout fails',
      namespaces: ['shop'],
      deployments: [deployment('postgres', 'postgres:16'), deployment('checkout', 'checkout:1', 2)],
      fates: [
        {
          match: { labels: { app: 'checkout' } },
          when,
          fate: { kind: 'crashLoop', runSeconds: 3, logs: ['starting checkout', REFUSED] },
        },
      ],
      expected: { diagnosis: 'none', action: 'none' },
    }),
  });
  const checkout = () =>
    sim.store.list<Pod>('pods', 'shop').filter((pod) => pod.metadata.name.startsWith('checkout-'));
  const status = (pod: Pod) => pod.status!.containerStatuses![0]!;
  const advance = (ms: number) => {
    sim.clock.advance(ms);
    sim.reconcile();
  };
  const scalePostgres = (replicas: number) => {
    const postgres = sim.store.get<Deployment>('deployments', 'shop', 'postgres')!;
    postgres.spec!.replicas = replicas;
    sim.store.update('deployments', postgres);
    sim.reconcile();
  };
  return { sim, checkout, status, advance, scalePostgres };
}

describe('a fate that holds while a dependency is unavailable', () => {
  it('leaves the victim healthy while its dependency has available replicas', () => {
    const { checkout, status } = cluster({ unavailable: { name: 'postgres' } });
    expect(checkout()).toHaveLength(2);
    expect(checkout().every((pod) => status(pod).ready && status(pod).restartCount === 0)).toBe(true);
  });

  it('crash-loops the victim once the dependency has none, logging the refusal, and recovers after', () => {
    const { sim, checkout, status, advance, scalePostgres } = cluster({
      unavailable: { kind: 'Deployment', name: 'postgres' },
    });
    scalePostgres(0);
    advance(60_000);
    for (const pod of checkout()) {
      expect(status(pod).ready).toBe(false);
      expect(status(pod).restartCount).toBeGreaterThanOrEqual(1);
      expect(status(pod).lastState).toMatchObject({ terminated: { exitCode: 1, reason: 'Error' } });
      const previous = sim.kubelet.instances(pod.metadata.uid!, 'checkout')!.at(-2)!;
      expect(previous.lines.map((line) => line.text)).toContain(REFUSED);
    }
    scalePostgres(1);
    // The kubelet's back-off is at most 5 minutes: the next start connects.
    advance(6 * 60_000);
    for (const pod of checkout()) {
      expect(status(pod).ready).toBe(true);
      expect('running' in status(pod).state).toBe(true);
    }
    const restarts = checkout().map((pod) => status(pod).restartCount);
    advance(10 * 60_000);
    expect(checkout().map((pod) => status(pod).restartCount)).toEqual(restarts);
  });

  it('treats a dependency that does not exist as unavailable', () => {
    const { checkout, status } = cluster({ unavailable: { kind: 'StatefulSet', name: 'postgres' } });
    expect(checkout().every((pod) => !status(pod).ready && status(pod).restartCount > 0)).toBe(true);
  });
});

describe('a fate that starts at a time', () => {
  it('keeps running containers healthy until `after`, then plays the fate out', () => {
    const { checkout, status, advance } = cluster({ after: '2m' });
    expect(checkout().every((pod) => status(pod).ready)).toBe(true);
    advance(60_000);
    expect(checkout().every((pod) => status(pod).ready && status(pod).restartCount === 0)).toBe(true);
    advance(2 * 60_000);
    expect(checkout().every((pod) => !status(pod).ready && status(pod).restartCount >= 1)).toBe(true);
  });

  it('rejects a `when` condition the format does not know, naming it', () => {
    expect(() =>
      loadScenario({
        name: 'bad',
        description: 'x',
        symptom: 'x',
        namespaces: ['shop'],
        fates: [{ when: { unavailble: { name: 'db' } }, fate: { kind: 'crashLoop' } }],
        expected: { diagnosis: 'none', action: 'none' },
      }),
    ).toThrow(/unavailble/);
  });
});
