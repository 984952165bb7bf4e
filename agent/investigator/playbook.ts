/**
 * The incident playbook: a pure function from the investigation tools' structured outputs to a
 * decision (docs/DESIGN.md, "Local mode"). No I/O, no clock of its own: the same evidence always gives the
 * same decision, which is what makes the local investigator dependable at 3 a.m. and testable.
 *
 * First, what the user asked about must exist: a named Deployment the cluster answers "not found"
 * for, or a namespace with no Deployments, Pods or Warning events (Kubernetes lists an absent
 * namespace as empty), is `not_found` — never "healthy".
 *
 * Rules, for the suspect Deployment (the one named by the user, else the worst one triage ranks):
 * 1. Nothing failing → no remediation.
 * 2. A paused Deployment → refused (`deployment-paused`): its rollout is held on purpose; a rollback of a paused
 *    Deployment is refused by `kubectl rollout undo` too, and resuming it is a human's call.
 * 3. Unschedulable Pods → refused (`unschedulable`): the cluster lacks room or no node matches;
 *    neither a rollback nor a restart creates capacity.
 * 4. Roll back when the failing Pods all belong to the newest revision, it rolled out recently (within
 *    `RECENT_CHANGE_MS`) and the failures began after it, and an earlier revision was healthy (it has ready
 *    Pods, or served at least `HEALTHY_SERVICE_MS` before being replaced, with no failing Pods) →
 *    target that revision (the highest such below the newest, as `kubectl rollout undo` would).
 * 5. Restart when Pods of an unchanged template (no rollout within `RECENT_CHANGE_MS`) run but fail
 *    their readiness probes: their processes are stuck, fresh ones start clean.
 * 6. Otherwise refused, saying why: OOM kills or crashes with no recent change (`oom-no-recent-change`,
 *    `crash-no-recent-change`), a failing newest revision with no healthy one to return to
 *    (`no-healthy-revision`), or a failure the tools cannot fix (`not-fixable`).
 */
import type { Decision, Evidence, ObjectRef } from './model.ts';
import type {
  DeploymentView,
  EventView,
  LogsView,
  PodView,
  RevisionView,
  Triage,
  TriageWorkload,
} from './evidence.ts';

/** A rollout this recent (6 hours) is a suspect for failures of its Pods that began after it. */
export const RECENT_CHANGE_MS = 6 * 3600_000;
/** An earlier revision that served this long without failing Pods counts as healthy (10 minutes). */
export const HEALTHY_SERVICE_MS = 10 * 60_000;
/** Evidence lines kept per source kind. */
const MAX_LINES = 4;

/** A tool output and the call that returned it (for quoting evidence). */
export interface Sourced<T> {
  value: T;
  /** The call, e.g. `list_pods namespace=shop deployment=checkout`. */
  source: string;
}

/** What was gathered about one suspect Deployment. */
export interface SuspectEvidence {
  name: string;
  triage?: TriageWorkload | undefined;
  deployment?: Sourced<DeploymentView> | undefined;
  history?: Sourced<RevisionView[]> | undefined;
  pods?: Sourced<PodView[]> | undefined;
  events?: Sourced<EventView[]> | undefined;
  logs: Sourced<LogsView>[];
  /** The error text of `get_deployment` when the cluster has no such Deployment. */
  missing?: Sourced<string> | undefined;
}

export interface PlaybookInput {
  namespace: string;
  triage?: Sourced<Triage> | undefined;
  /** The suspect to decide on (undefined when triage found nothing unhealthy). */
  suspect?: SuspectEvidence | undefined;
  /** Epoch milliseconds "now" (cluster time), for "since N minutes ago". */
  now: number;
}

/** Failure modes, worst first: what the failing Pods show. */
export const CAUSES = [
  'image_pull',
  'config_error',
  'oom_killed',
  'crash_loop',
  'unschedulable',
  'probe_failure',
  'container_failed',
  'unavailable',
] as const;
export type Cause = (typeof CAUSES)[number];

const CAUSE_TEXT: Record<Cause, string> = {
  image_pull: 'cannot pull its image',
  config_error: 'cannot create its containers from their configuration',
  oom_killed: 'is OOM-killed (exceeds its memory limit)',
  crash_loop: 'crash-loops (CrashLoopBackOff)',
  unschedulable: 'has Pods that cannot be scheduled',
  probe_failure: 'runs but fails its readiness probe',
  container_failed: 'has containers that exit with an error',
  unavailable: 'has fewer available replicas than desired',
};

const IMAGE_PULL = /ErrImagePull|ImagePullBackOff|InvalidImageName|ErrImageNeverPull/;
const CONFIG_ERROR = /CreateContainerConfigError|CreateContainerError|RunContainerError/;

