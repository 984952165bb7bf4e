import { describe, expect, it } from 'vitest';
import {
  autoscalerWarnings,
  managementWarnings,
  observationWarnings,
} from '../../../tools/remediate/warnings.ts';
import type { Deployment, HorizontalPodAutoscaler } from '../../../tools/kube/types.ts';
import { deployment } from '../../helpers/fixtures.ts';

const web = (meta: Record<string, unknown> = {}): Deployment => {
  const dep = deployment({ name: 'web' }) as Deployment;
  Object.assign(dep.metadata!, meta);
  return dep;
};

describe('managementWarnings', () => {
  it('is quiet for a Deployment nothing manages', () => {
    expect(managementWarnings(web())).toEqual([]);
  });

  it('recognises Argo CD by its tracking annotation, its instance label, and its default tracking label', () => {
    const byAnnotation = managementWarnings(
      web({ annotations: { 'argocd.argoproj.io/tracking-id': 'shop:apps/Deployment:shop/web' } }),
    );
    expect(byAnnotation).toEqual([
      expect.objectContaining({ kind: 'argo_cd', message: expect.stringContaining("application 'shop'") }),
    ]);
    const byDefaultLabel = managementWarnings(web({ labels: { 'app.kubernetes.io/instance': 'shop-prod' } }));
    expect(byDefaultLabel[0]!.message).toContain("Argo CD's default tracking label");
  });

  it('recognises Helm (and does not take its instance label for Argo CD)', () => {
    const warnings = managementWarnings(
      web({ labels: { 'app.kubernetes.io/managed-by': 'Helm', 'app.kubernetes.io/instance': 'web' } }),
    );
    expect(warnings.map((w) => w.kind)).toEqual(['helm']);
    expect(warnings[0]!.message).toContain("release 'web'");
  });

  it('recognises Flux HelmReleases, other managers, owners and GitOps field managers', () => {
    const warnings = managementWarnings(
      web({
        labels: {
          'helm.toolkit.fluxcd.io/name': 'web',
          'helm.toolkit.fluxcd.io/namespace': 'flux-system',
          'app.kubernetes.io/managed-by': 'pulumi',
        },
        ownerReferences: [{ apiVersion: 'x/v1', kind: 'WebApp', name: 'web', uid: 'u', controller: true }],
        managedFields: [{ manager: 'argocd-controller', operation: 'Apply' }],
      }),
    );
    expect(warnings.map((w) => w.kind)).toEqual(['owner_reference', 'flux', 'managed_by', 'argo_cd']);
    expect(warnings[0]!.message).toContain("owned by WebApp 'web' (its controller)");
    expect(warnings[1]!.message).toContain("HelmRelease 'flux-system/web'");
    expect(warnings[3]!.message).toContain("field manager 'argocd-controller'");
  });
});

describe('autoscalerWarnings', () => {
  const hpa = (kind: string, name: string, apiVersion = 'apps/v1'): HorizontalPodAutoscaler =>
    ({
      metadata: { name: `hpa-${name}` },
      spec: { scaleTargetRef: { apiVersion, kind, name }, minReplicas: 2, maxReplicas: 6 },
    }) as HorizontalPodAutoscaler;

  it('warns only for autoscalers targeting this Deployment', () => {
    const all = [
      hpa('Deployment', 'web'),
      hpa('StatefulSet', 'web'),
      hpa('Deployment', 'api'),
      hpa('Deployment', 'web', 'example.com/v1'),
    ];
    expect(autoscalerWarnings(web(), all, 4).map((w) => w.message)).toEqual([
      "HorizontalPodAutoscaler 'hpa-web (min 2, max 6)' targets Deployment shop/web and sets its replica count itself: it may change the count again on its next sync (about 15 s) as load changes.",
    ]);
    expect(autoscalerWarnings(web(), all, 1)[0]!.message).toContain('1 is outside its range');
    expect(autoscalerWarnings(web(), all, 0)[0]!.message).toContain('never scales up from zero');
  });
});

describe('observationWarnings', () => {
  it('warns while the controller has not observed the latest generation', () => {
    expect(
      observationWarnings(deployment({ name: 'web', generation: 3, observedGeneration: 3 }) as Deployment),
    ).toEqual([]);
    expect(
      observationWarnings(deployment({ name: 'web', generation: 4, observedGeneration: 3 }) as Deployment)[0]!
        .message,
    ).toContain('generation 4, observed 3');
  });
});
