/**
 * Namespace triage analysis: turns one snapshot of a namespace (Deployments, ReplicaSets, Pods,
 * events) into unhealthy workloads, each with findings, a likely cause and evidence, ranked by
 * severity. Pure — no API calls — so the tool's list operations stay fixed whatever the Pod count.
 */
import {
  TIMED_OUT_REASON,
  conditionOf,
  timeOf,
  containerStates,
  controllerOf,
  newReplicaSetOf,
  replicaSetsOf,
  revisionOf,
  rollbackTarget,
  rolloutVerdict,
  type ClusterEvent,
  type ContainerState,
  type Deployment,
  type Pod,
  type ReplicaSet,
} from '../../kube/index.ts';
import { imagesOf } from '../common.ts';

/** What kind of problem a finding is, with its base severity score (higher is worse). */
export const FINDING_SCORES = {
  unavailable: 100,
  image_pull: 85,
  replica_failure: 85,
  rollout_stuck: 90,
  crash_loop: 80,
  config_error: 80,
  oom_killed: 75,
  container_failed: 70,
  unschedulable: 70,
  rollout_paused: 60,
  probe_failure: 50,
} as const;
export type FindingKind = keyof typeof FINDING_SCORES;

export interface Finding {
  kind: FindingKind;
  score: number;
  /** One line of evidence, built from Kubernetes fields (no free text from the workload). */
  evidence: string;
  /** Pod the finding is about, if any. */
  pod?: string;
  /** Index into `eventMessages` when the evidence is an event (its message is untrusted). */
  eventRef?: number;
  /** The container's last termination reason (e.g. OOMKilled behind a CrashLoopBackOff). */
  lastReason?: string;
  /** For a failing probe: which one (`liveness`, `readiness`, `startup`). */
  probe?: string;
}

/** An event whose message is quoted in the untrusted section, referenced as `[E<n>]`. */
export interface EventReference {
  ref: string;
  object: string;
  reason: string;
  count: number;
  message: string;
}

export interface WorkloadTriage {
  kind: string;
  name: string;
  score: number;
  severity: 'critical' | 'high' | 'medium';
  /** One-line summary of the worst findings. */
  summary: string;
  likelyCause: string;
  findings: Finding[];
  podsAffected: number;
  /** When the problem was first seen (ms since epoch): earliest Warning event or Available=False transition, else the failing Pods' creation. */
  since: number | undefined;
  /** Deployments only: current revision, revisions of the failing Pods, and the rollback target kubectl would pick. */
  rollout?: {
    currentRevision: number | null;
    /** When the current ReplicaSet was created (ms since epoch). */
    currentRevisionCreated: number | undefined;
    /** Whether the problem began with the current revision's rollout (within 15 minutes of it). */
    startedWithRollout: boolean;
    paused: boolean;
    failingRevisions: number[];
    previousRevision: { revision: number; images: string[]; readyReplicas: number } | null;
  };
}

export interface TriageResult {
  workloads: WorkloadTriage[];
  eventMessages: EventReference[];
  healthyDeployments: number;
}

/** Container waiting reasons of an image that cannot be pulled (the kubelet's images package). */
export const IMAGE_PULL = new Set([
  'ErrImagePull',
  'ImagePullBackOff',
  'InvalidImageName',
  'ErrImageNeverPull',
]);
/** Container waiting reasons of a container that cannot be created from its configuration. */
export const CONFIG_ERROR = new Set([
  'CreateContainerConfigError',
  'CreateContainerError',
  'RunContainerError',
]);

/** How long before the first sign of a problem a rollout may have started and still be linked to it. */
const ROLLOUT_LEAD_MS = 15 * 60_000;

/** Ranks: score, then Pods affected, then kind and name. */
function byRank(a: WorkloadTriage, b: WorkloadTriage): number {
  return (
    b.score - a.score ||
    b.podsAffected - a.podsAffected ||
    `${a.kind}/${a.name}`.localeCompare(`${b.kind}/${b.name}`)
  );
}

