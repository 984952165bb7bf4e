/**
 * autoscaling/v1 ↔ autoscaling/v2 HorizontalPodAutoscalers (stored as v2), as the API server's
 * conversion does for the one metric v1 can say: `targetCPUUtilizationPercentage` is the v2
 * `Resource` metric `cpu` with an `Utilization` target (and `currentCPUUtilizationPercentage` its
 * current value). Simplified: other v2 metrics are not carried through v1 in the
 * `autoscaling.alpha.kubernetes.io/*` annotations, so a v1 write keeps only the CPU target.
 */
import type { KubeObject } from '../types.ts';

interface V2Metric {
  type?: string;
  resource?: { name?: string; target?: { type?: string; averageUtilization?: number } };
}
interface V2Spec {
  scaleTargetRef?: unknown;
  minReplicas?: number;
  maxReplicas?: number;
  metrics?: V2Metric[];
  [key: string]: unknown;
}
interface V2Status {
  currentReplicas?: number;
  desiredReplicas?: number;
  lastScaleTime?: string;
  observedGeneration?: number;
  currentMetrics?: {
    type?: string;
    resource?: { name?: string; current?: { averageUtilization?: number } };
  }[];
}

const isCpu = (metric: { type?: string; resource?: { name?: string } }) =>
  metric.type === 'Resource' && metric.resource?.name === 'cpu';

/** A stored (v2) HPA as autoscaling/v1 serves it. */
export function hpaToV1(object: KubeObject): KubeObject {
  const spec = (object['spec'] ?? {}) as V2Spec;
  const status = object['status'] as V2Status | undefined;
  const cpu = spec.metrics?.find(isCpu)?.resource?.target?.averageUtilization;
  const currentCpu = status?.currentMetrics?.find(isCpu)?.resource?.current?.averageUtilization;
  return {
    ...object,
    apiVersion: 'autoscaling/v1',
    spec: {
      scaleTargetRef: spec.scaleTargetRef,
      ...(spec.minReplicas !== undefined && { minReplicas: spec.minReplicas }),
      ...(spec.maxReplicas !== undefined && { maxReplicas: spec.maxReplicas }),
      ...(cpu !== undefined && { targetCPUUtilizationPercentage: cpu }),
    },
    ...(status && {
      status: {
        ...(status.observedGeneration !== undefined && { observedGeneration: status.observedGeneration }),
        ...(status.lastScaleTime && { lastScaleTime: status.lastScaleTime }),
        currentReplicas: status.currentReplicas ?? 0,
        desiredReplicas: status.desiredReplicas ?? 0,
        ...(currentCpu !== undefined && { currentCPUUtilizationPercentage: currentCpu }),
      },
    }),
  };
}

/** An autoscaling/v1 HPA as stored (v2); `status` is kept as given (the main resource ignores it). */
export function hpaFromV1(object: KubeObject): KubeObject {
  const spec = (object['spec'] ?? {}) as {
    scaleTargetRef?: unknown;
    minReplicas?: number;
    maxReplicas?: number;
    targetCPUUtilizationPercentage?: number;
  };
  return {
    ...object,
    apiVersion: 'autoscaling/v2',
    spec: {
      scaleTargetRef: spec.scaleTargetRef,
      ...(spec.minReplicas !== undefined && { minReplicas: spec.minReplicas }),
      ...(spec.maxReplicas !== undefined && { maxReplicas: spec.maxReplicas }),
      ...(spec.targetCPUUtilizationPercentage !== undefined && {
        metrics: [
          {
            type: 'Resource',
            resource: {
              name: 'cpu',
              target: { type: 'Utilization', averageUtilization: spec.targetCPUUtilizationPercentage },
            },
          },
        ],
      }),
    },
  };
}
