/**
 * A basic HorizontalPodAutoscaler controller (autoscaling/v2, as kube-controller-manager's
 * pkg/controller/podautoscaler runs it), for Deployments: every sync period (15 s,
 * --horizontal-pod-autoscaler-sync-period) it reads the target's CPU utilisation — declared by the
 * scenario (`utilization`), there being no metrics API — and computes
 * `desired = ceil(current × utilisation / target)` (replica_calculator.go), unchanged within the 10 %
 * tolerance, clamped to [minReplicas, maxReplicas]. It scales the Deployment, records
 * `SuccessfulRescale`, and writes status: currentReplicas, desiredReplicas, currentMetrics and the
 * conditions AbleToScale, ScalingActive and ScalingLimited (True TooManyReplicas at the maximum).
 * A Pod container without a CPU request leaves the utilisation undefined: ScalingActive=False
 * FailedGetResourceMetric "… missing request for cpu in container C of Pod P", Warning events
 * FailedGetResourceMetric and FailedComputeMetricsReplicas, and no scaling (the replica count holds).
 * Not modelled: scale-up/down rate limits and stabilisation windows (`behavior`), other metrics.
 */
import type { SimClock } from '../clock.ts';
import type { ObjectStore } from '../store.ts';
import type { Condition, Deployment, KubeObject, Pod } from '../types.ts';
import type { EventRecorder } from './events.ts';

/** --horizontal-pod-autoscaler-sync-period. */
export const HPA_SYNC_S = 15;
/** --horizontal-pod-autoscaler-tolerance. */
const TOLERANCE = 0.1;
/** autoscaling/v1's default targetCPUUtilizationPercentage, used when an HPA names no CPU target. */
const DEFAULT_TARGET = 80;
const SOURCE = { component: 'horizontal-pod-autoscaler' };

interface HorizontalPodAutoscaler extends KubeObject {
  spec: {
    scaleTargetRef: { kind: string; name: string; apiVersion?: string };
    minReplicas?: number;
    maxReplicas: number;
    metrics?: {
      type: string;
      resource?: { name: string; target?: { type?: string; averageUtilization?: number } };
    }[];
  };
  status?: { conditions?: Condition[]; lastScaleTime?: string; [key: string]: unknown };
}

/** A scenario's declared CPU utilisation of a Deployment's Pods (percent of their requests). */
export interface DeclaredUtilization {
  namespace: string;
  deployment: string;
  cpu: number;
  /** Epoch ms from which it holds (always when absent). */
  since?: number;
}

/** The CPU utilisation target of `hpa` (percent). */
function cpuTarget(hpa: HorizontalPodAutoscaler): number {
  const metric = hpa.spec.metrics?.find((m) => m.type === 'Resource' && m.resource?.name === 'cpu');
  return metric?.resource?.target?.averageUtilization ?? DEFAULT_TARGET;
}

/**
 * The replica count the HPA algorithm recommends for `current` replicas at `utilization` percent of
 * a `target` percent, before the min/max clamp: unchanged within the tolerance, else rounded up.
 */
export function recommendedReplicas(current: number, utilization: number, target: number): number {
  const ratio = utilization / target;
  if (Math.abs(ratio - 1) <= TOLERANCE) return current;
  return Math.ceil(ratio * current);
}

export class HorizontalPodAutoscalerController {
  readonly #store: ObjectStore;
  readonly #clock: SimClock;
  readonly #recorder: EventRecorder;
  readonly #utilization: readonly DeclaredUtilization[];

  constructor(
    store: ObjectStore,
    clock: SimClock,
    recorder: EventRecorder,
    utilization: readonly DeclaredUtilization[],
  ) {
    this.#store = store;
    this.#clock = clock;
    this.#recorder = recorder;
    this.#utilization = utilization;
  }

  /** Syncs every HPA now and then every `HPA_SYNC_S` seconds. */
  start(): void {
    const tick = () => {
      this.sync();
      this.#clock.schedule(this.#clock.now() + HPA_SYNC_S * 1000, tick);
    };
    this.#clock.schedule(this.#clock.now(), tick);
  }

