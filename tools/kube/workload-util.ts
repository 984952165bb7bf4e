/**
 * StatefulSet and DaemonSet semantics kubectl applies, as pure functions: their ControllerRevision
 * history (polymorphichelpers/history.go `controlledHistory`), the revision a rollback returns to
 * (rollback.go `findHistory`), the patch a revision stores and the "already matches" check
 * (`getStatefulSetPatch` / `getDaemonSetPatch`, `statefulSetMatch` / `daemonSetMatch`), and the
 * rollout verdicts of rollout_status.go (`StatefulSetStatusViewer`, `DaemonSetStatusViewer`).
 */
import { canonicalJson } from '../../core/index.ts';
import { isControlledBy, type RolloutVerdict } from './deployment-util.ts';
import type { ControllerRevision, DaemonSet, StatefulSet } from './workloads.ts';
import type { JsonObject, PodTemplateSpec } from './types.ts';

/** The kinds whose history is kept in ControllerRevisions. */
export type RevisionedKind = 'StatefulSet' | 'DaemonSet';
/** A StatefulSet or DaemonSet. */
export type RevisionedWorkload = StatefulSet | DaemonSet;

/** The `controller-revision-hash` label the controllers put on a revision and on its Pods. */
export const CONTROLLER_REVISION_HASH_LABEL = 'controller-revision-hash';

/**
 * The label a StatefulSet's ControllerRevision carries its bare hash in
 * (`history.ControllerRevisionHashLabel`); its Pods name the revision `<set>-<hash>` instead.
 */
export const HISTORY_HASH_LABEL = 'controller.kubernetes.io/hash';

/**
 * The ControllerRevisions `owner` controls (by controller owner reference, never by name), sorted
 * by `revision` ascending (ties by name), as `controlledHistory` + `historiesByRevision`.
 */
export function revisionsOf<R extends ControllerRevision>(
  owner: { metadata?: { uid?: string } },
  revisions: readonly R[],
): R[] {
  return revisions
    .filter((revision) => isControlledBy(revision, owner))
    .sort(
      (a, b) =>
        (a.revision ?? 0) - (b.revision ?? 0) ||
        (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''),
    );
}

/**
 * The revision a rollback returns to, as kubectl's `findHistory`: `toRevision` (> 0) is looked up by
 * number; `0` means the previous one, the second-highest. `undefined` when there is no such
 * revision, or only one revision and no number given ("no last revision to roll back to").
 * `sorted` must be `revisionsOf`'s result.
 */
export function findRevision<R extends ControllerRevision>(
  sorted: readonly R[],
  toRevision: number,
): R | undefined {
  if (toRevision === 0) return sorted.length <= 1 ? undefined : sorted[sorted.length - 2];
  return sorted.find((revision) => revision.revision === toRevision);
}

/**
 * The strategic merge patch a ControllerRevision of `workload` stores and a rollback applies:
 * `{"spec":{"template":{...the pod template, "$patch":"replace"}}}` (`getStatefulSetPatch`,
 * `getDaemonSetPatch`: only the pod template is saved). From the object as sent.
 */
export function revisionPatch(workload: RevisionedWorkload): JsonObject {
  const template = (workload.spec?.template ?? {}) as JsonObject;
  return { spec: { template: { ...goTemplate(template), $patch: 'replace' } } };
}

/**
 * A pod template as Go's `json.Marshal` writes it, where kubectl builds the patch: `metadata` with
 * `creationTimestamp: null` (a struct field, so `omitempty` does not drop it), as the controllers
 * store it in a revision's data.
 */
function goTemplate(template: JsonObject): JsonObject {
  const metadata = (template.metadata ?? {}) as JsonObject;
  return { ...template, metadata: { ...metadata, creationTimestamp: metadata.creationTimestamp ?? null } };
}

/**
 * Whether `workload`'s pod template already is `revision`'s (kubectl's `statefulSetMatch` /
 * `daemonSetMatch` compare the patch bytes; here the canonical JSON, so key order does not count).
 */
export function matchesRevision(workload: RevisionedWorkload, revision: ControllerRevision): boolean {
  const data = revision.data as { spec?: { template?: JsonObject } } | undefined;
  const stored = data?.spec?.template;
  const normalized = stored
    ? { ...data, spec: { ...data.spec, template: goTemplate(stored) } }
    : (data ?? null);
  return canonicalJson(revisionPatch(workload)) === canonicalJson(normalized);
}

/** The pod template a ControllerRevision stores (`data.spec.template` without `$patch`), if any. */
export function revisionTemplate(revision: ControllerRevision): PodTemplateSpec | undefined {
  const data = revision.data as { spec?: { template?: JsonObject } } | undefined;
  const template = data?.spec?.template;
  if (!template || typeof template !== 'object') return undefined;
  const { $patch: _ignored, ...rest } = template;
  const metadata = rest.metadata as JsonObject | undefined;
  if (metadata && metadata.creationTimestamp === null) {
    // Go's zero time, not a field of the template: dropped so it compares and shows like the object's.
    const { creationTimestamp: _zero, ...kept } = metadata;
    return { ...rest, metadata: kept } as PodTemplateSpec;
  }
  return rest as PodTemplateSpec;
}

/** The revision whose hash names the workload's current or update revision (`status.currentRevision` etc.). */
export function revisionNamed<R extends ControllerRevision>(
  sorted: readonly R[],
  name: string | undefined,
): R | undefined {
  return name ? sorted.find((revision) => revision.metadata?.name === name) : undefined;
}

