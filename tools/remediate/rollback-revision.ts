/**
 * Rolling back a StatefulSet or DaemonSet to one of its ControllerRevisions — `kubectl rollout undo
 * statefulset|daemonset/<name> [--to-revision=N]` (polymorphichelpers/rollback.go
 * `StatefulSetRollbacker` / `DaemonSetRollbacker`), previewed, attributed, and guarded by a
 * resourceVersion precondition. `rollback_deployment` calls it for `kind: StatefulSet|DaemonSet`.
 */
import { SentinelError } from '../errors.ts';
import {
  CONTROLLER_REVISION_HASH_LABEL,
  currentRevisionOf,
  findRevision,
  matchesRevision,
  nextControllerRevision,
  revisionTemplate,
  unsanitized,
  workloadVerdict,
  type ControllerRevision,
  type JsonObject,
  type RevisionedWorkload,
} from '../kube/index.ts';
import { annotationPatch, FIELD_MANAGER } from './attribution.ts';
import { containerImages, diffPodTemplates, imageList } from './changes.ts';
import { digest, podTemplateDigest, effectTargetOf, type ObjectPlan, type PlanClients } from './plan.ts';
import {
  observeRevisioned,
  onDeleteWarnings,
  workloadManagementWarnings,
  workloadObservationWarnings,
  workloadRef,
  type RevisionedObservation,
} from './workload.ts';

/** PATCHes in all: the first, and up to two more after a 409 whose re-plan is unchanged. */
export const REVISION_ROLLBACK_ATTEMPTS = 3;

/**
 * Plans a rollback of the observed StatefulSet or DaemonSet in kubectl's order:
 * 1. the target ControllerRevision: `to_revision`, else the previous one (the second-highest
 *    `revision`; `findHistory`) — `not_found` listing the revisions there are, or "no last revision
 *    to roll back to" when there is only one;
 * 2. a current pod template that already is the target's (`statefulSetMatch` / `daemonSetMatch`)
 *    is a no-op ("skipped rollback");
 * 3. otherwise the change: the revision's `data` (a strategic merge patch replacing
 *    `spec.template`) is sent as it was stored, with `metadata.resourceVersion` of the object read
 *    (a concurrent change makes the API server answer 409 instead of being overwritten) and
 *    Sentinel's attribution annotations. The controller then reuses that ControllerRevision and
 *    renumbers it to the highest revision + 1 (`new_revision`).
 * The effect names the kind, the target's uid, from and to revision, both template digests and image
 * lists, the target ControllerRevision, its `controller-revision-hash` and data digest, so a stale
 * check sees any change to them — not `metadata.generation`, which an autoscaler moves (a StatefulSet's
 * `spec.replicas` is not part of a rollback). Pure: reads nothing, sends nothing; on a 409 the execution
 * re-reads and re-plans, and resends only when the effect is unchanged.
 */
export function planRevisionRollback(
  observed: RevisionedObservation,
  args: { to_revision?: number | undefined },
): ObjectPlan {
  const { kind, object, revisions } = observed;
  const namespace = object.metadata?.namespace ?? '';
  const name = object.metadata?.name ?? '';
  const ref = workloadRef(kind, object);
  const numbers = revisions.map((revision) => revision.revision ?? 0);
  const existing = numbers.length ? numbers.join(', ') : 'none';
  const chosen = findRevision(revisions, args.to_revision ?? 0);
  if (!chosen) {
    if (args.to_revision !== undefined) {
      throw new SentinelError(
        'not_found',
        `Revision ${args.to_revision} of ${ref} not found; its revisions are ${existing} (the controller keeps revisionHistoryLimit ${object.spec?.revisionHistoryLimit ?? 10} old ControllerRevisions). get_rollout_history shows them. Nothing was sent.`,
        { kind, namespace, name, field: 'to_revision', details: { revisions: numbers } },
      );
    }
    throw new SentinelError(
      'not_found',
      `${ref} has no last revision to roll back to (revisions: ${existing}); nothing was sent.`,
      { kind, namespace, name, details: { revisions: numbers } },
    );
  }
  const toRevision = chosen.revision ?? 0;
  const current = currentRevisionOf(
    unsanitized(object),
    revisions.map((r) => unsanitized(r)),
  );
  const fromRevision = current?.revision ?? 0;
  const fromTemplate = object.spec?.template;
  const toTemplate = revisionTemplate(chosen);
  const fromSent = unsanitized(object).spec?.template;
  const toSent = revisionTemplate(unsanitized(chosen));
  const newRevision = nextControllerRevision(revisions);
  const effect = {
    tool: 'rollback_deployment',
    kind,
    target: effectTargetOf(object, kind),
    from_revision: fromRevision,
    to_revision: toRevision,
    from_template: podTemplateDigest(fromSent),
    to_template: podTemplateDigest(toSent),
    to_controller_revision: chosen.metadata?.name ?? '',
    to_revision_hash: chosen.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? '',
    to_data: digest(unsanitized(chosen).data ?? null),
    from_images: containerImages(fromTemplate),
    to_images: containerImages(toTemplate),
  };
  const common = {
    tool: 'rollback_deployment',
    kind,
    object,
    resolvedArguments: { namespace, name, kind, to_revision: toRevision },
    warnings: [
      ...workloadManagementWarnings(kind, object),
      ...workloadObservationWarnings(kind, object),
      ...onDeleteWarnings(kind, object),
    ],
    action: `roll back from revision ${fromRevision} to revision ${toRevision}`,
    makesRevision: true,
    verdict: (written: RevisionedWorkload) => workloadVerdict(kind, written),
  };
  if (matchesRevision(unsanitized(object), unsanitized(chosen))) {
    return {
      ...common,
      summary: `Skipped rollback: the current template of ${ref} already matches revision ${toRevision} (${imageList(toTemplate)})`,
      effect: { ...effect, no_op: true },
      changes: [],
    };
  }
  const plan: ObjectPlan = {
    ...common,
    summary: `Roll back ${ref} from revision ${fromRevision} (${imageList(fromTemplate)}) to revision ${toRevision} (${imageList(toTemplate)})`,
    effect: { ...effect, new_revision: newRevision },
    changes: diffPodTemplates(fromTemplate, toTemplate),
    templates: { from: fromTemplate, to: toTemplate },
    newRevision,
    restored: {
      revision: toRevision,
      summary: `Rolled back ${ref} from revision ${fromRevision} (${imageList(fromTemplate)}) to revision ${toRevision}'s template (${imageList(toTemplate)}), now revision ${newRevision}`,
    },
  };
  return {
    ...plan,
    apply: (clients, stamps) => sendRetryingOnConflict(observed, plan, args, clients, stamps),
  };
}

