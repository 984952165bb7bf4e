/**
 * The simulator's HorizontalPodAutoscaler controller: the autoscaling algorithm
 * (ceil(current × utilisation / target), 10 % tolerance, min/max clamp) and what a pinned HPA reports.
 */
import { describe, expect, it } from 'vitest';
import { SimulatedCluster } from '../../../../deploy/sim/cluster.ts';
import { recommendedReplicas } from '../../../../deploy/sim/controllers/horizontal-pod-autoscaler.ts';
import { loadScenario } from '../../../../deploy/sim/scenario/load.ts';
import type { CoreEvent, Deployment, KubeObject } from '../../../../deploy/sim/types.ts';

describe('HPA algorithm', () => {
  it('scales by the utilisation ratio, rounding up, and holds within the 10 % tolerance', () => {
    expect(recommendedReplicas(4, 180, 60)).toBe(12);
    expect(recommendedReplicas(4, 65, 60)).toBe(4);
    expect(recommendedReplicas(10, 30, 60)).toBe(5);
  });
});

describe('HPA controller', () => {
  it('hpa-at-max: scaled checkout to maxReplicas, ScalingLimited TooManyReplicas, SuccessfulRescale', () => {
    const sim = new SimulatedCluster({ scenario: loadScenario('hpa-at-max'), timeScale: 0 });
    expect(sim.store.get<Deployment>('deployments', 'shop', 'checkout')!.spec.replicas).toBe(10);
    const hpa = sim.store.get<KubeObject & { status: Record<string, unknown> }>(
      'horizontalpodautoscalers',
      'shop',
      'checkout',
    )!;
    expect(hpa.status).toMatchObject({
      currentReplicas: 10,
      desiredReplicas: 10,
      currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 180 } } }],
    });
    expect(hpa.status['conditions']).toContainEqual(
      expect.objectContaining({ type: 'ScalingLimited', status: 'True', reason: 'TooManyReplicas' }),
    );
    const rescale = sim.store
      .list<CoreEvent>('events', 'shop')
      .filter((e) => e.reason === 'SuccessfulRescale');
    expect(rescale.map((e) => e.message)).toContain(
      'New size: 10; reason: cpu resource utilization (percentage of request) above target',
    );
  });

  it('a scale of the Deployment by hand is undone on the next sync', () => {
    const sim = new SimulatedCluster({ scenario: loadScenario('hpa-at-max'), timeScale: 0 });
    const d = sim.store.get<Deployment>('deployments', 'shop', 'checkout')!;
    sim.store.update('deployments', { ...d, spec: { ...d.spec, replicas: 14 } });
    sim.clock.advance(16_000);
    sim.reconcile();
    expect(sim.store.get<Deployment>('deployments', 'shop', 'checkout')!.spec.replicas).toBe(10);
  });
});

describe('HPA controller without CPU requests', () => {
  it('hpa-at-min: a container without a CPU request stops the HPA at its minimum, in the controller’s words', () => {
    const sim = new SimulatedCluster({ scenario: loadScenario('hpa-at-min'), timeScale: 0 });
    expect(sim.store.get<Deployment>('deployments', 'shop', 'checkout')!.spec.replicas).toBe(2);
    const hpa = sim.store.get<KubeObject & { status: Record<string, unknown> }>(
      'horizontalpodautoscalers',
      'shop',
      'checkout',
    )!;
    expect(hpa.status).toMatchObject({ currentReplicas: 2, desiredReplicas: 2 });
    expect(hpa.status['currentMetrics']).toBeUndefined();
    const active = (hpa.status['conditions'] as { type: string; message: string }[]).find(
      (c) => c.type === 'ScalingActive',
    );
    expect(active).toMatchObject({ status: 'False', reason: 'FailedGetResourceMetric' });
    expect(active!.message).toMatch(
      /^the HPA was unable to compute the replica count: failed to get cpu utilization: missing request for cpu in container checkout of Pod checkout-[a-z0-9]+-[a-z0-9]{5}$/,
    );
    const warnings = sim.store
      .list<CoreEvent>('events', 'shop')
      .filter((e) => e.type === 'Warning' && e.involvedObject.kind === 'HorizontalPodAutoscaler')
      .map((e) => `${e.reason}: ${e.message.replace(/Pod checkout-\S+/, 'Pod P')}`);
    expect(warnings).toContain(
      'FailedGetResourceMetric: failed to get cpu utilization: missing request for cpu in container checkout of Pod P',
    );
    expect(warnings).toContain(
      'FailedComputeMetricsReplicas: invalid metrics (1 invalid out of 1), first error is: failed to get cpu utilization: missing request for cpu in container checkout of Pod P',
    );
  });
});