/**
 * Analyses a namespace snapshot. Workloads are Deployments (Pods reach them through their
 * ReplicaSet's owner reference), other controllers by kind/name, and standalone Pods.
 */
export function triage(input: {
  deployments: readonly Deployment[];
  replicaSets: readonly ReplicaSet[];
  pods: readonly Pod[];
  events: readonly ClusterEvent[];
}): TriageResult {
  const rsByUid = new Map(input.replicaSets.map((rs) => [rs.metadata?.uid, rs]));
  const deploymentByUid = new Map(input.deployments.map((d) => [d.metadata?.uid, d]));
  const groups = new Map<
    string,
    {
      kind: string;
      name: string;
      findings: Finding[];
      pods: Set<string>;
      deployment?: Deployment;
      /** First-seen times of its Warning events and of Available=False. */
      signals: number[];
      /** Creation times of its failing Pods. */
      podTimes: number[];
    }
  >();
  const group = (kind: string, name: string) => {
    const key = `${kind}/${name}`;
    let g = groups.get(key);
    if (!g) groups.set(key, (g = { kind, name, findings: [], pods: new Set(), signals: [], podTimes: [] }));
    return g;
  };
  for (const d of input.deployments) group('Deployment', d.metadata?.name ?? '').deployment = d;

  /** The workload a Pod (or ReplicaSet) belongs to. */
  const workloadOfOwner = (
    ownerKind: string | undefined,
    ownerUid: string | undefined,
    ownerName: string | undefined,
  ) => {
    if (ownerKind === 'ReplicaSet') {
      const rs = rsByUid.get(ownerUid);
      const dRef = controllerOf(rs?.metadata);
      const d = dRef?.kind === 'Deployment' ? deploymentByUid.get(dRef.uid) : undefined;
      if (d) return group('Deployment', d.metadata?.name ?? '');
      return group('ReplicaSet', ownerName ?? '');
    }
    return undefined;
  };
  const podWorkload = new Map<string, ReturnType<typeof group>>();
  for (const pod of input.pods) {
    const ref = controllerOf(pod.metadata);
    const name = pod.metadata?.name ?? '';
    const g =
      workloadOfOwner(ref?.kind, ref?.uid, ref?.name) ??
      (ref ? group(ref.kind, ref.name) : group('Pod', name));
    podWorkload.set(name, g);
    const findings = podFindings(pod);
    for (const finding of findings) {
      g.findings.push(finding);
      g.pods.add(name);
    }
    if (findings.length > 0) g.podTimes.push(timeOf(pod.metadata?.creationTimestamp));
  }

  for (const g of groups.values()) if (g.deployment) g.findings.unshift(...deploymentFindings(g.deployment));

  const eventMessages: EventReference[] = [];
  for (const event of input.events) {
    if (event.type !== 'Warning') continue;
    const g =
      event.object.kind === 'Pod'
        ? podWorkload.get(event.object.name)
        : event.object.kind === 'ReplicaSet'
          ? workloadOfReplicaSetName(event.object.name)
          : event.object.kind === 'Deployment'
            ? groups.get(`Deployment/${event.object.name}`)
            : undefined;
    if (!g) continue;
    if (event.firstSeen > 0) g.signals.push(event.firstSeen);
    const finding = eventFinding(event);
    if (!finding) continue;
    const ref = eventMessages.length + 1;
    eventMessages.push({
      ref: `E${ref}`,
      object: `${event.object.kind}/${event.object.name}`,
      reason: event.reason,
      count: event.count,
      message: event.message,
    });
    g.findings.push({ ...finding, eventRef: ref });
    if (event.object.kind === 'Pod') g.pods.add(event.object.name);
  }

  function workloadOfReplicaSetName(name: string) {
    const rs = input.replicaSets.find((r) => r.metadata?.name === name);
    return rs ? workloadOfOwner('ReplicaSet', rs.metadata?.uid, name) : undefined;
  }

  const workloads: WorkloadTriage[] = [];
  let healthyDeployments = 0;
  for (const g of groups.values()) {
    if (g.findings.length === 0) {
      if (g.kind === 'Deployment') healthyDeployments++;
      continue;
    }
    const findings = [...g.findings].sort((a, b) => b.score - a.score);
    const score = findings[0]!.score;
    const available = g.deployment && conditionOf(g.deployment, 'Available');
    if (available?.status === 'False') g.signals.push(timeOf(available.lastTransitionTime));
    const signals = g.signals.filter((t) => t > 0);
    const podTimes = g.podTimes.filter((t) => t > 0);
    const since = signals.length ? Math.min(...signals) : podTimes.length ? Math.min(...podTimes) : undefined;
    const rollout = g.deployment
      ? rolloutContext(g.deployment, input.replicaSets, input.pods, g.pods, since)
      : undefined;
    workloads.push({
      kind: g.kind,
      name: g.name,
      score,
      severity: score >= 85 ? 'critical' : score >= 70 ? 'high' : 'medium',
      summary: summarize(findings),
      likelyCause: likelyCause(findings, rollout),
      findings,
      podsAffected: g.pods.size,
      since,
      ...(rollout && { rollout }),
    });
  }
  return { workloads: workloads.sort(byRank), eventMessages, healthyDeployments };
}

