/**
 * Scaling a StatefulSet — `kubectl scale statefulset/<name> --replicas=N`, through the `scale`
 * subresource. `scale_deployment` calls it for `kind: StatefulSet`. What a StatefulSet adds to a
 * Deployment's scale: Pods go in order (the highest ordinal first, one at a time with
 * `OrderedReady`), and the PersistentVolumeClaims of removed Pods are kept unless
 * `persistentVolumeClaimRetentionPolicy.whenScaled` is `Delete`.
 */
import type { HorizontalPodAutoscaler, StatefulSet } from '../kube/index.ts';
import { podClaims } from './delete-pod.ts';
import { effectTargetOf, type ObjectPlan } from './plan.ts';
import { scaleSummary, sendScale } from './scale.ts';
import {
  autoscalersOf,
  autoscalerWarnings,
  describeAutoscaler,
  scaleToZeroWarnings,
  type Warning,
} from './warnings.ts';
import { statefulSetVerdict } from '../kube/index.ts';
import { workloadManagementWarnings, workloadObservationWarnings, workloadRef } from './workload.ts';

/**
 * Warnings for scaling `sts` from `from` to `to`: scaling to 0; an autoscaler that owns the count (as
 * for a Deployment); on scale-down the order Pods go in (`podManagementPolicy`), and the
 * PersistentVolumeClaims of the removed ordinals that stay (named) unless the retention policy deletes
 * them.
 */
export function statefulSetScaleWarnings(
  sts: StatefulSet,
  autoscalers: readonly HorizontalPodAutoscaler[],
  from: number,
  to: number,
): Warning[] {
  const ref = workloadRef('StatefulSet', sts);
  const name = sts.metadata?.name ?? '';
  const warnings: Warning[] = [
    ...scaleToZeroWarnings(ref, from, to),
    ...autoscalerWarnings(sts, autoscalers, to, 'StatefulSet'),
  ];
  if (to < from) {
    const start = (sts.spec?.ordinals as { start?: number } | undefined)?.start ?? 0;
    const removed = Array.from({ length: from - to }, (_, i) => `${name}-${start + from - 1 - i}`);
    const parallel = sts.spec?.podManagementPolicy === 'Parallel';
    warnings.push({
      kind: 'ordered_termination',
      message: parallel
        ? `${ref} has podManagementPolicy Parallel: Pods ${removed.join(', ')} are terminated at once.`
        : `${ref} terminates Pods in order, highest ordinal first and one at a time, each only after the one before is gone: ${removed.join(', ')}; a Pod that does not terminate holds up the rest.`,
    });
    const claims = removed.flatMap((pod) => podClaims(sts, pod));
    const whenScaled = sts.spec?.persistentVolumeClaimRetentionPolicy?.whenScaled ?? 'Retain';
    if (claims.length > 0) {
      warnings.push({
        kind: 'pvc_retained',
        message:
          whenScaled === 'Delete'
            ? `${ref} deletes the PersistentVolumeClaims of removed Pods (persistentVolumeClaimRetentionPolicy.whenScaled: Delete): ${claims.join(', ')} and their data go.`
            : `The PersistentVolumeClaims of the removed Pods stay (persistentVolumeClaimRetentionPolicy.whenScaled: Retain): ${claims.join(', ')} keep their data and storage cost, and are reused if the StatefulSet is scaled up again.`,
      });
    }
  }
  return warnings;
}

/**
 * Plans a StatefulSet scale, as `planScale` does for a Deployment: from `spec.replicas` (default 1)
 * to `replicas`, equal counts a no-op; at execution the attribution annotations first (a metadata
 * patch), then the merge patch of `spec.replicas` on `statefulsets/<name>/scale`, the annotations
 * put back if the API server refuses the scale. The effect binds the kind, the target's uid,
 * `replicas_from`, `replicas_to` and the autoscalers — not `metadata.generation` (`planScale`). Pure.
 */
export function planStatefulSetScale(
  observed: { statefulSet: StatefulSet; autoscalers: HorizontalPodAutoscaler[] },
  args: { replicas: number },
): ObjectPlan {
  const { statefulSet: sts, autoscalers } = observed;
  const namespace = sts.metadata?.namespace ?? '';
  const name = sts.metadata?.name ?? '';
  const ref = workloadRef('StatefulSet', sts);
  const from = sts.spec?.replicas ?? 1;
  const to = args.replicas;
  const plan = {
    tool: 'scale_deployment',
    kind: 'StatefulSet' as const,
    object: sts,
    resolvedArguments: { namespace, name, kind: 'StatefulSet', replicas: to },
    effect: {
      tool: 'scale_deployment',
      kind: 'StatefulSet',
      target: effectTargetOf(sts, 'StatefulSet'),
      replicas_from: from,
      replicas_to: to,
      autoscalers: autoscalersOf(sts, autoscalers, 'StatefulSet').map(describeAutoscaler),
      ...(from === to && { no_op: true }),
    },
    warnings: [
      ...statefulSetScaleWarnings(sts, autoscalers, from, to),
      ...workloadManagementWarnings('StatefulSet', sts),
      ...workloadObservationWarnings('StatefulSet', sts),
    ],
    action: `scale from ${from} to ${to} replicas`,
    makesRevision: false,
    verdict: (written: StatefulSet) => statefulSetVerdict(written),
  };
  if (from === to) return { ...plan, ...scaleSummary(ref, from, to) };
  return {
    ...plan,
    ...scaleSummary(ref, from, to),
    apply: async ({ writer, reader }, stamps) => {
      const annotations = sts.metadata?.annotations;
      await sendScale(writer, { kind: 'StatefulSet', namespace, name, ref, annotations }, to, stamps);
      return reader.getStatefulSet(namespace, name);
    },
  };
}
