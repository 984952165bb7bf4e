/**
 * Triage of StatefulSets and DaemonSets (issue 15), added to what `triage()` found from their Pods:
 * workload-level findings (unavailable replicas; a rolling update stuck with `updateRevision ≠
 * currentRevision`, naming the Pod an `OrderedReady` StatefulSet waits on; DaemonSet
 * `numberUnavailable` of `desiredNumberScheduled`), and the rollout context — the revision in use,
 * the revisions the failing Pods run, and which revision `kubectl rollout undo` would return to.
 * Additive: it only adds to workloads `triage()` already grouped by their Pods' owner.
 */
import {
  CONTROLLER_REVISION_HASH_LABEL,
  currentRevisionOf,
  findRevision,
  revisionTemplate,
  revisionsOf,
  timeOf,
  type ControllerRevision,
  type DaemonSet,
  type Pod,
  type StatefulSet,
} from '../../kube/index.ts';
import { imagesOf } from '../common.ts';
import { FINDING_SCORES, type Finding, type WorkloadTriage } from './findings.ts';

const ROLLOUT_LEAD_MS = 15 * 60_000;

const isReady = (pod: Pod) =>
  pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') === true;

/** Findings of a StatefulSet object: unavailable replicas, a stuck rolling update. */
export function statefulSetFindings(
  sts: StatefulSet,
  pods: readonly Pod[],
  revisions: readonly ControllerRevision[],
): Finding[] {
  const findings: Finding[] = [];
  const name = sts.metadata?.name ?? '';
  const desired = sts.spec?.replicas ?? 1;
  const ready = sts.status?.readyReplicas ?? 0;
  if (ready < desired) {
    findings.push({
      kind: 'unavailable',
      score: FINDING_SCORES.unavailable,
      evidence: `StatefulSet ${name}: ${ready}/${desired} replicas ready`,
    });
  }
  const { currentRevision, updateRevision } = sts.status ?? {};
  if (updateRevision && currentRevision && updateRevision !== currentRevision) {
    const number = (hash: string) => revisions.find((r) => r.metadata?.name === hash)?.revision ?? '?';
    const owned = pods.filter((p) =>
      p.metadata?.ownerReferences?.some((o) => o.controller && o.uid === sts.metadata?.uid),
    );
    const stuck = owned
      .filter((p) => !isReady(p))
      .sort((a, b) =>
        (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? '', undefined, { numeric: true }),
      );
    const ordered = (sts.spec?.podManagementPolicy ?? 'OrderedReady') === 'OrderedReady';
    const waiting = stuck[0];
    findings.push({
      kind: 'rollout_stuck',
      score: FINDING_SCORES.rollout_stuck,
      evidence: `StatefulSet ${name}: rolling update from revision ${number(currentRevision)} to ${number(updateRevision)} not finished (${sts.status?.updatedReplicas ?? 0}/${desired} updated)${
        waiting
          ? `; ${waiting.metadata?.name} (revision ${number(waiting.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? '')}) is not ready${ordered ? ', and OrderedReady waits on it' : ''}`
          : ''
      }`,
      ...(waiting?.metadata?.name && { pod: waiting.metadata.name }),
    });
  }
  return findings;
}

/** Findings of a DaemonSet object: unavailable Pods, a rollout not finished. */
export function daemonSetFindings(ds: DaemonSet): Finding[] {
  const findings: Finding[] = [];
  const name = ds.metadata?.name ?? '';
  const desired = ds.status?.desiredNumberScheduled ?? 0;
  const unavailable = ds.status?.numberUnavailable ?? 0;
  if (unavailable > 0) {
    findings.push({
      kind: 'unavailable',
      score: FINDING_SCORES.unavailable,
      evidence: `DaemonSet ${name}: ${unavailable} of ${desired} scheduled Pods unavailable`,
    });
  }
  const updated = ds.status?.updatedNumberScheduled ?? 0;
  if (updated < desired) {
    findings.push({
      kind: 'rollout_stuck',
      score: FINDING_SCORES.rollout_stuck,
      evidence: `DaemonSet ${name}: rollout not finished, ${updated} of ${desired} nodes run the current template`,
    });
  }
  return findings;
}

/** The rollout context of a StatefulSet or DaemonSet, in `WorkloadTriage['rollout']`'s terms. */
export function workloadRollout(
  object: StatefulSet | DaemonSet,
  sorted: readonly ControllerRevision[],
  failingPods: readonly Pod[],
  since: number | undefined,
): NonNullable<WorkloadTriage['rollout']> {
  const current = currentRevisionOf(object, sorted);
  const previous = findRevision(sorted, 0);
  const created = timeOf(current?.metadata?.creationTimestamp) || undefined;
  const owner = object.metadata?.name ?? '';
  // A StatefulSet Pod's label is the revision's name, a DaemonSet Pod's the hash in `<owner>-<hash>`.
  const revisionOfPod = (pod: Pod) => {
    const label = pod.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL];
    return label
      ? sorted.find((r) => r.metadata?.name === label || r.metadata?.name === `${owner}-${label}`)?.revision
      : undefined;
  };
  const failing = [
    ...new Set(failingPods.map(revisionOfPod).filter((r): r is number => typeof r === 'number')),
  ].sort((a, b) => a - b);
  return {
    currentRevision: current?.revision ?? null,
    currentRevisionCreated: created,
    startedWithRollout:
      created !== undefined && since !== undefined && since >= created && since - created <= ROLLOUT_LEAD_MS,
    paused: false,
    failingRevisions: failing,
    previousRevision:
      previous && previous !== current
        ? { revision: previous.revision ?? 0, images: imagesOf(revisionTemplate(previous)), readyReplicas: 0 }
        : null,
  };
}

/**
 * Adds the StatefulSet and DaemonSet findings and rollout context to `workloads` (from `triage()`),
 * in place, and re-sorts by score. `objects` are the StatefulSets/DaemonSets listed.
 */
export function addWorkloadTriage(
  workloads: WorkloadTriage[],
  objects: {
    statefulSets: readonly StatefulSet[];
    daemonSets: readonly DaemonSet[];
    revisions: readonly ControllerRevision[];
  },
  pods: readonly Pod[],
): void {
  for (const w of workloads) {
    const object =
      w.kind === 'StatefulSet'
        ? objects.statefulSets.find((s) => s.metadata?.name === w.name)
        : w.kind === 'DaemonSet'
          ? objects.daemonSets.find((d) => d.metadata?.name === w.name)
          : undefined;
    if (!object) continue;
    const sorted = revisionsOf(object, objects.revisions);
    const extra =
      w.kind === 'StatefulSet'
        ? statefulSetFindings(object as StatefulSet, pods, sorted)
        : daemonSetFindings(object as DaemonSet);
    w.findings = [...extra, ...w.findings].sort((a, b) => b.score - a.score);
    w.score = Math.max(w.score, ...extra.map((f) => f.score));
    w.severity = w.score >= 85 ? 'critical' : w.score >= 70 ? 'high' : 'medium';
    const failing = pods.filter((p) => w.findings.some((f) => f.pod === p.metadata?.name));
    w.rollout = workloadRollout(object, sorted, failing, w.since);
  }
  workloads.sort((a, b) => b.score - a.score || b.podsAffected - a.podsAffected);
}
