/**
 * HPA pinned at min (agent/investigator/playbook/autoscaler-at-min.ts). What an SRE expects:
 * - overloaded Pods whose HorizontalPodAutoscaler sits at minReplicas because it cannot compute its
 *   metric (ScalingActive=False): the autoscaler is broken, not the Pods — refused (`hpa-at-min`),
 *   naming the HPA, its minimum, why it cannot scale and the revision that removed the CPU request;
 *   never a restart (it takes capacity away);
 * - not-ready Pods whose HPA is at its minimum with utilisation below target: load is low, so it is
 *   not capacity — the readiness class decides (a restart), and the diagnosis says so.
 */
import { describe, expect, it } from 'vitest';
import { decide } from '../../../../agent/investigator/playbook.ts';
import type { DeploymentView, RevisionView } from '../../../../agent/investigator/evidence.ts';
import { event, NOW, pod, rev, sourced, suspect } from '../../../helpers/playbook.ts';

type Autoscaler = NonNullable<DeploymentView['autoscalers']>[number];

const MISSING =
  'the HPA was unable to compute the replica count: failed to get cpu utilization: missing request for cpu in container app of Pod app-2-a';

const stuck: Autoscaler = {
  name: 'web',
  min_replicas: 2,
  max_replicas: 10,
  current_replicas: 2,
  metrics: [{ name: 'cpu', current_utilization: null, target_utilization: 60 }],
  conditions: [
    { type: 'AbleToScale', status: 'True', reason: 'SucceededGetScale' },
    { type: 'ScalingActive', status: 'False', reason: 'FailedGetResourceMetric', message: MISSING },
  ],
  at_max: false,
};

const idle: Autoscaler = {
  ...stuck,
  metrics: [{ name: 'cpu', current_utilization: 8, target_utilization: 60 }],
  conditions: [
    { type: 'ScalingActive', status: 'True', reason: 'ValidMetricFound' },
    { type: 'ScalingLimited', status: 'True', reason: 'TooFewReplicas' },
  ],
};

const removedRequest: RevisionView['changes'][number] = {
  kind: 'resources',
  container: 'app',
  key: 'requests.cpu',
  from: '500m',
  to: null,
  text: '',
};

function decideWith(autoscalers: Autoscaler[]) {
  const evidence = suspect('app', {
    pods: [pod('app-2-a', 2, 1440, { ready: false }), pod('app-2-b', 2, 1440, { ready: false })],
    events: sourced(
      [event('app-2-a', 'Unhealthy', 'Readiness probe failed: context deadline exceeded', 15)],
      'list_events',
    ),
    history: sourced(
      [rev(2, 1440, 0, { current: true, changes: [removedRequest] }), rev(1, 3 * 1440, 0)],
      'get_rollout_history',
    ),
  });
  evidence.deployment!.value.autoscalers = autoscalers;
  return decide({ namespace: 'shop', now: NOW, suspect: evidence });
}

describe('HPA at min class', () => {
  it('refuses (hpa-at-min) when the HPA cannot compute its metric, naming why and the change behind it', () => {
    const decision = decideWith([stuck]);
    expect(decision).toMatchObject({ action: 'refused', refusal: 'hpa-at-min', cause: 'hpa_at_min' });
    expect(decision.facts).toMatchObject({
      failure: 'hpa_at_min',
      hpa: 'web',
      hpa_min_replicas: 2,
      hpa_max_replicas: 10,
      replicas: 2,
      hpa_reason: 'FailedGetResourceMetric',
      changed_field: 'requests.cpu',
      changed_from: '500m',
    });
    expect(decision.diagnosis).toContain(
      'HorizontalPodAutoscaler shop/web is stuck at its minimum of 2 replicas: it cannot compute its metric (ScalingActive=False FailedGetResourceMetric: failed to get cpu utilization: missing request for cpu in container app of Pod app-2-a)',
    );
    expect(decision.diagnosis).toContain('revision 2 (24 hours ago)');
    expect(decision.diagnosis).toContain('removed requests.cpu of container app (500m → (none))');
    expect(decision.explanation).toContain('kubectl scale deployment app -n shop --replicas=N');
    expect(decision.remediation).toBeNull();
  });

  it('at its minimum with utilisation below target: not capacity — the readiness class restarts, saying so', () => {
    const decision = decideWith([idle]);
    expect(decision.action).toBe('restart');
    expect(decision.diagnosis).toContain(
      'HorizontalPodAutoscaler shop/web is at its minimum of 2 replicas at cpu 8% of requests (target 60%): load is low, so this is not a capacity problem',
    );
    expect(decision.facts).toMatchObject({ hpa: 'web', hpa_min_replicas: 2, cpu_utilization: 8 });
    expect(decision.facts.failure).toBeUndefined();
  });

  it('an HPA above its minimum that cannot read metrics is not this class', () => {
    expect(decideWith([{ ...stuck, current_replicas: 5 }]).action).toBe('restart');
  });
});
