/**
 * Probe kills (issue 14): containers the kubelet kills because their liveness probe fails, or
 * because they never pass their startup probe — exit 137 after `Unhealthy` "Liveness probe failed: …"
 * (or "Startup probe failed: …") events, then a restart with back-off. Not a crash of the process:
 * the diagnosis names the probe (as get_deployment describes it), how often it failed, and the
 * revision that changed it. A probe kill that came with a recent rollout is the rollout class's
 * (roll back); otherwise this class refuses, saying what to look at. Pure.
 */
import { decision, minutesAgo, type Analysis, type FailureClass } from './context.ts';
import { noteFailure } from './failures.ts';

const PROBE = {
  liveness_kill: { type: 'liveness', title: 'Liveness', field: 'livenessProbe', failure: 'liveness_probe' },
  startup_kill: { type: 'startup', title: 'Startup', field: 'startupProbe', failure: 'startup_probe' },
} as const;

type ProbeCause = keyof typeof PROBE;

const isProbeCause = (cause: string | undefined): cause is ProbeCause =>
  cause === 'liveness_kill' || cause === 'startup_kill';

/**
 * The exact diagnosis clause of a probe kill (starting with "; "), recording the facts `failure`
 * (`liveness_probe` | `startup_probe`), `container`, `exit_code`, `probe` (e.g. `http GET
 * :8080/healthz delay=0s period=5s timeout=1s failure=3`), `probe_failures` (Unhealthy events
 * counted over the failing Pods), for a startup probe `startup_budget_seconds` (failureThreshold ×
 * periodSeconds) and, when the newest revision changed the probe, `changed_field`.
 */
export function probeKillDiagnosis(a: Analysis): string {
  if (!isProbeCause(a.cause)) return '';
  const { type, title, field, failure } = PROBE[a.cause];
  const unhealthy = a.events.filter(
    (e) => e.reason === 'Unhealthy' && e.message.startsWith(`${title} probe failed`),
  );
  const failures = unhealthy.reduce((sum, e) => sum + e.count, 0);
  const latest = unhealthy[0];
  const container = a.failing.flatMap((p) => p.containers).find((c) => c.restarts > 0 || !c.ready);
  const name = container?.name;
  const spec = a.deployment?.containers.find((c) => c.name === name)?.probes ?? [];
  const probe = spec.find((p) => p.startsWith(`${type}: `))?.slice(type.length + 2);
  noteFailure(a, failure);
  a.facts.exit_code = container?.last_termination?.exit_code ?? 137;
  if (name) a.facts.container = name;
  if (probe) a.facts.probe = probe;
  if (failures > 0) a.facts.probe_failures = failures;
  const changed = (a.newest?.changes ?? []).find((c) => c.kind === 'container' && c.key === field);
  if (changed && a.recentChange) {
    a.facts.changed_field = field;
    if (changed.to !== null) a.facts.changed_to = changed.to;
  }
  // The startup probe's budget: failureThreshold × periodSeconds.
  const period = /period=(\d+)s/.exec(probe ?? '')?.[1];
  const threshold = /failure=(\d+)/.exec(probe ?? '')?.[1];
  const budget = period && threshold ? Number(period) * Number(threshold) : undefined;
  if (a.cause === 'startup_kill' && budget !== undefined) a.facts.startup_budget_seconds = budget;
  const what =
    a.cause === 'liveness_kill'
      ? `the kubelet kills container ${name ?? '?'} because its liveness probe${probe ? ` (${probe})` : ''} fails`
      : `container ${name ?? '?'} never passes its startup probe${probe ? ` (${probe}${budget !== undefined ? `: ${budget} s to start` : ''})` : ''}, so the kubelet kills it`;
  const seen = latest ? ` (${latest.message}${failures > 1 ? ` ×${failures}` : ''})` : '';
  const revision = changed && a.recentChange ? ` — revision ${a.newest!.revision} changed ${field}` : '';
  return `; ${what}${seen} and restarts it, exit ${a.facts.exit_code}${revision}`;
}

const EXPLANATION: Record<ProbeCause, string> = {
  liveness_kill:
    'The kubelet already restarts the containers each time the liveness probe fails, and the template has not changed: a rollback returns to the same probe and a restart only resets the count. The probe fails because the process stops answering it in time — look at what it waits for (a dependency, a lock, load; the logs before each kill), or, if the probe is stricter than the service (timeoutSeconds, failureThreshold), relax it.',
  startup_kill:
    'The containers do not finish starting within the startup probe’s budget (failureThreshold × periodSeconds), and the template has not changed: a rollback returns to the same probe and a restart starts the same slow start-up. Look at what start-up waits for (the logs of the killed instance), or raise the startup probe’s failureThreshold.',
};

/** A probe kill with no recent change: refused (`liveness-no-recent-change`, `startup-no-recent-change`). */
export const probeKill: FailureClass = (a) => {
  if (!isProbeCause(a.cause) || a.recentChange) return undefined;
  const exact = probeKillDiagnosis(a);
  return decision(
    a,
    'refused',
    `${a.what}${Number.isFinite(a.failureStart) ? ` since ${minutesAgo(a.now, a.failureStart)}` : ''}${exact}; nothing changed recently.`,
    EXPLANATION[a.cause],
    { refusal: a.cause === 'liveness_kill' ? 'liveness-no-recent-change' : 'startup-no-recent-change' },
  );
};
