/**
 * Scaling a StatefulSet — `kubectl scale statefulset/<name> --replicas=N`, through the `scale`
 * subresource. `scale_deployment` calls it for `kind: StatefulSet`. What a StatefulSet adds to a
 * Deployment's scale: Pods go in order (the highest ordinal first, one at a time with
 * `OrderedReady`), and the PersistentVolumeClaims of removed Pods are kept unless
 * `persistentVolumeClaimRetentionPolicy.whenScaled` is `Delete`.
 */
import { SentinelError } from '../errors.ts';
import type { HorizontalPodAutoscaler, StatefulSet } from '../kube/index.ts';
import { annotationPatch, FIELD_MANAGER } from './attribution.ts';
import { podClaims } from './delete-pod.ts';
import { targetOf, type ObjectPlan } from './plan.ts';
import { outcomeUnknown } from './run.ts';
import { describeAutoscaler, type Warning } from './warnings.ts';
import { statefulSetVerdict } from '../kube/index.ts';
import { workloadManagementWarnings, workloadObservationWarnings, workloadRef } from './workload.ts';

/** The HorizontalPodAutoscalers whose `scaleTargetRef` is this StatefulSet. */
export function statefulSetAutoscalers(
  sts: StatefulSet,
  autoscalers: readonly HorizontalPodAutoscaler[],
): HorizontalPodAutoscaler[] {
  return autoscalers.filter((hpa) => {
    const target = hpa.spec?.scaleTargetRef;
    const group = target?.apiVersion?.split('/')[0];
    return (
      target?.kind === 'StatefulSet' &&
      target.name === sts.metadata?.name &&
      (target.apiVersion === undefined || group === 'apps')
    );
  });
}

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
  const warnings: Warning[] = [];
  if (to === 0 && from !== 0) {
    warnings.push({
      kind: 'scale_to_zero',
      message: `Scaling to 0 stops every Pod of ${ref}: it serves nothing until it is scaled up again.`,
    });
  }
  for (const hpa of statefulSetAutoscalers(sts, autoscalers)) {
    const min = hpa.spec?.minReplicas ?? 1;
    const max = hpa.spec?.maxReplicas ?? 0;
    const consequence =
      to === 0
        ? 'at 0 replicas it stops autoscaling (an autoscaler never scales up from zero) until the StatefulSet is scaled up again'
        : to < min || to > max
          ? `${to} is outside its range, so it will set the count back to between ${min} and ${max} on its next sync (about 15 s)`
          : 'it may change the count again on its next sync (about 15 s) as load changes';
    warnings.push({
      kind: 'hpa',
      message: `HorizontalPodAutoscaler '${describeAutoscaler(hpa)}' targets ${ref} and sets its replica count itself: ${consequence}.`,
    });
  }
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
 * put back if the API server refuses the scale. Pure.
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
      target: targetOf(sts, 'StatefulSet'),
      replicas_from: from,
      replicas_to: to,
      autoscalers: statefulSetAutoscalers(sts, autoscalers).map(describeAutoscaler),
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
  if (from === to) {
    return { ...plan, summary: `${ref} already has ${to} replica${to === 1 ? '' : 's'}`, changes: [] };
  }
  return {
    ...plan,
    summary: `Scale ${ref} from ${from} to ${to} replica${to === 1 ? '' : 's'}`,
    changes: [{ kind: 'replicas', from, to, text: `spec.replicas: ${from} → ${to}` }],
    apply: async ({ writer, reader }, stamps) => {
      const current = sts.metadata?.annotations ?? {};
      const stamp = annotationPatch(current, stamps);
      const options = { fieldManager: FIELD_MANAGER };
      if (Object.keys(stamp).length > 0) {
        await writer.patchStatefulSetStrategic(
          namespace,
          name,
          { metadata: { annotations: stamp } },
          options,
        );
      }
      try {
        await writer.patchStatefulSetScale(namespace, name, { spec: { replicas: to } }, options);
      } catch (error) {
        if (Object.keys(stamp).length === 0 || outcomeUnknown(error)) throw error;
        const restore = Object.fromEntries(Object.keys(stamp).map((key) => [key, current[key] ?? null]));
        const restored = await writer
          .patchStatefulSetStrategic(namespace, name, { metadata: { annotations: restore } }, options)
          .then(
            () => true,
            () => false,
          );
        const failure = error instanceof SentinelError ? error : undefined;
        throw new SentinelError(
          failure?.code ?? 'internal',
          `${failure?.message ?? 'The scale request failed.'} ${ref} was not scaled; ${restored ? "Sentinel's annotations were put back" : "Sentinel's attribution annotations (sentinel.dev/) stay on it and could not be put back"}.`,
          { kind: 'StatefulSet', namespace, name, cause: error },
        );
      }
      return reader.getStatefulSet(namespace, name);
    },
  };
}
