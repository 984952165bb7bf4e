/**
 * The scenario's GitOps reconciler: it re-applies the template recorded at t = 0 some seconds after
 * a change, under its own field manager (managedFields name it), and leaves an unchanged template alone.
 */
import { describe, expect, it } from 'vitest';
import { SimulatedCluster } from '../../../../deploy/sim/cluster.ts';
import { loadScenario } from '../../../../deploy/sim/scenario/load.ts';
import type { Deployment } from '../../../../deploy/sim/types.ts';

function cluster(afterSeconds: number) {
  const sim = new SimulatedCluster({
    timeScale: 0,
    scenario: loadScenario({
      name: 'gitops',
      description: 'gitops',
      symptom: 'none',
      namespaces: ['shop'],
      deployments: [
        {
          at: '-1h',
          manifest: {
            apiVersion: 'apps/v1',
            kind: 'Deployment',
            metadata: { name: 'web', namespace: 'shop' },
            spec: {
              replicas: 1,
              selector: { matchLabels: { app: 'web' } },
              template: {
                metadata: { labels: { app: 'web' } },
                spec: { containers: [{ name: 'web', image: 'web:bad' }] },
              },
            },
          },
        },
      ],
      reconcilers: [
        { namespace: 'shop', deployment: 'web', fieldManager: 'argocd-application-controller', afterSeconds },
      ],
      expected: { diagnosis: 'none', action: 'none' },
    }),
  });
  const deployment = () => sim.store.get<Deployment>('deployments', 'shop', 'web')!;
  const image = () => deployment().spec.template.spec.containers[0]!.image;
  const setImage = (value: string) => {
    const next = deployment();
    next.spec.template.spec.containers[0]!.image = value;
    sim.store.update('deployments', next);
    sim.reconcile();
  };
  const advance = (ms: number) => {
    sim.clock.advance(ms);
    sim.reconcile();
  };
  return { sim, deployment, image, setImage, advance };
}

describe('TemplateReconciler', () => {
  it('re-applies the recorded template afterSeconds after a change, as its field manager', () => {
    const { deployment, image, setImage, advance } = cluster(20);
    setImage('web:good');
    advance(19_000);
    expect(image()).toBe('web:good');
    advance(1_000);
    expect(image()).toBe('web:bad');
    const managers = (deployment().metadata.managedFields ?? []).map((entry) => entry.manager);
    expect(managers).toContain('argocd-application-controller');
  });

  it('leaves a Deployment whose template matches the recorded one alone', () => {
    const { deployment, advance } = cluster(5);
    const before = deployment().metadata.resourceVersion;
    advance(60_000);
    const managers = (deployment().metadata.managedFields ?? []).map((entry) => entry.manager);
    expect(managers).not.toContain('argocd-application-controller');
    expect(deployment().metadata.generation).toBe(1);
    expect(before).toBeDefined();
  });

  it('rejects a reconciler without a field manager, naming the field', () => {
    expect(() =>
      loadScenario({
        name: 'x',
        description: 'x',
        symptom: 'x',
        namespaces: ['shop'],
        reconcilers: [{ namespace: 'shop', deployment: 'web', fieldManager: '' }],
        expected: { diagnosis: 'none', action: 'none' },
      }),
    ).toThrow(/reconcilers/);
  });
});
