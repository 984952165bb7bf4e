/**
 * Probe settings and the kubelet's probe texts, as the real kubelet has them:
 * - timing (pkg/kubelet/prober/worker.go): the first probe after `initialDelaySeconds`, then every
 *   `periodSeconds`; a result flips after `failureThreshold` consecutive failures. API defaults
 *   (pkg/apis/core/v1/defaults.go SetDefaults_Probe): periodSeconds 10, failureThreshold 3,
 *   timeoutSeconds 1, initialDelaySeconds 0.
 * - the failure event (pkg/kubelet/prober/prober.go `recordContainerEvent`): Warning `Unhealthy`
 *   "<Liveness|Readiness|Startup> probe failed: <output>".
 * - the kill (pkg/kubelet/kuberuntime/kuberuntime_manager.go `computePodActions`, then
 *   kuberuntime_container.go `killContainer`): Normal `Killing` "Container <name> failed liveness
 *   probe, will be restarted" (startup likewise); the container then ends with exit 137, reason Error.
 */
import type { Container } from '../types.ts';

export type ProbeType = 'liveness' | 'readiness' | 'startup';

export interface ProbeSettings {
  initialDelaySeconds: number;
  periodSeconds: number;
  failureThreshold: number;
}

const FIELD: Record<ProbeType, 'livenessProbe' | 'readinessProbe' | 'startupProbe'> = {
  liveness: 'livenessProbe',
  readiness: 'readinessProbe',
  startup: 'startupProbe',
};

/** A whole number of seconds ≥ `min` from a probe field, else the API default. */
function seconds(value: unknown, fallback: number, min: number): number {
  const number = Number(value);
  return Number.isInteger(number) && number >= min ? number : fallback;
}

/** The container's probe of `type` with API defaults applied; undefined when it has none. */
export function probeSettings(container: Container, type: ProbeType): ProbeSettings | undefined {
  const probe = container[FIELD[type]] as Record<string, unknown> | undefined;
  if (!probe || typeof probe !== 'object') return undefined;
  return {
    initialDelaySeconds: seconds(probe['initialDelaySeconds'], 0, 0),
    periodSeconds: seconds(probe['periodSeconds'], 10, 1),
    failureThreshold: seconds(probe['failureThreshold'], 3, 1),
  };
}

const TITLE: Record<ProbeType, string> = { liveness: 'Liveness', readiness: 'Readiness', startup: 'Startup' };

/** The `Unhealthy` event message: `Liveness probe failed: HTTP probe failed with statuscode: 500`. */
export function probeFailedMessage(type: ProbeType, output: string): string {
  return `${TITLE[type]} probe failed: ${output}`;
}

/** The `Killing` event message of a probe kill: `Container api failed liveness probe, will be restarted`. */
export function probeKillMessage(type: 'liveness' | 'startup', container: string): string {
  return `Container ${container} failed ${type} probe, will be restarted`;
}

/** How a probe-killed container ends: SIGTERM, then SIGKILL (128 + 9), reason Error. */
export const PROBE_KILL_TERMINATION = { exitCode: 137, reason: 'Error' } as const;