/** The failure mode of one Pod, or undefined when it is healthy. */
export function podCause(pod: PodView): Cause | undefined {
  const causes: Cause[] = [];
  for (const c of pod.containers) {
    if (c.reason && IMAGE_PULL.test(c.reason)) causes.push('image_pull');
    else if (c.reason && CONFIG_ERROR.test(c.reason)) causes.push('config_error');
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

const ms = (time: string | null | undefined) => (time ? Date.parse(time) : Number.NaN);

function minutesAgo(now: number, time: number): string {
  const minutes = Math.max(0, Math.round((now - time) / 60_000));
  if (minutes < 120) return `${minutes} minute${minutes === 1 ? '' : 's'} ago`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} hours ago` : `${Math.round(hours / 24)} days ago`;
}

/** `checkout:2.4.1`: an image without registry and path. */
function shortImage(image: string): string {
  return image.slice(image.lastIndexOf('/') + 1);
}

function revisionLabel(revision: Pick<RevisionView, 'revision' | 'images'>): string {
  return `revision ${revision.revision} (${revision.images.map(shortImage).join(', ')})`;
}

/** Collects evidence lines, at most `MAX_LINES` per source, no duplicates. */
class EvidenceLog {
  readonly lines: Evidence[] = [];
  add(source: string, line: string): void {
    const trimmed = line.trim();
    if (!trimmed || this.lines.some((e) => e.source === source && e.line === trimmed)) return;
    if (this.lines.filter((e) => e.source === source).length >= MAX_LINES) return;
    this.lines.push({ source, line: trimmed });
  }
}

function pick<T>(values: T[], predicate: (value: T) => boolean): T[] {
  return values.filter(predicate);
}

/** Log lines that say why a process stopped: the last error-looking lines, else the last line. */
export function telltaleLogLines(log: string): string[] {
  const lines = log.split('\n').filter((line) => line.trim() !== '');
  const errors = lines.filter((line) =>
    /fatal|panic|error|exception|invalid|refused|killed|out of memory/i.test(line),
  );
  return (errors.length > 0 ? errors : lines).slice(-2);
}

/**
 * Decides what to do about the suspect. Pure: reads only `input`. See the module comment for the
 * rules, in order.
 */
export function decide(input: PlaybookInput): Decision {
  const { suspect, now } = input;
  const evidence = new EvidenceLog();
  const none = (diagnosis: string, explanation: string): Decision => ({
    action: 'none',
    refusal: null,
    culprit: null,
    cause: null,
    diagnosis,
    explanation,
    remediation: null,
    evidence: evidence.lines,
  });
  if (input.triage) {
    const { value, source } = input.triage;
    for (const w of value.workloads.slice(0, 3)) {
      evidence.add(source, `${w.kind} ${w.name}: ${w.summary} — likely cause: ${w.likely_cause}`);
    }
  }
  const empty = input.triage && isEmptyNamespace(input.triage.value);
  const emptyLine = `namespace ${input.namespace}: 0 Deployment(s), 0 Pod(s), 0 Warning event(s)`;
  if (suspect?.missing) {
    evidence.add(suspect.missing.source, suspect.missing.value);
    if (empty) evidence.add(input.triage!.source, emptyLine);
    return {
      ...none(
        `Deployment ${input.namespace}/${suspect.name} does not exist${empty ? `, and namespace ${input.namespace} has no Deployments, Pods or Warning events (it may not exist either)` : ''}.`,
        `Nothing to investigate: check the Deployment name (--deployment) and the namespace (--namespace); \`kubectl get deployments -n ${input.namespace}\` lists what exists.`,
      ),
      action: 'not_found',
    };
  }
  if (!suspect && empty) {
    evidence.add(input.triage!.source, emptyLine);
    return {
      ...none(
        `Namespace ${input.namespace} has no Deployments, Pods or Warning events: it does not exist, or it is empty.`,
        'Nothing to investigate: check the namespace name (--namespace); `kubectl get namespaces` lists what exists.',
      ),
      action: 'not_found',
    };
  }
  if (!suspect) {
    return none(
      `Nothing in namespace ${input.namespace} is unhealthy.`,
      'Triage found no unavailable Deployment, failing Pod or warning that points at a workload; nothing to remediate.',
    );
  }
  const culprit: ObjectRef = { kind: 'Deployment', namespace: input.namespace, name: suspect.name };
  const ref = `Deployment ${input.namespace}/${suspect.name}`;
  if (suspect.triage) {
    for (const f of suspect.triage.findings)
      evidence.add(input.triage?.source ?? 'triage_namespace', f.evidence);
  }

  const pods = suspect.pods?.value ?? [];
  const failing = pods.filter((pod) => podCause(pod) !== undefined);
  const podsSource = suspect.pods?.source ?? 'list_pods';
  for (const pod of failing) {
    const problems = pod.containers.map((c) => c.problem).filter(Boolean);
    evidence.add(
      podsSource,
      `Pod ${pod.name} (revision ${pod.revision ?? '?'}): ${pod.status}, ${pod.restarts} restart(s)${problems.length ? ` — ${problems.join('; ')}` : ''}`,
    );
  }
  const failingNames = new Set(failing.map((pod) => pod.name));
  const events = (suspect.events?.value ?? []).filter(
    (e) =>
      e.type === 'Warning' &&
      ((e.object.kind === 'Pod' && failingNames.has(e.object.name)) ||
        (e.object.kind !== 'Pod' && e.object.name.startsWith(suspect.name))),
  );
  for (const e of events) {
    evidence.add(
      suspect.events!.source,
      `${e.object.kind}/${e.object.name} ${e.reason}${e.count > 1 ? ` ×${e.count}` : ''}: ${e.message}`,
    );
  }
  for (const logs of suspect.logs) {
    for (const line of telltaleLogLines(logs.value.log)) evidence.add(logs.source, line);
  }

  const deployment = suspect.deployment?.value;
  const triageCauses = new Set(suspect.triage?.findings.map((f) => f.kind) ?? []);
  const causes = failing.map(podCause).filter((c): c is Cause => c !== undefined);
  if (triageCauses.has('unschedulable')) causes.push('unschedulable');
  const cause: Cause | undefined =
    CAUSES.find((c) => causes.includes(c)) ??
    (deployment && deployment.replicas.available < deployment.replicas.desired ? 'unavailable' : undefined);

  if (!cause) {
    return none(
      `${ref} is healthy: ${deployment ? `${deployment.replicas.available} of ${deployment.replicas.desired} replicas available` : 'no failing Pods'}.`,
      'No failing Pods and every desired replica is available; nothing to remediate.',
    );
  }
  const decision = (
    action: Decision['action'],
    diagnosis: string,
    explanation: string,
    extra: Partial<Pick<Decision, 'refusal' | 'remediation'>> = {},
  ): Decision => ({
    action,
    refusal: extra.refusal ?? null,
    culprit,
    cause,
    diagnosis,
    explanation,
    remediation: extra.remediation ?? null,
    evidence: evidence.lines,
  });

  const history = [...(suspect.history?.value ?? [])].sort((a, b) => b.revision - a.revision);
  const newest = history.find((r) => r.current) ?? history[0];
  if (newest && suspect.history) {
    for (const r of history.slice(0, 3)) {
      evidence.add(
        suspect.history.source,
        `revision ${r.revision}${r.current ? ' (current)' : ''}: ${r.images.join(', ')}, ${r.ready}/${r.replicas} ready, created ${r.created ?? '?'}${r.change_cause ? `, change-cause "${r.change_cause}"` : ''}`,
      );
    }
  }
  const what = `${ref}${newest ? ` (${revisionLabel(newest)})` : ''} ${CAUSE_TEXT[cause]}`;

  // 2. Paused.
  if (deployment?.paused) {
    evidence.add(
      suspect.deployment!.source,
      `Deployment ${input.namespace}/${suspect.name} is paused (spec.paused: true)`,
    );
    return decision(
      'refused',
      `${what}, and its rollout is paused.`,
      `The Deployment is paused: someone stopped its rollout on purpose. Sentinel does not roll back a paused Deployment (kubectl rollout undo refuses too) and will not resume it on its own; resuming or rolling back is a human's decision — resume_rollout, then investigate again.`,
      { refusal: 'deployment-paused' },
    );
  }
  // 3. Unschedulable.
  if (cause === 'unschedulable') {
    return decision(
      'refused',
      `${what}: the cluster has no room for them (or no node matches their constraints).`,
      'Neither a rollback nor a restart creates capacity: free resources, add nodes, or lower the Pods’ requests.',
      { refusal: 'unschedulable' },
    );
  }

  // Failure start: the earliest warning about a failing Pod; a Pod that never ran (waiting, crash
  // looping) failed from its creation; a running Pod without warnings gives no date.
  const failureTimes = failing.flatMap((pod) => {
    const warned = events.filter((e) => e.object.name === pod.name).map((e) => ms(e.first_seen));
    const neverRan = pod.containers.some((c) => c.state !== 'running');
    return [...warned, ...(neverRan ? [ms(pod.created)] : [])];
  });
  const failureStart = Math.min(...failureTimes.filter((t) => Number.isFinite(t)));
  const failingRevisions = new Set(failing.map((pod) => pod.revision));
  const onlyNewest =
    newest !== undefined && failing.length > 0 && [...failingRevisions].every((r) => r === newest.revision);
  const rolledOut = ms(newest?.created);
  // A recent change: the newest revision rolled out within RECENT_CHANGE_MS, and no failure is
  // older than it (its Pods cannot have failed before they existed; older failures point elsewhere).
  const recentChange =
    onlyNewest &&
    Number.isFinite(rolledOut) &&
    now - rolledOut <= RECENT_CHANGE_MS &&
    (!Number.isFinite(failureStart) || failureStart >= rolledOut);

  // 4. Roll back.
  if (newest && recentChange) {
    const healthy = history.find(
      (r) =>
        r.revision < newest.revision &&
        !failingRevisions.has(r.revision) &&
        (r.ready > 0 || rolledOut - ms(r.created) >= HEALTHY_SERVICE_MS),
    );
    if (healthy) {
      return decision(
        'rollback',
        `${what} since its rollout ${minutesAgo(now, rolledOut)}; ${revisionLabel(healthy)} was healthy.`,
        `Every failing Pod belongs to the newest revision ${newest.revision}, the failures began after it rolled out, and ${revisionLabel(healthy)} ${healthy.ready > 0 ? `still has ${healthy.ready} ready Pod(s)` : 'served without failures before it'}: rolling back to revision ${healthy.revision} returns to a known-good template.`,
        {
          remediation: {
            tool: 'rollback_deployment',
            arguments: { namespace: input.namespace, name: suspect.name, to_revision: healthy.revision },
          },
        },
      );
    }
    return decision(
      'refused',
      `${what} since its rollout ${minutesAgo(now, rolledOut)}, and no earlier revision is known to be healthy.`,
      'A rollback needs an earlier revision that worked; none of the remaining revisions has ready Pods or a clean record. Fix forward.',
      { refusal: 'no-healthy-revision' },
    );
  }

  // 5. Restart: an unchanged template whose running Pods are stuck.
  if (cause === 'probe_failure' && onlyNewest && !recentChange) {
    return decision(
      'restart',
      `${what} since ${minutesAgo(now, failureStart)}, with no rollout since ${Number.isFinite(rolledOut) ? minutesAgo(now, rolledOut) : 'long before'}.`,
      'The template has not changed, so a rollback has nothing to return to; the containers are running but stuck (not ready). A rolling restart replaces them with fresh processes, one at a time.',
      {
        remediation: {
          tool: 'restart_service',
          arguments: { namespace: input.namespace, name: suspect.name },
        },
      },
    );
  }

  // 6. Nothing the tools should do.
  const refusal =
    cause === 'oom_killed'
      ? 'oom-no-recent-change'
      : cause === 'crash_loop' || cause === 'container_failed'
        ? 'crash-no-recent-change'
        : 'not-fixable';
  const explanation: Record<string, string> = {
    'oom-no-recent-change':
      'The containers exceed their memory limit, and nothing changed recently: a rollback returns to the same limit and a restart only resets the count. Raise the memory limit or fix the leak (look at the memory use before the kills).',
    'crash-no-recent-change':
      'The containers crash, and nothing changed recently: the cause is outside the template (a dependency, data, the environment). Neither a rollback nor a restart addresses it; the logs above say why they exit.',
    'not-fixable':
      'None of the remediations Sentinel can propose (rollback, restart) addresses this; see the evidence.',
  };
  return decision(
    'refused',
    `${what}${Number.isFinite(failureStart) ? ` since ${minutesAgo(now, failureStart)}` : ''}; nothing changed recently.`,
    explanation[refusal]!,
    { refusal },
  );
}

