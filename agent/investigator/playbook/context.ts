/**
 * What every failure class of the playbook reads: the evidence about one Deployment analysed once
 * (failing Pods and their cause, its Warning events, its revisions and their health, when its
 * failures began, whether they came with its newest rollout), and the evidence log the decision quotes.
 * Pure.
 */
import type { Decision, Evidence, ObjectRef } from '../model.ts';
import type {
  DeploymentView,
  EventView,
  LogsView,
  PodMetricsView,
  PodView,
  RevisionView,
  ServiceView,
  TriageWorkload,
} from '../evidence.ts';
import { CAUSES, podCause, probeFailed, type Cause } from './causes.ts';

/** The workload kinds the tools take as `kind` (tools/workload-kind.ts); absent means Deployment. */
export type WorkloadKind = 'Deployment' | 'StatefulSet' | 'DaemonSet';

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

/**
 * What was gathered about one workload (the suspect, or a Deployment it names). A StatefulSet or
 * DaemonSet has no `deployment`; its history lists ControllerRevisions (health not assessed) and its
 * Pods carry no ReplicaSet revision, so the revisions its failing Pods run come from triage's
 * `rollout.failing_revisions`.
 */
export interface SuspectEvidence {
  /** Absent: Deployment. */
  kind?: WorkloadKind | undefined;
  name: string;
  triage?: TriageWorkload | undefined;
  deployment?: Sourced<DeploymentView> | undefined;
  history?: Sourced<RevisionView[]> | undefined;
  pods?: Sourced<PodView[]> | undefined;
  events?: Sourced<EventView[]> | undefined;
  logs: Sourced<LogsView>[];
  /**
   * `get_pod_metrics` of an OOM-killed Pod (gathered for the OOM class only): the container's last
   * memory usage beside its limit. Absent when nothing is OOM-killed or the call failed;
   * `available: false` when the cluster serves no metrics API.
   */
  metrics?: Sourced<PodMetricsView> | undefined;
  /** The error text of `get_deployment` when the cluster has no such Deployment. */
  missing?: Sourced<string> | undefined;
  /**
   * For a dependency: the host the victim names and the Service of that name whose selector selects
   * this workload's Pods (`get_service`), so the decision quotes the chain host → Service → workload.
   */
  via?: { host: string; service: Sourced<ServiceView> } | undefined;
}

/** Collects evidence lines, at most `MAX_LINES` per source, no duplicates. */
export class EvidenceLog {
  readonly lines: Evidence[] = [];
  add(source: string, line: string): void {
    const trimmed = line.trim();
    if (!trimmed || this.lines.some((e) => e.source === source && e.line === trimmed)) return;
    if (this.lines.filter((e) => e.source === source).length >= MAX_LINES) return;
    this.lines.push({ source, line: trimmed });
  }
}

export const ms = (time: string | null | undefined) => (time ? Date.parse(time) : Number.NaN);

/** `14 minutes ago`, `3 hours ago`, `2 days ago`. */
export function minutesAgo(now: number, time: number): string {
  const minutes = Math.max(0, Math.round((now - time) / 60_000));
  if (minutes < 120) return `${minutes} minute${minutes === 1 ? '' : 's'} ago`;
  const hours = Math.round(minutes / 60);
  return hours < 48 ? `${hours} hours ago` : `${Math.round(hours / 24)} days ago`;
}

/** `checkout:2.4.1`: an image without registry and path. */
export function shortImage(image: string): string {
  return image.slice(image.lastIndexOf('/') + 1);
}

export function revisionLabel(revision: Pick<RevisionView, 'revision' | 'images'>): string {
  return `revision ${revision.revision} (${revision.images.map(shortImage).join(', ')})`;
}

/** Log lines that say why a process stopped: the last error-looking lines, else the last line. */
export function telltaleLogLines(log: string): string[] {
  const lines = log.split('\n').filter((line) => line.trim() !== '');
  const errors = lines.filter((line) =>
    /fatal|panic|error|exception|invalid|refused|killed|out of memory/i.test(line),
  );
  return (errors.length > 0 ? errors : lines).slice(-2);
}

