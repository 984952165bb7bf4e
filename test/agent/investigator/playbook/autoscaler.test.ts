/**
 * HPA pinned at max (agent/investigator/playbook/autoscaler.ts): overloaded Pods of a Deployment
 * whose HorizontalPodAutoscaler is at maxReplicas are refused (`hpa-at-max`), never restarted.
 */
import { describe, expect, it } from 'vitest';
import { decide } from '../../../../agent/investigator/playbook.ts';
import { event, NOW, pod, rev, sourced, suspect } from '../../../helpers/playbook.ts';

const hpa = (atMax: boolean) => ({
  name: 'web',
  min_replicas: 2,
  max_replicas: 6,
  current_replicas: 6,
  metrics: [{ name: 'cpu', current_utilization: 150, target_utilization: 70 }],
  conditions: [
    {
      type: 'ScalingLimited',
      status: atMax ? 'True' : 'False',
      reason: atMax ? 'TooManyReplicas' : 'DesiredWithinRange',
    },
  ],
  at_max: atMax,
});

function decideWith(autoscalers: ReturnType<typeof hpa>[]) {
  const evidence = suspect('app', {
    pods: [pod('app-1-a', 1, 3 * 1440, { ready: false }), pod('app-1-b', 1, 3 * 1440, { ready: false })],
    events: sourced(
      [event('app-1-a', 'Unhealthy', 'Readiness probe failed: context deadline exceeded', 15)],
      'list_events',
    ),
    history: sourced([rev(1, 3 * 1440, 0, { current: true })], 'get_rollout_history'),
  });
  evidence.deployment!.value.autoscalers = autoscalers;
  return decide({ namespace: 'shop', now: NOW, suspect: evidence });
}

describe('HPA at max class', () => {
  it('refuses (hpa-at-max), naming the HPA, its maximum and the utilisation', () => {
    const decision = decideWith([hpa(true)]);
    expect(decision).toMatchObject({ action: 'refused', refusal: 'hpa-at-max', cause: 'hpa_at_max' });
    expect(decision.facts).toMatchObject({
      failure: 'hpa_at_max',
      hpa: 'web',
      hpa_max_replicas: 6,
      cpu_utilization: 150,
      cpu_target: 70,
    });
    expect(decision.diagnosis).toContain(
      'HorizontalPodAutoscaler shop/web is pinned at its maximum of 6 replicas (ScalingLimited TooManyReplicas) at cpu 150% of requests (target 70%)',
    );
    expect(decision.explanation).toContain('undone by the HorizontalPodAutoscaler');
  });

  it('an HPA within range leaves the readiness class to decide (a restart)', () => {
    expect(decideWith([hpa(false)]).action).toBe('restart');
    expect(decideWith([]).action).toBe('restart');
  });
});
