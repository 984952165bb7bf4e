/**
 * The HorizontalPodAutoscalers that set a workload's replica count, as `kubectl describe hpa` shows
 * them: bounds, current and desired replicas, each metric current vs target, and the conditions —
 * `at_max` when the HPA wants more replicas than its maxReplicas allows (ScalingLimited=True
 * TooManyReplicas, the controller's own verdict).
 */
import { z } from 'zod';
import type { HorizontalPodAutoscaler } from '../kube/index.ts';

export const AutoscalerSchema = z.object({
  name: z.string(),
  min_replicas: z.number().int(),
  max_replicas: z.number().int(),
  current_replicas: z.number().int().nullable(),
  desired_replicas: z.number().int().nullable(),
  metrics: z
    .array(
      z.object({
        name: z.string().describe('e.g. cpu'),
        current_utilization: z.number().nullable().describe('Percent of the Pods’ requests'),
        target_utilization: z.number().nullable().describe('Percent of the Pods’ requests'),
      }),
    )
    .describe('Resource metrics, current vs target'),
  conditions: z.array(
    z.object({
      type: z.string(),
      status: z.string(),
      reason: z.string().nullable(),
      message: z.string().nullable(),
    }),
  ),
  at_max: z.boolean().describe('ScalingLimited=True TooManyReplicas: it wants more than maxReplicas'),
});
export type Autoscaler = z.infer<typeof AutoscalerSchema>;

/** The HPAs among `autoscalers` whose scaleTargetRef is `kind` `name`, described. */
export function autoscalersFor(
  autoscalers: readonly HorizontalPodAutoscaler[],
  kind: string,
  name: string,
): Autoscaler[] {
  return autoscalers
    .filter((hpa) => hpa.spec?.scaleTargetRef?.kind === kind && hpa.spec.scaleTargetRef.name === name)
    .map((hpa) => {
      const conditions = (hpa.status?.conditions ?? []).map((c) => ({
        type: c.type,
        status: c.status,
        reason: c.reason ?? null,
        message: c.message ?? null,
      }));
      const metrics = (hpa.spec?.metrics ?? [])
        .filter((m) => m.type === 'Resource' && m.resource)
        .map((m) => ({
          name: m.resource!.name,
          target_utilization: m.resource!.target?.averageUtilization ?? null,
          current_utilization:
            hpa.status?.currentMetrics?.find(
              (c) => c.type === 'Resource' && c.resource?.name === m.resource!.name,
            )?.resource?.current?.averageUtilization ?? null,
        }));
      return {
        name: hpa.metadata?.name ?? '',
        min_replicas: hpa.spec?.minReplicas ?? 1,
        max_replicas: hpa.spec?.maxReplicas ?? 0,
        current_replicas: hpa.status?.currentReplicas ?? null,
        desired_replicas: hpa.status?.desiredReplicas ?? null,
        metrics,
        conditions,
        at_max: conditions.some(
          (c) => c.type === 'ScalingLimited' && c.status === 'True' && c.reason === 'TooManyReplicas',
        ),
      };
    });
}

/** `checkout: 10 of 3..10 replicas (at max), cpu 180% / 60%`. */
export function describeAutoscalerLine(a: Autoscaler): string {
  const metrics = a.metrics
    .map((m) => `${m.name} ${m.current_utilization ?? '?'}% / ${m.target_utilization ?? '?'}%`)
    .join(', ');
  return `${a.name}: ${a.current_replicas ?? '?'} of ${a.min_replicas}..${a.max_replicas} replicas${a.at_max ? ' (AT MAX: ScalingLimited TooManyReplicas)' : ''}${metrics ? `, ${metrics}` : ''}`;
}