function deploymentFindings(d: Deployment): Finding[] {
  const findings: Finding[] = [];
  const desired = d.spec?.replicas ?? 1;
  const available = d.status?.availableReplicas ?? 0;
  const verdict = rolloutVerdict(d);
  if (verdict.state === 'failed') {
    findings.push({
      kind: 'rollout_stuck',
      score: FINDING_SCORES.rollout_stuck,
      evidence: `rollout of revision ${revisionOf(d) ?? '?'} exceeded its progress deadline (Progressing=False ${TIMED_OUT_REASON})`,
    });
  }
  if (desired > 0 && available < desired) {
    const available_ = conditionOf(d, 'Available');
    // Fully down scores 100; partly down scales from 60 up.
    const score = Math.round(60 + (40 * (desired - available)) / desired);
    findings.push({
      kind: 'unavailable',
      score,
      evidence: `${available} of ${desired} replicas available${available_ ? ` (Available=${available_.status}${available_.reason ? ` ${available_.reason}` : ''})` : ''}`,
    });
  }
  if (verdict.state === 'paused') {
    findings.push({
      kind: 'rollout_paused',
      score: FINDING_SCORES.rollout_paused,
      evidence: `rollout of revision ${revisionOf(d) ?? '?'} is paused (spec.paused) with ${d.status?.updatedReplicas ?? 0} of ${desired} replicas updated`,
    });
  }
  const replicaFailure = conditionOf(d, 'ReplicaFailure');
  if (replicaFailure?.status === 'True') {
    findings.push({
      kind: 'replica_failure',
      score: FINDING_SCORES.replica_failure,
      evidence:
        `ReplicaFailure=True ${replicaFailure.reason ?? ''}: the ReplicaSet cannot create Pods`.replace(
          '  ',
          ' ',
        ),
    });
  }
  return findings;
}

function podFindings(pod: Pod): Finding[] {
  const name = pod.metadata?.name ?? '';
  const findings: Finding[] = [];
  const scheduled = pod.status?.conditions?.find((c) => c.type === 'PodScheduled');
  if (scheduled?.status === 'False' && scheduled.reason === 'Unschedulable') {
    findings.push({
      kind: 'unschedulable',
      score: FINDING_SCORES.unschedulable,
      evidence: `Pod ${name} cannot be scheduled (PodScheduled=False Unschedulable)`,
      pod: name,
    });
  }
  for (const c of containerStates(pod)) {
    const finding = containerFinding(name, c);
    if (finding) findings.push(finding);
  }
  return findings;
}