/** Whether triage saw nothing at all in the namespace (how an absent namespace looks to a list). */
function isEmptyNamespace(triage: Triage): boolean {
  const { deployments, pods, warning_events } = triage.counts;
  return deployments === 0 && pods === 0 && warning_events === 0 && triage.workloads.length === 0;
}

/**
 * The suspect Deployment: the one the user named; else the worst-ranked unhealthy Deployment whose
 * name the symptom mentions (the on-call report says which service hurts; other broken workloads
 * in the namespace may be unrelated); else the worst Deployment triage ranks.
 */
export function chooseSuspect(
  triage: Triage | undefined,
  named: string | undefined,
  symptom = '',
): string | undefined {
  if (named) return named;
  const deployments = triage?.workloads.filter((w) => w.kind === 'Deployment') ?? [];
  const words = new Set(symptom.toLowerCase().split(/[^a-z0-9-]+/));
  const mentioned = deployments.find(
    (w) => words.has(w.name) || w.name.split('-').every((part) => words.has(part)),
  );
  return (mentioned ?? deployments[0])?.name;
}

/** Crashed containers worth reading the previous logs of: at most `limit`, one per Pod. */
export function crashedContainers(pods: PodView[], limit = 2): { pod: string; container: string }[] {
  return pick(
    pods.map((pod) => ({
      pod,
      container: pod.containers.find((c) => c.last_termination !== null && c.restarts > 0),
    })),
    ({ container }) => container !== undefined,
  )
    .slice(0, limit)
    .map(({ pod, container }) => ({ pod: pod.name, container: container!.name }));
}