/** One Deployment's evidence, analysed. */
export interface Analysis {
  namespace: string;
  now: number;
  suspect: SuspectEvidence;
  culprit: ObjectRef;
  /** `Deployment shop/checkout`. */
  ref: string;
  deployment: DeploymentView | undefined;
  failing: PodView[];
  /** Warning events about its failing Pods and its own objects. */
  events: EventView[];
  /** Undefined when nothing fails. */
  cause: Cause | undefined;
  /** Newest first. */
  history: RevisionView[];
  newest: RevisionView | undefined;
  /** `Deployment shop/checkout (revision 3 (checkout:2.4.1)) crash-loops (CrashLoopBackOff)`. */
  what: string;
  /** Epoch ms of the newest revision's rollout (NaN when unknown). */
  rolledOut: number;
  /** Epoch ms of the first failure seen (Infinity when none is dated). */
  failureStart: number;
  failingRevisions: Set<number | null>;
  /** Every failing Pod belongs to the newest revision. */
  onlyNewest: boolean;
  /** The newest revision rolled out within `RECENT_CHANGE_MS` and no failure is older than it. */
  recentChange: boolean;
  /** The newest revision below the newest demonstrably healthy (`rollbackTarget`). */
  target: RevisionView | undefined;
  evidence: EvidenceLog;
  facts: Record<string, string | number | boolean>;
}

const CAUSE_TEXT: Record<Cause, string> = {
  image_pull: 'cannot pull its image',
  config_error: 'cannot create its containers from their configuration',
  oom_killed: 'is OOM-killed (exceeds its memory limit)',
  liveness_kill: 'is killed by its liveness probe and restarted',
  startup_kill: 'never passes its startup probe (killed and restarted)',
  crash_loop: 'crash-loops (CrashLoopBackOff)',
  unschedulable: 'has Pods that cannot be scheduled',
  probe_failure: 'runs but fails its readiness probe',
  container_failed: 'has containers that exit with an error',
  unavailable: 'has fewer available replicas than desired',
};

/**
 * Whether revision `r` (below `newest`) is demonstrably healthy: the server's health evidence says
 * `healthy` (its Pods were ready and no Pod of it — deleted ones included — failed); without that
 * evidence (an older server), it has ready Pods or served `HEALTHY_SERVICE_MS` before the newest.
 */
export function demonstrablyHealthy(
  r: RevisionView,
  newest: RevisionView,
  failing: Set<number | null>,
  kind: WorkloadKind = 'Deployment',
): boolean {
  if (failing.has(r.revision)) return false;
  // A ControllerRevision's health is not assessed (state `unknown`): judge it by its service time.
  if (r.health && !(kind !== 'Deployment' && r.health.state === 'unknown')) {
    return r.health.state === 'healthy';
  }
  return r.ready > 0 || ms(newest.created) - ms(r.created) >= HEALTHY_SERVICE_MS;
}