/** The strategic merge patch of a rollback: the revision's data as stored, the precondition, the stamps. */
export function revisionRollbackPatch(
  object: RevisionedWorkload,
  revision: ControllerRevision,
  stamps: Record<string, string>,
): JsonObject {
  const sentObject = unsanitized(object);
  const data = (unsanitized(revision).data ?? {}) as JsonObject;
  const annotations = annotationPatch(sentObject.metadata?.annotations, stamps);
  return {
    ...data,
    metadata: {
      resourceVersion: sentObject.metadata?.resourceVersion ?? '',
      ...(Object.keys(annotations).length > 0 && { annotations }),
    },
  };
}

function send(
  observed: RevisionedObservation,
  args: { to_revision?: number | undefined },
  writer: PlanClients['writer'],
  stamps: Record<string, string>,
): Promise<RevisionedWorkload> {
  const { kind, object, revisions } = observed;
  const chosen = findRevision(revisions, args.to_revision ?? 0)!;
  const patch = revisionRollbackPatch(object, chosen, stamps);
  const namespace = object.metadata?.namespace ?? '';
  const name = object.metadata?.name ?? '';
  return kind === 'StatefulSet'
    ? writer.patchStatefulSetStrategic(namespace, name, patch, { fieldManager: FIELD_MANAGER })
    : writer.patchDaemonSetStrategic(namespace, name, patch, { fieldManager: FIELD_MANAGER });
}

/**
 * Sends the rollback; on 409 Conflict re-reads the object and its revisions, re-plans, and resends
 * (with the new resourceVersion) only while the re-planned effect equals the approved one (only
 * status, resourceVersion or `spec.replicas` moved), at most `REVISION_ROLLBACK_ATTEMPTS` PATCHes.
 * Otherwise throws `conflict`: nothing was changed.
 */
async function sendRetryingOnConflict(
  observed: RevisionedObservation,
  approved: ObjectPlan,
  args: { to_revision?: number | undefined },
  { writer, reader }: PlanClients,
  stamps: Record<string, string>,
): Promise<RevisionedWorkload> {
  const { kind, object } = observed;
  const namespace = object.metadata?.namespace ?? '';
  const name = object.metadata?.name ?? '';
  const want = digest(approved.effect);
  let current = observed;
  for (let attempt = 1; ; attempt++) {
    try {
      return await send(current, args, writer, stamps);
    } catch (error) {
      if (!(error instanceof SentinelError && error.code === 'conflict')) throw error;
      const stale = (why: string) =>
        new SentinelError(
          'conflict',
          `${workloadRef(kind, object)} changed after Sentinel read it (${why}), so the API server refused the rollback with 409 Conflict (resourceVersion precondition) and nothing was changed. Preview the rollback again with dry_run: true to see what it would do now, and have that approved.`,
          { kind, namespace, name, cause: error },
        );
      if (attempt >= REVISION_ROLLBACK_ATTEMPTS) throw stale('it kept changing');
      let fresh: RevisionedObservation;
      try {
        fresh = await observeRevisioned(reader, kind, namespace, name);
      } catch {
        throw stale('it could not be re-read');
      }
      let replanned: ObjectPlan | undefined;
      try {
        replanned = planRevisionRollback(fresh, args);
      } catch {
        replanned = undefined;
      }
      if (!replanned?.apply || digest(replanned.effect) !== want)
        throw stale('what the rollback would do is different now');
      current = fresh;
    }
  }
}
