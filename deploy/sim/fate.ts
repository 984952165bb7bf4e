/**
 * What happens to a container the simulated kubelet starts. Scenario fate rules resolve to one of
 * these per container when its Pod is created.
 */

/**
 * Resource usage a running container reports to the metrics API (metrics.k8s.io PodMetrics, what
 * `kubectl top pod` shows), as Kubernetes quantities (`250m`, `124Mi`).
 */
export interface ContainerUsage {
  cpu?: string | undefined;
  memory?: string | undefined;
}

export type ContainerFate = FateKind & {
  /** Usage reported by the metrics API; absent: defaults (api/metrics.ts). */
  usage?: ContainerUsage | undefined;
};

type FateKind =
  /** Starts, becomes ready after `readyAfterSeconds`, keeps running. */
  | { kind: 'healthy'; readyAfterSeconds: number; logs: string[] }
  /**
   * Starts, prints `logs`, exits with `exitCode` after `runSeconds`; restarts with back-off. With
   * `since` (epoch ms) in the future, runs ready until then, then exits (a failure that begins later).
   */
  | { kind: 'crashLoop'; since?: number; runSeconds: number; exitCode: number; logs: string[] }
  /** Like crashLoop but killed by the kernel OOM killer (exit 137, reason OOMKilled). */
  | { kind: 'oomKilled'; since?: number; runSeconds: number; logs: string[] }
  /**
   * The image cannot be pulled (ErrImagePull, then ImagePullBackOff): the registry refuses for
   * `cause`, worded as containerd does, or with `message` as the CRI error.
   */
  | { kind: 'imagePullError'; cause: 'notFound' | 'unauthorized' | 'forbidden'; message?: string | undefined }
  /**
   * Runs and is ready until `since` (epoch ms; immediately when absent), then its readiness probe
   * fails with `probeMessage` and it prints `failureLogs` (one line per failed probe, cycling).
   */
  | {
      kind: 'readinessFailure';
      since?: number;
      readyAfterSeconds: number;
      probeMessage: string;
      logs: string[];
      failureLogs: string[];
    }
  /**
   * Runs and is ready (after `readyAfterSeconds`) until `since` (epoch ms; immediately when absent);
   * from then on its liveness probe (the container's `livenessProbe`: initialDelaySeconds,
   * periodSeconds, failureThreshold) fails with `probeMessage`, and after `failureThreshold`
   * consecutive failures the kubelet kills it (exit 137, reason Error) and restarts it with back-off.
   * Without a `livenessProbe` in the template nothing probes it: it stays healthy.
   */
  | {
      kind: 'livenessFailure';
      since?: number;
      readyAfterSeconds: number;
      probeMessage: string;
      logs: string[];
      failureLogs: string[];
    }
  /**
   * Starts but never passes its startup probe (the container's `startupProbe`): after
   * `failureThreshold` failures every `periodSeconds` the kubelet kills it (exit 137, reason Error)
   * and restarts it with back-off; it is never started nor ready. Without a `startupProbe` in the
   * template it stays healthy.
   */
  | { kind: 'startupFailure'; probeMessage: string; logs: string[]; failureLogs: string[] }
  /** The scheduler finds no node (`message` is the FailedScheduling text). */
  | { kind: 'unschedulable'; message: string };

export const DEFAULT_HEALTHY: ContainerFate = { kind: 'healthy', readyAfterSeconds: 2, logs: [] };