function containerFinding(pod: string, c: ContainerState): Finding | undefined {
  const where = `Pod ${pod} ${c.type === 'init' ? 'init container' : 'container'} ${c.name}`;
  const last = c.lastTermination;
  const lastText = last ? `, last terminated ${last.reason ?? 'unknown'} (exit ${last.exitCode})` : '';
  const restarts = c.restarts ? `, ${c.restarts} restarts` : '';
  if (c.state === 'waiting' && c.reason && IMAGE_PULL.has(c.reason)) {
    return {
      kind: 'image_pull',
      score: FINDING_SCORES.image_pull,
      evidence: `${where}: ${c.reason} for image ${c.image ?? '?'}`,
      pod,
    };
  }
  if (c.state === 'waiting' && c.reason && CONFIG_ERROR.has(c.reason)) {
    return {
      kind: 'config_error',
      score: FINDING_SCORES.config_error,
      evidence: `${where}: ${c.reason}`,
      pod,
    };
  }
  if (c.state === 'waiting' && c.reason === 'CrashLoopBackOff') {
    return {
      kind: 'crash_loop',
      score: FINDING_SCORES.crash_loop,
      evidence: `${where}: CrashLoopBackOff${restarts}${lastText}`,
      pod,
      lastReason: last?.reason,
    };
  }
  if (last?.reason === 'OOMKilled' || (c.state === 'terminated' && c.reason === 'OOMKilled')) {
    return {
      kind: 'oom_killed',
      score: FINDING_SCORES.oom_killed,
      evidence: `${where}: OOMKilled (exit 137)${restarts}`,
      pod,
    };
  }
  if (c.state === 'terminated' && c.exitCode !== 0 && c.exitCode !== undefined) {
    return {
      kind: 'container_failed',
      score: FINDING_SCORES.container_failed,
      evidence: `${where}: terminated ${c.reason ?? 'Error'} (exit ${c.exitCode})${restarts}`,
      pod,
    };
  }
  return undefined;
}

function eventFinding(event: ClusterEvent): Omit<Finding, 'eventRef'> | undefined {
  const times = event.count > 1 ? ` ×${event.count}` : '';
  const object = `${event.object.kind} ${event.object.name}`;
  if (event.reason === 'Unhealthy') {
    const probe = /^(Readiness|Liveness|Startup) probe/i.exec(event.message)?.[1]?.toLowerCase() ?? 'health';
    return {
      kind: 'probe_failure',
      score: FINDING_SCORES.probe_failure,
      evidence: `${object}: ${probe} probe failing${times}`,
      pod: event.object.kind === 'Pod' ? event.object.name : undefined,
      probe,
    };
  }
  if (event.reason === 'FailedScheduling') {
    return {
      kind: 'unschedulable',
      score: FINDING_SCORES.unschedulable,
      evidence: `${object}: FailedScheduling${times}`,
    };
  }
  if (event.reason === 'FailedCreate') {
    return {
      kind: 'replica_failure',
      score: FINDING_SCORES.replica_failure,
      evidence: `${object}: FailedCreate${times} (cannot create Pods)`,
    };
  }
  return undefined;
}

function rolloutContext(
  d: Deployment,
  allReplicaSets: readonly ReplicaSet[],
  pods: readonly Pod[],
  failingPods: Set<string>,
  since: number | undefined,
): NonNullable<WorkloadTriage['rollout']> {
  const owned = replicaSetsOf(d, allReplicaSets);
  const current = newReplicaSetOf(d, owned);
  const revisionByRs = new Map(owned.map((rs) => [rs.metadata?.uid, revisionOf(rs)]));
  const failing = new Set<number>();
  for (const pod of pods) {
    if (!failingPods.has(pod.metadata?.name ?? '')) continue;
    const revision = revisionByRs.get(controllerOf(pod.metadata)?.uid);
    if (revision !== undefined) failing.add(revision);
  }
  const target = rollbackTarget(d, owned);
  const created = timeOf(current?.metadata?.creationTimestamp) || undefined;
  return {
    currentRevision: current ? (revisionOf(current) ?? null) : null,
    currentRevisionCreated: created,
    // The problem came with the rollout when the current ReplicaSet is not much older than the problem.
    startedWithRollout:
      created !== undefined && since !== undefined ? created >= since - ROLLOUT_LEAD_MS : false,
    paused: d.spec?.paused ?? false,
    failingRevisions: [...failing].sort((a, b) => a - b),
    previousRevision: target.found
      ? {
          revision: target.revision,
          images: imagesOf(target.replicaSet.spec?.template),
          readyReplicas: target.replicaSet.status?.readyReplicas ?? 0,
        }
      : null,
  };
}

