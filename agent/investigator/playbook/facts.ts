/**
 * Exact diagnosis facts per failure class (issue 14), added to `Analysis.facts` and worded into the
 * diagnosis: the OOM-killed container's memory limit (and the change that set it) and its last memory
 * usage when the metrics API answered (`memory_usage`), the liveness
 * or startup probe that kills (./probe-kill.ts), the exit code and last log line of a crashing
 * container, why an image cannot be pulled (./image-pull.ts), a config error (./config-key.ts), and
 * the template field a revision changed. Pure.
 */
import type { RevisionView } from '../evidence.ts';
import type { Analysis } from './context.ts';
import { telltaleLogLines } from './context.ts';
import { configKeyDiagnosis } from './config-key.ts';
import { probeKillDiagnosis } from './probe-kill.ts';
import { imagePullDiagnosis } from './image-pull.ts';
import { noteFailure } from './failures.ts';

type Change = RevisionView['changes'][number];

/** Template fields whose change can make Pods unschedulable. */
const SCHEDULING_FIELDS = new Set([
  'nodeSelector',
  'affinity',
  'tolerations',
  'topologySpreadConstraints',
  'nodeName',
]);

/** Changes of the newest revision that can make its Pods unschedulable: raised requests, placement fields. */
export function schedulingChanges(a: Analysis): Change[] {
  return (a.newest?.changes ?? []).filter(
    (c) =>
      (c.kind === 'resources' && (c.key ?? '').startsWith('requests.')) ||
      (c.kind === 'pod_spec' && SCHEDULING_FIELDS.has(c.key ?? '')),
  );
}

/** `requests.cpu of container checkout 100m → 1`. */
export function describeChange(c: Change): string {
  const where = c.container ? ` of container ${c.container}` : '';
  return `${c.key ?? c.kind}${where} ${c.from ?? '(none)'} → ${c.to ?? '(none)'}`;
}

/** Records the first change in `changes` as `changed_field`, `changed_from`, `changed_to`. */
export function noteChange(a: Analysis, changes: Change[]): void {
  const c = changes[0];
  if (!c) return;
  a.facts.changed_field = c.key ?? c.kind;
  if (c.from !== null) a.facts.changed_from = c.from;
  if (c.to !== null) a.facts.changed_to = c.to;
}

/** A clause with the exact diagnosis of `a.cause` (starting with "; " or ""), facts recorded. */
export function exactDiagnosis(a: Analysis): string {
  switch (a.cause) {
    case 'oom_killed':
      return oomKilled(a);
    case 'liveness_kill':
    case 'startup_kill':
      return probeKillDiagnosis(a);
    case 'crash_loop':
    case 'container_failed':
      return appExit(a);
    case 'image_pull':
      return imagePullDiagnosis(a);
    case 'config_error':
      return configKeyDiagnosis(a);
    default:
      return '';
  }
}

function oomKilled(a: Analysis): string {
  const pod = a.failing.find((p) => p.containers.some((c) => c.last_termination?.reason === 'OOMKilled'));
  const container = pod?.containers.find((c) => c.last_termination?.reason === 'OOMKilled');
  const name = container?.name;
  const limit = a.deployment?.containers.find((c) => c.name === name)?.limits.memory;
  noteFailure(a, 'oom_killed');
  a.facts.exit_code = container?.last_termination?.exit_code ?? 137;
  if (name) a.facts.container = name;
  if (limit) a.facts.memory_limit = limit;
  const lowered = (a.newest?.changes ?? []).find((c) => c.kind === 'resources' && c.key === 'limits.memory');
  if (lowered) noteChange(a, [lowered]);
  const usage = lastMemoryUsage(a, pod?.name, name);
  if (usage) {
    a.facts.memory_usage = usage.usage;
    a.evidence.add(usage.source, `last usage ${usage.usage} of its ${limit ?? usage.limit ?? '?'} limit`);
  }
  const near = usage
    ? `, last usage ${usage.usage} of its ${limit ?? usage.limit ?? '(unset)'} limit`
    : limit
      ? ` at its memory limit ${limit}`
      : '';
  return `; container ${name ?? '?'} is OOMKilled (exit 137)${near}${lowered ? ` (revision ${a.newest!.revision} changed limits.memory ${lowered.from ?? '(none)'} → ${lowered.to ?? '(none)'})` : ''}`;
}

/**
 * The OOM-killed container's last memory usage from `get_pod_metrics` (`127Mi`, MiB as
 * `kubectl top` prints it) and the limit the metrics tool saw; undefined without metrics (no
 * metrics API, the call failed, or the Pod has no sample yet).
 */
function lastMemoryUsage(
  a: Analysis,
  pod: string | undefined,
  container: string | undefined,
): { usage: string; limit: string | null; source: string } | undefined {
  const metrics = a.suspect.metrics;
  if (!metrics?.value.available || container === undefined) return undefined;
  const sample = metrics.value.pods.find((p) => p.name === pod)?.containers.find((c) => c.name === container);
  if (sample?.memory_mib == null) return undefined;
  return { usage: `${sample.memory_mib}Mi`, limit: sample.memory_limit, source: metrics.source };
}

function appExit(a: Analysis): string {
  const container = a.failing
    .flatMap((p) => p.containers)
    .find((c) => c.last_termination && c.last_termination.exit_code !== 0);
  if (!container) return '';
  noteFailure(a, 'app_exit');
  a.facts.exit_code = container.last_termination!.exit_code;
  a.facts.container = container.name;
  const last = a.suspect.logs.flatMap((l) => telltaleLogLines(l.value.log)).at(-1);
  if (last) a.facts.last_log_line = last.slice(0, 200);
  return `; container ${container.name} exits with code ${container.last_termination!.exit_code}${last ? `, its last log line: ${last.slice(0, 200)}` : ''}`;
}