/** Analyses `suspect`'s evidence, adding its evidence lines to `evidence`. */
export function analyse(
  namespace: string,
  suspect: SuspectEvidence,
  now: number,
  evidence: EvidenceLog,
  triageSource = 'triage_namespace',
): Analysis {
  const kind = suspect.kind ?? 'Deployment';
  const ref = `${kind} ${namespace}/${suspect.name}`;
  if (suspect.triage) for (const f of suspect.triage.findings) evidence.add(triageSource, f.evidence);
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
  // A crash loop whose restarts the kubelet's liveness (or startup) probe caused is a probe kill.
  if (causes.includes('crash_loop') || causes.includes('probe_failure')) {
    if (probeFailed(events, 'Liveness') && causes.includes('crash_loop')) causes.push('liveness_kill');
    if (probeFailed(events, 'Startup')) causes.push('startup_kill');
  }
  const cause: Cause | undefined =
    CAUSES.find((c) => causes.includes(c)) ??
    (deployment && deployment.replicas.available < deployment.replicas.desired ? 'unavailable' : undefined);

  const history = [...(suspect.history?.value ?? [])].sort((a, b) => b.revision - a.revision);
  const newest = history.find((r) => r.current) ?? history[0];
  if (newest && suspect.history) {
    for (const r of history.slice(0, 3)) {
      evidence.add(
        suspect.history.source,
        `revision ${r.revision}${r.current ? ' (current)' : ''}: ${r.images.join(', ')}, ${r.ready}/${r.replicas} ready, created ${r.created ?? '?'}${r.change_cause ? `, change-cause "${r.change_cause}"` : ''}${r.health ? `, ${r.health.state}${r.health.failures.length ? ` (${r.health.failures.join('; ')})` : ''}` : ''}`,
      );
    }
  }
  const what = cause ? `${ref}${newest ? ` (${revisionLabel(newest)})` : ''} ${CAUSE_TEXT[cause]}` : ref;
  // Failure start: the earliest warning about a failing Pod; a Pod that never ran (waiting, crash
  // looping) failed from its creation; a running Pod without warnings gives no date.
  const failureTimes = failing.flatMap((pod) => {
    const warned = events.filter((e) => e.object.name === pod.name).map((e) => ms(e.first_seen));
    const neverRan = pod.containers.some((c) => c.state !== 'running');
    return [...warned, ...(neverRan ? [ms(pod.created)] : [])];
  });
  const failureStart = Math.min(...failureTimes.filter((t) => Number.isFinite(t)));
  // A StatefulSet's or DaemonSet's Pods have no ReplicaSet revision: triage maps them by their
  // controller-revision-hash label.
  const triageRevisions = suspect.triage?.rollout?.failing_revisions ?? [];
  const failingRevisions = new Set<number | null>(
    kind !== 'Deployment' && triageRevisions.length > 0 && failing.length > 0
      ? triageRevisions
      : failing.map((pod) => pod.revision),
  );
  const onlyNewest =
    newest !== undefined && failing.length > 0 && [...failingRevisions].every((r) => r === newest.revision);
  const rolledOut = ms(newest?.created);
  const recentChange =
    onlyNewest &&
    Number.isFinite(rolledOut) &&
    now - rolledOut <= RECENT_CHANGE_MS &&
    (!Number.isFinite(failureStart) || failureStart >= rolledOut);
  const target = newest
    ? history.find(
        (r) => r.revision < newest.revision && demonstrablyHealthy(r, newest, failingRevisions, kind),
      )
    : undefined;
  return {
    namespace,
    now,
    suspect,
    culprit: { kind, namespace, name: suspect.name },
    ref,
    deployment,
    failing,
    events,
    cause,
    history,
    newest,
    what,
    rolledOut,
    failureStart,
    failingRevisions,
    onlyNewest,
    recentChange,
    target,
    evidence,
    facts: cause ? { cause } : {},
  };
}

/** A decision about the analysed Deployment. */
export function decision(
  a: Analysis,
  action: Decision['action'],
  diagnosis: string,
  explanation: string,
  extra: Partial<Pick<Decision, 'refusal' | 'remediation'>> = {},
): Decision {
  return {
    action,
    refusal: extra.refusal ?? null,
    culprit: a.culprit,
    cause: a.cause ?? null,
    diagnosis,
    explanation,
    remediation: extra.remediation ?? null,
    evidence: a.evidence.lines,
    facts: a.facts,
  };
}

/** The rollback call to `revision`; names `kind` for a StatefulSet or DaemonSet (as the tool does). */
export function rollbackTo(a: Analysis, revision: number): NonNullable<Decision['remediation']> {
  const kind = a.suspect.kind ?? 'Deployment';
  return {
    tool: 'rollback_deployment',
    arguments: {
      namespace: a.namespace,
      name: a.suspect.name,
      ...(kind !== 'Deployment' && { kind }),
      to_revision: revision,
    },
  };
}

/** A failure class: its evidence rule, and the decision when the rule holds (else undefined). */
export type FailureClass = (a: Analysis) => Decision | undefined;
