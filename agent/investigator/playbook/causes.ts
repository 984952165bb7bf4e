/**
 * Failure modes, worst first, and the one a Pod shows — with the container reasons triage uses
 * (tools/investigate/triage/findings.ts), so the investigator and triage never disagree on a class.
 */
import { CONFIG_ERROR, IMAGE_PULL } from '../../../tools/index.ts';
import type { EventView, PodView } from '../evidence.ts';

/** Failure modes, worst first: what the failing Pods show. */
export const CAUSES = [
  'image_pull',
  'config_error',
  'oom_killed',
  'liveness_kill',
  'startup_kill',
  'crash_loop',
  'unschedulable',
  'probe_failure',
  'container_failed',
  'unavailable',
] as const;
export type Cause = (typeof CAUSES)[number];

/** The failure mode of one Pod, or undefined when it is healthy (a liveness kill needs events: see `analyse`). */
export function podCause(pod: PodView): Cause | undefined {
  const causes: Cause[] = [];
  for (const c of pod.containers) {
    if (c.reason && IMAGE_PULL.has(c.reason)) causes.push('image_pull');
    else if (c.reason && CONFIG_ERROR.has(c.reason)) causes.push('config_error');
    else if (c.last_termination?.reason === 'OOMKilled' || c.reason === 'OOMKilled')
      causes.push('oom_killed');
    else if (c.reason === 'CrashLoopBackOff') causes.push('crash_loop');
    else if (c.state === 'terminated' && c.reason !== 'Completed') causes.push('container_failed');
    // Between back-offs a crash-looping container runs briefly (not ready yet); its restarts and
    // failed last termination, not its current state, say what it does.
    else if (c.state === 'running' && c.restarts > 0 && (c.last_termination?.exit_code ?? 0) !== 0)
      causes.push('crash_loop');
    else if (c.state === 'running' && !c.ready && c.type === 'app') causes.push('probe_failure');
  }
  if (causes.length === 0 && pod.phase === 'Pending' && pod.status === 'Pending')
    causes.push('unschedulable');
  return CAUSES.find((cause) => causes.includes(cause));
}

/**
 * Whether Warning `events` show a failing `Liveness` or `Startup` probe (`Unhealthy` "Liveness probe
 * failed: …", the kubelet prober's text): what makes a crash loop a probe kill.
 */
export function probeFailed(events: readonly EventView[], title: 'Liveness' | 'Startup'): boolean {
  const prefix = `${title} probe failed`;
  return events.some((e) => e.reason === 'Unhealthy' && e.message.startsWith(prefix));
}
