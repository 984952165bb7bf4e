/** get_deployment's `autoscalers` (tools/investigate/autoscalers.ts): the HPAs targeting a Deployment, described. */
import { describe, expect, it } from 'vitest';
import { autoscalersFor, describeAutoscalerLine } from '../../../tools/investigate/autoscalers.ts';
import type { HorizontalPodAutoscaler } from '../../../tools/kube/index.ts';

const hpa = (name: string, target: string, limited: 'True' | 'False'): HorizontalPodAutoscaler => ({
  metadata: { name, namespace: 'shop' },
  spec: {
    scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: target },
    minReplicas: 4,
    maxReplicas: 10,
    metrics: [
      {
        type: 'Resource',
        resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 60 } },
      },
    ],
  },
  status: {
    currentReplicas: 10,
    desiredReplicas: 10,
    currentMetrics: [{ type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: 180 } } }],
    conditions: [
      {
        type: 'ScalingLimited',
        status: limited,
        reason: limited === 'True' ? 'TooManyReplicas' : 'DesiredWithinRange',
        lastTransitionTime: new Date(0),
      },
    ],
  },
});

describe('autoscalersFor', () => {
  it('keeps the HPAs targeting the Deployment, with bounds, utilisation vs target and at_max', () => {
    const [checkout, ...rest] = autoscalersFor(
      [hpa('checkout', 'checkout', 'True'), hpa('search', 'search', 'True')],
      'Deployment',
      'checkout',
    );
    expect(rest).toEqual([]);
    expect(checkout).toMatchObject({
      name: 'checkout',
      min_replicas: 4,
      max_replicas: 10,
      current_replicas: 10,
      metrics: [{ name: 'cpu', current_utilization: 180, target_utilization: 60 }],
      at_max: true,
    });
    expect(describeAutoscalerLine(checkout!)).toBe(
      'checkout: 10 of 4..10 replicas (AT MAX: ScalingLimited TooManyReplicas), cpu 180% / 60%',
    );
  });

  it('is not at max while ScalingLimited is False', () => {
    expect(autoscalersFor([hpa('checkout', 'checkout', 'False')], 'Deployment', 'checkout')[0]!.at_max).toBe(
      false,
    );
  });
});
