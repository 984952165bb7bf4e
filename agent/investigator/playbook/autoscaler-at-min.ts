/**
 * An autoscaler stuck at its minimum (issue 14). What an SRE expects, and what this class decides:
 * - The Deployment's Pods are overloaded (not ready, unavailable), no recent rollout explains it, and
 *   its HorizontalPodAutoscaler sits at minReplicas because it cannot compute its metric
 *   (ScalingActive=False, e.g. FailedGetResourceMetric "missing request for cpu in container C of
 *   Pod P", or no metrics from the resource metrics API): the autoscaler is what is broken. Refused
 *   (`hpa-at-min`), naming the HPA, its minimum, the condition's reason and message, and the revision
 *   that removed a CPU request when one did: a restart takes capacity away while Pods restart, and a
 *   rollback of an old revision to fix one field discards everything since. While ScalingActive is
 *   False the controller does not rescale (pkg/controller/podautoscaler, reconcileAutoscaler returns
 *   on the metric error), so a manual scale holds as a stopgap — the human's call.
 * - At minReplicas with utilisation below target (ScalingActive=True): load is low, so not-ready Pods
 *   are not a capacity problem. This class does not decide; `lowLoadNote` adds that to the readiness
 *   class's diagnosis (./restart.ts). Pure.
 */
import { decision, minutesAgo, type Analysis, type FailureClass } from './context.ts';
import { noteFailure } from './failures.ts';
import { noteAutoscaler, OVERLOAD_CAUSES, utilisation, type AutoscalerView } from './autoscaler.ts';

const atMin = (hpa: AutoscalerView) =>
  hpa.current_replicas !== null && hpa.current_replicas <= hpa.min_replicas;
const inactive = (hpa: AutoscalerView) =>
  hpa.conditions.find((c) => c.type === 'ScalingActive' && c.status === 'False');

/** The newest revision (at any age) that removed a container's CPU request, and that change. */
function removedCpuRequest(a: Analysis) {
  for (const r of a.history) {
    const c = r.changes.find((c) => c.kind === 'resources' && c.key === 'requests.cpu' && c.to === null);
    if (c) return { revision: r, change: c };
  }
  return undefined;
}

export const autoscalerAtMin: FailureClass = (a) => {
  if (!a.cause || !OVERLOAD_CAUSES.has(a.cause) || a.recentChange) return undefined;
  const hpa = a.deployment?.autoscalers?.find((candidate) => atMin(candidate) && inactive(candidate));
  if (!hpa) return undefined;
  const condition = inactive(hpa)!;
  noteFailure(a, 'hpa_at_min');
  noteAutoscaler(a, hpa);
  if (condition.reason) a.facts.hpa_reason = condition.reason;
  const why = (condition.message ?? '').replace(/^the HPA was unable to compute the replica count: /, '');
  const removed = removedCpuRequest(a);
  if (removed) {
    a.facts.changed_field = 'requests.cpu';
    if (removed.change.from !== null) a.facts.changed_from = removed.change.from;
  }
  a.evidence.add(
    a.suspect.deployment?.source ?? 'get_deployment',
    `HorizontalPodAutoscaler ${hpa.name}: ${hpa.current_replicas ?? '?'} of ${hpa.min_replicas}..${hpa.max_replicas} replicas; ScalingActive=False ${condition.reason ?? ''}: ${condition.message ?? ''}`,
  );
  const change = removed
    ? `; revision ${removed.revision.revision} (${minutesAgo(a.now, Date.parse(removed.revision.created ?? ''))}) removed requests.cpu of container ${removed.change.container ?? '?'} (${removed.change.from ?? '(none)'} → (none))`
    : '';
  return {
    ...decision(
      a,
      'refused',
      `${a.ref} is overloaded: HorizontalPodAutoscaler ${a.namespace}/${hpa.name} is stuck at its minimum of ${hpa.min_replicas} replicas: it cannot compute its metric (ScalingActive=False ${condition.reason ?? '?'}${why ? `: ${why}` : ''})${change}; its Pods ${a.cause === 'probe_failure' ? 'fail their readiness probes' : 'are not available'}, and nothing was rolled out recently.`,
      `The autoscaler cannot scale out, so ${hpa.min_replicas} replicas carry the load. A restart takes capacity away while Pods restart, and a rollback to fix one field discards every change since. ${removed ? 'Give the container a CPU request again (utilisation is a percentage of it)' : 'Restore the metric the HPA reads (the resource metrics API, metrics-server)'}; as a stopgap, \`kubectl scale deployment ${a.suspect.name} -n ${a.namespace} --replicas=N\` holds while the HPA cannot compute (it does not rescale on a metric error). Sentinel does not change HorizontalPodAutoscalers.`,
      { refusal: 'hpa-at-min' },
    ),
    cause: 'hpa_at_min',
  };
};

/**
 * A diagnosis clause (starting with "; ", or "") for not-ready Pods whose HPA is at its minimum with
 * utilisation below target: load is low, so not capacity. Records the HPA's facts.
 */
export function lowLoadNote(a: Analysis): string {
  const hpa = a.deployment?.autoscalers?.find(
    (candidate) =>
      atMin(candidate) &&
      !inactive(candidate) &&
      candidate.metrics.some(
        (m) =>
          m.current_utilization !== null &&
          m.target_utilization !== null &&
          m.current_utilization < m.target_utilization,
      ),
  );
  if (!hpa) return '';
  noteAutoscaler(a, hpa);
  return `; HorizontalPodAutoscaler ${a.namespace}/${hpa.name} is at its minimum of ${hpa.min_replicas} replicas at ${utilisation(hpa)}: load is low, so this is not a capacity problem`;
}