/**
 * The current revision of `workload`: the one whose template matches, else the one named by
 * `status.updateRevision` (StatefulSet), else the highest.
 */
export function currentRevisionOf<R extends ControllerRevision>(
  workload: RevisionedWorkload,
  sorted: readonly R[],
): R | undefined {
  const matching = [...sorted].reverse().find((revision) => matchesRevision(workload, revision));
  if (matching) return matching;
  const update = (workload as StatefulSet).status?.updateRevision;
  return revisionNamed(sorted, update) ?? sorted[sorted.length - 1];
}

/** The `revision` number a new ControllerRevision gets, or a reused one is renumbered to: highest + 1 (`nextRevision`). */
export function nextControllerRevision(sorted: readonly ControllerRevision[]): number {
  return Math.max(0, ...sorted.map((revision) => revision.revision ?? 0)) + 1;
}

/** A rollout verdict, or the reason kubectl cannot give one (strategy `OnDelete`). */
export type WorkloadVerdict = RolloutVerdict | { state: 'unsupported'; message: string };

/**
 * `kubectl rollout status statefulset/<name>` (rollout_status.go `StatefulSetStatusViewer`), in its
 * order: strategy other than `RollingUpdate` → cannot wait (`unsupported`); spec not yet observed;
 * fewer ready replicas than desired; with a `partition` (defaulted to 0), fewer updated replicas than
 * `replicas − partition` (else "partitioned roll out complete"); `updateRevision ≠ currentRevision`;
 * else complete.
 */
export function statefulSetVerdict(sts: StatefulSet): WorkloadVerdict {
  const strategy = sts.spec?.updateStrategy?.type ?? 'RollingUpdate';
  if (strategy !== 'RollingUpdate') {
    return {
      state: 'unsupported',
      message: `rollout status is only available for RollingUpdate strategy type (StatefulSet ${sts.metadata?.name ?? ''} uses ${strategy}: its Pods are replaced only when deleted, so there is no rollout to wait for)`,
    };
  }
  const status = sts.status ?? { replicas: 0 };
  const observed = status.observedGeneration ?? 0;
  if (observed === 0 || (sts.metadata?.generation ?? 0) > observed) {
    return { state: 'progressing', message: 'Waiting for statefulset spec update to be observed...' };
  }
  const replicas = sts.spec?.replicas ?? 1;
  const ready = status.readyReplicas ?? 0;
  if (ready < replicas) {
    return { state: 'progressing', message: `Waiting for ${replicas - ready} pods to be ready...` };
  }
  const partition = sts.spec?.updateStrategy?.rollingUpdate?.partition;
  // The API server defaults partition to 0, so on a real cluster this is the usual path.
  if (partition !== undefined) {
    const updated = status.updatedReplicas ?? 0;
    if (updated < replicas - partition) {
      return {
        state: 'progressing',
        message: `Waiting for partitioned roll out to finish: ${updated} out of ${replicas - partition} new pods have been updated...`,
      };
    }
    return {
      state: 'complete',
      message: `partitioned roll out complete: ${updated} new pods have been updated...`,
    };
  }
  if (status.updateRevision !== status.currentRevision) {
    return {
      state: 'progressing',
      message: `waiting for statefulset rolling update to complete ${status.updatedReplicas ?? 0} pods at revision ${status.updateRevision ?? ''}...`,
    };
  }
  return {
    state: 'complete',
    message: `statefulset rolling update complete ${status.currentReplicas ?? 0} pods at revision ${status.currentRevision ?? ''}...`,
  };
}

/**
 * `kubectl rollout status daemonset/<name>` (rollout_status.go `DaemonSetStatusViewer`): strategy
 * other than `RollingUpdate` → cannot wait (`unsupported`); spec not yet observed; fewer updated
 * Pods than desired; fewer available than desired; else complete.
 */
export function daemonSetVerdict(ds: DaemonSet): WorkloadVerdict {
  const name = ds.metadata?.name ?? '';
  const strategy = ds.spec?.updateStrategy?.type ?? 'RollingUpdate';
  if (strategy !== 'RollingUpdate') {
    return {
      state: 'unsupported',
      message: `rollout status is only available for RollingUpdate strategy type (DaemonSet ${name} uses ${strategy}: its Pods are replaced only when deleted, so there is no rollout to wait for)`,
    };
  }
  const status = ds.status;
  if ((ds.metadata?.generation ?? 0) > (status?.observedGeneration ?? 0)) {
    return { state: 'progressing', message: 'Waiting for daemon set spec update to be observed...' };
  }
  const desired = status?.desiredNumberScheduled ?? 0;
  const updated = status?.updatedNumberScheduled ?? 0;
  if (updated < desired) {
    return {
      state: 'progressing',
      message: `Waiting for daemon set "${name}" rollout to finish: ${updated} out of ${desired} new pods have been updated...`,
    };
  }
  const available = status?.numberAvailable ?? 0;
  if (available < desired) {
    return {
      state: 'progressing',
      message: `Waiting for daemon set "${name}" rollout to finish: ${available} of ${desired} updated pods are available...`,
    };
  }
  return { state: 'complete', message: `daemon set "${name}" successfully rolled out` };
}

/** `statefulSetVerdict` or `daemonSetVerdict` by kind. */
export function workloadVerdict(kind: RevisionedKind, workload: RevisionedWorkload): WorkloadVerdict {
  return kind === 'StatefulSet'
    ? statefulSetVerdict(workload as StatefulSet)
    : daemonSetVerdict(workload as DaemonSet);
}