  /** One pass over every HPA (the controller's reconcile of each key). */
  sync(): void {
    for (const hpa of this.#store.list<HorizontalPodAutoscaler>('horizontalpodautoscalers'))
      this.#syncOne(hpa);
  }

  #syncOne(hpa: HorizontalPodAutoscaler): void {
    const namespace = hpa.metadata.namespace!;
    const ref = hpa.spec.scaleTargetRef;
    const now = this.#clock.timestamp();
    const previous = hpa.status?.conditions ?? [];
    const condition = (type: string, ok: boolean, reason: string, message: string): Condition => {
      const status = ok ? 'True' : 'False';
      const before = previous.find((c) => c.type === type);
      const lastTransitionTime = before?.status === status ? before.lastTransitionTime! : now;
      return { type, status, lastTransitionTime, reason, message };
    };
    const deployment =
      ref.kind === 'Deployment' ? this.#store.get<Deployment>('deployments', namespace, ref.name) : undefined;
    if (!deployment) {
      const message = `the HPA controller was unable to get the target's current scale: deployments/scale.apps "${ref.name}" not found`;
      this.#writeStatus(hpa, { conditions: [condition('AbleToScale', false, 'FailedGetScale', message)] });
      return;
    }
    const current = deployment.spec.replicas ?? 1;
    const declared = this.#utilization
      .filter((u) => u.namespace === namespace && u.deployment === ref.name)
      .filter((u) => (u.since ?? -Infinity) <= this.#clock.now())
      .sort((a, b) => (a.since ?? -Infinity) - (b.since ?? -Infinity))
      .at(-1);
    if (!declared) {
      const message =
        'the HPA was unable to compute the replica count: failed to get cpu utilization: unable to get metrics for resource cpu: no metrics returned from resource metrics API';
      this.#writeStatus(hpa, {
        currentReplicas: current,
        desiredReplicas: current,
        conditions: [
          condition(
            'AbleToScale',
            true,
            'SucceededGetScale',
            "the HPA controller was able to get the target's current scale",
          ),
          condition('ScalingActive', false, 'FailedGetResourceMetric', message),
        ],
      });
      return;
    }
    // replica_calculator.go calculatePodRequests: utilisation is a percentage of the Pods' requests;
    // a container without a CPU request makes it undefined, and the HPA does not scale.
    const unrequested = this.#podWithoutCpuRequest(deployment);
    if (unrequested) {
      const error = `failed to get cpu utilization: missing request for cpu in container ${unrequested.container} of Pod ${unrequested.pod}`;
      this.#recorder.record(hpa, 'Warning', 'FailedGetResourceMetric', error, SOURCE);
      this.#recorder.record(
        hpa,
        'Warning',
        'FailedComputeMetricsReplicas',
        `invalid metrics (1 invalid out of 1), first error is: ${error}`,
        SOURCE,
      );
      this.#writeStatus(hpa, {
        ...(hpa.status?.lastScaleTime && { lastScaleTime: hpa.status.lastScaleTime }),
        currentReplicas: current,
        desiredReplicas: current,
        conditions: [
          condition(
            'AbleToScale',
            true,
            'SucceededGetScale',
            "the HPA controller was able to get the target's current scale",
          ),
          condition(
            'ScalingActive',
            false,
            'FailedGetResourceMetric',
            `the HPA was unable to compute the replica count: ${error}`,
          ),
        ],
      });
      return;
    }
    const min = hpa.spec.minReplicas ?? 1;
    const max = hpa.spec.maxReplicas;
    const recommended = recommendedReplicas(current, declared.cpu, cpuTarget(hpa));
    const desired = Math.min(max, Math.max(min, recommended));
    let lastScaleTime = hpa.status?.lastScaleTime;
    if (desired !== current) {
      const next = structuredClone(deployment);
      next.spec.replicas = desired;
      this.#store.update('deployments', next);
      lastScaleTime = now;
      const direction = desired > current ? 'above' : 'below';
      this.#recorder.record(
        hpa,
        'Normal',
        'SuccessfulRescale',
        `New size: ${desired}; reason: cpu resource utilization (percentage of request) ${direction} target`,
        SOURCE,
      );
    }
    const limited =
      recommended > max
        ? condition(
            'ScalingLimited',
            true,
            'TooManyReplicas',
            'the desired replica count is more than the maximum replica count',
          )
        : recommended < min
          ? condition(
              'ScalingLimited',
              true,
              'TooFewReplicas',
              'the desired replica count is less than the minimum replica count',
            )
          : condition(
              'ScalingLimited',
              false,
              'DesiredWithinRange',
              'the desired count is within the acceptable range',
            );
    this.#writeStatus(hpa, {
      ...(lastScaleTime && { lastScaleTime }),
      currentReplicas: current,
      desiredReplicas: desired,
      currentMetrics: [
        { type: 'Resource', resource: { name: 'cpu', current: { averageUtilization: declared.cpu } } },
      ],
      conditions: [
        desired !== current
          ? condition(
              'AbleToScale',
              true,
              'SucceededRescale',
              `the HPA controller was able to update the target scale to ${desired}`,
            )
          : condition('AbleToScale', true, 'ReadyForNewScale', 'recommended size matches current size'),
        condition(
          'ScalingActive',
          true,
          'ValidMetricFound',
          'the HPA was able to successfully calculate a replica count from cpu resource utilization (percentage of request)',
        ),
        limited,
      ],
    });
  }

  /** The first Pod of `deployment` (by its selector, not terminating) with a container lacking `requests.cpu`. */
  #podWithoutCpuRequest(deployment: Deployment): { pod: string; container: string } | undefined {
    const selector = deployment.spec.selector?.matchLabels ?? {};
    const pods = this.#store
      .list<Pod>('pods', deployment.metadata.namespace)
      .filter(
        (pod) =>
          !pod.metadata.deletionTimestamp &&
          Object.entries(selector).every(([key, value]) => pod.metadata.labels?.[key] === value),
      );
    for (const pod of pods) {
      const container = pod.spec.containers.find((c) => c.resources?.requests?.['cpu'] === undefined);
      if (container) return { pod: pod.metadata.name, container: container.name };
    }
    return undefined;
  }

  #writeStatus(hpa: HorizontalPodAutoscaler, status: Record<string, unknown>): void {
    const current = this.#store.get<HorizontalPodAutoscaler>(
      'horizontalpodautoscalers',
      hpa.metadata.namespace,
      hpa.metadata.name,
    );
    if (!current) return;
    this.#store.update('horizontalpodautoscalers', {
      ...current,
      status: { observedGeneration: current.metadata.generation, ...status },
    } as KubeObject);
  }
}