/**
 * A crash loop the kubelet causes: containers killed because their liveness or startup probe fails
 * (`Unhealthy` "Liveness probe failed: …" next to the restarts), not because the process exits.
 */
function probeKill(findings: Finding[]): string | undefined {
  const probe = ['liveness', 'startup'].find((type) =>
    findings.some((f) => f.kind === 'probe_failure' && f.probe === type),
  );
  if (!probe) return undefined;
  return probe === 'liveness'
    ? 'the kubelet kills the containers because their liveness probe fails, and restarts them (exit 137 after failed liveness probes, not a crash of the process)'
    : 'the containers never pass their startup probe: the kubelet kills them after failureThreshold × periodSeconds and restarts them (exit 137)';
}

function summarize(findings: Finding[]): string {
  const kinds = [...new Set(findings.map((f) => f.kind))];
  return kinds.map((k) => k.replace('_', ' ')).join(', ');
}

/** The most likely cause, from the worst Pod-level finding (the symptom's source), plus the rollout context. */
function likelyCause(findings: Finding[], rollout: WorkloadTriage['rollout']): string {
  const has = (kind: FindingKind) => findings.find((f) => f.kind === kind);
  const cause =
    (has('image_pull') && 'an image cannot be pulled (wrong tag or name, or no registry access)') ||
    (has('config_error') &&
      'containers cannot be created from their configuration (a referenced Secret or ConfigMap, or a key in it, is missing)') ||
    (has('oom_killed') && 'containers are killed for exceeding their memory limit (OOMKilled)') ||
    (findings.some((f) => f.kind === 'crash_loop' && f.lastReason === 'OOMKilled') &&
      'containers crash-loop because they are killed for exceeding their memory limit (last terminated OOMKilled)') ||
    (has('crash_loop') && probeKill(findings)) ||
    (has('crash_loop') &&
      'containers crash after starting (CrashLoopBackOff); their previous logs say why') ||
    (has('container_failed') && 'containers exit with an error') ||
    (has('unschedulable') &&
      'Pods cannot be scheduled (not enough resources, or no node matches their constraints)') ||
    (has('replica_failure') && 'the ReplicaSet cannot create Pods (quota, admission or permissions)') ||
    (has('probe_failure') && 'containers run but fail their health probes') ||
    (has('rollout_stuck') && 'the new revision does not become available within its progress deadline') ||
    'fewer replicas are available than desired';
  const paused = rollout?.paused
    ? '; the rollout is paused (spec.paused), so it will not progress or change until resumed'
    : '';
  // Rollout context is worth saying only when there is an earlier revision to compare with.
  if (!rollout?.previousRevision || rollout.currentRevision === null) return `${cause}${paused}`;
  const { currentRevision, previousRevision: previous } = rollout;
  const failingOnlyCurrent =
    rollout.failingRevisions.length > 0 && rollout.failingRevisions.every((r) => r === currentRevision);
  if (rollout.startedWithRollout && failingOnlyCurrent) {
    return `${cause}; it started with revision ${currentRevision}: only its Pods fail, and the previous revision ${previous.revision} (${previous.images.join(', ')}) has ${previous.readyReplicas} ready replica(s)${paused}`;
  }
  if (!rollout.startedWithRollout && rollout.currentRevisionCreated !== undefined) {
    return `${cause}; revision ${currentRevision} was current long before the problem began, so no rollout brought it${paused}`;
  }
  return `${cause}${paused}`;
}
