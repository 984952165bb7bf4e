/**
 * An autoscaler pinned at its maximum (issue 14): the Deployment's Pods are overloaded (readiness
 * probes time out, replicas unavailable) while a HorizontalPodAutoscaler that owns its replica count
 * wants more than its maxReplicas (ScalingLimited=True TooManyReplicas, from get_deployment's
 * `autoscalers`), and no recent rollout explains it. Refused (`hpa-at-max`), naming the HPA, its
 * maximum and the utilisation: a restart takes capacity away while Pods restart, a rollback returns
 * to the same template, and scaling the Deployment is undone by the HPA on its next sync (it owns
 * `spec.replicas`). Raising maxReplicas is an HPA change Sentinel has no tool for, and the cluster
 * must have room for it — the human decides. Pure.
 */
import type { DeploymentView } from '../evidence.ts';
import { decision, type Analysis, type FailureClass } from './context.ts';
import { noteFailure } from './failures.ts';

export type AutoscalerView = NonNullable<DeploymentView['autoscalers']>[number];

/** Overload shows as Pods that run but are not ready, or as missing available replicas. */
export const OVERLOAD_CAUSES = new Set(['probe_failure', 'unavailable']);

/** `cpu 180% of requests (target 60%)`. */
export function utilisation(hpa: AutoscalerView): string {
  return hpa.metrics
    .map(
      (m) =>
        `${m.name} ${m.current_utilization ?? '?'}% of requests (target ${m.target_utilization ?? '?'}%)`,
    )
    .join(', ');
}

/** Records the autoscaler's name, bounds, replicas and CPU utilisation vs target in the facts. */
export function noteAutoscaler(a: Analysis, hpa: AutoscalerView): void {
  a.facts.hpa = hpa.name;
  a.facts.hpa_min_replicas = hpa.min_replicas;
  a.facts.hpa_max_replicas = hpa.max_replicas;
  if (hpa.current_replicas !== null) a.facts.replicas = hpa.current_replicas;
  const cpu = hpa.metrics.find((m) => m.name === 'cpu');
  if (cpu?.current_utilization != null) a.facts.cpu_utilization = cpu.current_utilization;
  if (cpu?.target_utilization != null) a.facts.cpu_target = cpu.target_utilization;
}

export const autoscalerAtMax: FailureClass = (a) => {
  if (!a.cause || !OVERLOAD_CAUSES.has(a.cause) || a.recentChange) return undefined;
  const hpa = a.deployment?.autoscalers?.find((candidate) => candidate.at_max);
  if (!hpa) return undefined;
  noteFailure(a, 'hpa_at_max');
  noteAutoscaler(a, hpa);
  const limited = hpa.conditions.find((c) => c.type === 'ScalingLimited');
  a.evidence.add(
    a.suspect.deployment?.source ?? 'get_deployment',
    `HorizontalPodAutoscaler ${hpa.name}: ${hpa.current_replicas ?? '?'} of ${hpa.min_replicas}..${hpa.max_replicas} replicas, ${utilisation(hpa)}; ScalingLimited=${limited?.status ?? '?'} ${limited?.reason ?? ''}`,
  );
  return {
    ...decision(
      a,
      'refused',
      `${a.ref} is overloaded: HorizontalPodAutoscaler ${a.namespace}/${hpa.name} is pinned at its maximum of ${hpa.max_replicas} replicas (ScalingLimited TooManyReplicas) at ${utilisation(hpa)}; its Pods ${a.cause === 'probe_failure' ? 'fail their readiness probes' : 'are not available'}, and nothing was rolled out recently.`,
      `The load exceeds what ${hpa.max_replicas} replicas serve. A restart takes capacity away while Pods restart, a rollback returns to the same template, and scaling the Deployment is undone by the HorizontalPodAutoscaler on its next sync (it owns the replica count). Raise its maxReplicas if the cluster has room (\`kubectl patch hpa ${hpa.name} -n ${a.namespace} -p '{"spec":{"maxReplicas":N}}'\`), or shed load; Sentinel does not change HorizontalPodAutoscalers.`,
      { refusal: 'hpa-at-max' },
    ),
    cause: 'hpa_at_max',
  };
};
