/**
 * `rollback_deployment`: `kubectl rollout undo deployment/<name> [--to-revision=N]`, previewed,
 * attributed, and safe against concurrent changes.
 */
import pRetry, { AbortError } from 'p-retry';
import { z } from 'zod';
import { defineTool, toolInput } from '../define-tool.ts';
import { SentinelError } from '../errors.ts';
import {
  CHANGE_CAUSE_ANNOTATION,
  equalIgnoreHash,
  newReplicaSetOf,
  replicaSetsOf,
  revisionOf,
  rollbackTarget,
  templateWithoutHash,
  type Deployment,
  type JsonPatchOperation,
  type KubeWriter,
  type ReplicaSet,
  unsanitized,
} from '../kube/index.ts';
import { oneLine } from '../format/index.ts';
import { NamespaceSchema, objectNameSchema } from '../params.ts';
import { kindOf, workloadKindSchema } from '../workload-kind.ts';
import { planRevisionRollback } from './rollback-revision.ts';
import { observeRevisioned } from './workload.ts';
import { remediationArgs } from './args.ts';
import { ANNOTATION_PREFIX, FIELD_MANAGER, withStamps } from './attribution.ts';
import { containerImages, diffPodTemplates, diffStringMap, imageList } from './changes.ts';
import { observeDeploymentAsSent, type AsSentObservation } from './observe.ts';
import {
  digest,
  nextRevision,
  pausedRefusal,
  podTemplateDigest,
  RemediationOutputSchema,
  effectTargetOf,
  type PlanClients,
  type RemediationPlan,
} from './plan.ts';
import { runRemediation } from './run.ts';
import { readTargetRevisionWarnings } from './target-health.ts';
import { deploymentRef, managementWarnings, observationWarnings } from './warnings.ts';

/**
 * Deployment annotations a rollback keeps from the Deployment and never copies from the target
 * ReplicaSet (kubectl's `annotationsToSkip` in polymorphichelpers/rollback.go): the controller's and
 * kubectl's bookkeeping.
 */
export const ROLLBACK_KEPT_ANNOTATIONS: ReadonlySet<string> = new Set([
  'kubectl.kubernetes.io/last-applied-configuration',
  'deployment.kubernetes.io/revision',
  'deployment.kubernetes.io/revision-history',
  'deployment.kubernetes.io/desired-replicas',
  'deployment.kubernetes.io/max-replicas',
  'deprecated.deployment.rollback.to',
]);

export const RollbackDeploymentInputSchema = toolInput({
  namespace: NamespaceSchema,
  name: objectNameSchema('Deployment, StatefulSet or DaemonSet'),
  kind: workloadKindSchema(),
  to_revision: z
    .number({ error: 'must be a whole number' })
    .int({ error: 'must be a whole number' })
    .min(1, { error: 'must be a revision number, 1 or more' })
    .optional()
    .describe(
      'Revision to roll back to, as get_rollout_history / kubectl rollout history number them (1 or more; a ControllerRevision number for a StatefulSet or DaemonSet). ' +
        'Default: the previous revision (the highest below the current one).',
    ),
  ...remediationArgs,
});
export type RollbackDeploymentInput = z.infer<typeof RollbackDeploymentInputSchema>;

/**
 * The Deployment annotations after a rollback, as kubectl computes them: the Deployment's own
 * bookkeeping annotations (`ROLLBACK_KEPT_ANNOTATIONS`), then every other annotation of the target
 * ReplicaSet (so its `kubernetes.io/change-cause` is restored). Other Deployment annotations are
 * dropped, as with kubectl. Sentinel's own `sentinel.dev/` annotations are never carried over.
 */
export function rollbackAnnotations(deployment: Deployment, target: ReplicaSet): Record<string, string> {
  const annotations: Record<string, string> = {};
  for (const [key, value] of Object.entries(deployment.metadata?.annotations ?? {})) {
    if (ROLLBACK_KEPT_ANNOTATIONS.has(key)) annotations[key] = value;
  }
  for (const [key, value] of Object.entries(target.metadata?.annotations ?? {})) {
    if (!ROLLBACK_KEPT_ANNOTATIONS.has(key) && !key.startsWith(ANNOTATION_PREFIX)) annotations[key] = value;
  }
  return annotations;
}

/**
 * Plans a rollback of the observed Deployment, mirroring `kubectl rollout undo` (rollback.go
 * `DeploymentRollbacker.Rollback`), in kubectl's order:
 * 1. target: `toRevision`, else the previous revision (the second-highest among the ReplicaSets the
 *    Deployment controls, compared as numbers) — `not_found` listing the revisions that exist when
 *    there is no such revision (e.g. pruned past `revisionHistoryLimit`) or no earlier one;
 * 2. a paused Deployment is refused (`refused`), saying how to resume;
 * 3. a target whose template already matches the Deployment's (ignoring `pod-template-hash`) is a
 *    no-op ("skipped rollback");
 * 4. otherwise the change: the target's template without its `pod-template-hash` label replaces
 *    `spec.template`, and the annotations are replaced as `rollbackAnnotations` computes them.
 * The request is a JSON Patch (`replace /spec/template`, `replace /metadata/annotations`) that also
 * carries `replace /metadata/resourceVersion` with the version read, so a concurrent change makes
 * the API server answer 409 instead of being overwritten. Templates are compared and copied as the
 * API server sent them (`AsSentObservation`), so a field the client library does not model — a
 * newer pod-spec field — is neither lost by the rollback nor ignored by the "already matches" check,
 * and unsanitized (`unsanitized`): the preview shows the sanitized copies, the PATCH carries what was sent.
 * The effect binds what the rollback depends on and the approver saw: the target's uid, paused, from
 * and to revision, both template digests and image lists, the ReplicaSet restored, the annotations
 * written and the new revision — not `metadata.generation`, which an autoscaler moves (`spec.replicas` is not
 * part of a rollback, and the PATCH leaves it alone).
 * Pure: reads nothing, sends nothing. On a 409 the execution re-plans (`patchRetryingOnConflict`).
 */
export function planRollback(
  observed: AsSentObservation,
  args: { to_revision?: number | undefined },
): RemediationPlan {
  const first = planOnce(observed, args);
  const patch = first.patch;
  if (!patch) return first.plan;
  return {
    ...first.plan,
    apply: (clients, stamps) => patchRetryingOnConflict(first.plan, patch, args, clients, stamps),
  };
}

/** A rollback plan and, when it changes something, its single PATCH (sent once, no retry). */
interface RollbackAttempt {
  plan: RemediationPlan;
  patch?: RollbackPatch;
}
type RollbackPatch = (writer: KubeWriter, stamps: Record<string, string>) => Promise<Deployment>;

/** `planRollback` without the retry: the plan, and the PATCH carrying the resourceVersion read. */
function planOnce(observed: AsSentObservation, args: { to_revision?: number | undefined }): RollbackAttempt {
  const { deployment } = observed;
  const owned = replicaSetsOf(deployment, observed.replicaSets);
  const ref = deploymentRef(deployment);
  const namespace = deployment.metadata?.namespace ?? '';
  const name = deployment.metadata?.name ?? '';
  const chosen = rollbackTarget(deployment, owned, args.to_revision ?? 0);
  if (!chosen.found) {
    const existing = chosen.revisions.length ? chosen.revisions.join(', ') : 'none';
    if (chosen.reason === 'revision_not_found') {
      throw new SentinelError(
        'not_found',
        `Revision ${args.to_revision} of ${ref} not found; its revisions are ${existing} (the controller prunes old ReplicaSets beyond revisionHistoryLimit ${deployment.spec?.revisionHistoryLimit ?? 10}). get_rollout_history shows them. Nothing was sent.`,
        {
          kind: 'Deployment',
          namespace,
          name,
          field: 'to_revision',
          details: { revisions: chosen.revisions },
        },
      );
    }
    throw new SentinelError(
      'not_found',
      `${ref} has no earlier revision to roll back to (revisions: ${existing}); nothing was sent.`,
      { kind: 'Deployment', namespace, name, details: { revisions: chosen.revisions } },
    );
  }
  if (deployment.spec?.paused) {
    throw pausedRefusal(deployment, 'rolled back', 'kubectl rollout undo refuses too');
  }
  const toRevision = chosen.revision;
  if (toRevision < 1) {
    throw new SentinelError(
      'refused',
      `The previous ReplicaSet of ${ref}, ${chosen.replicaSet.metadata?.name}, has no revision number, so Sentinel cannot name it in an approvable call; nothing was sent. Check get_rollout_history.`,
      { kind: 'Deployment', namespace, name },
    );
  }
  const target = chosen.replicaSet;
  const current = newReplicaSetOf(deployment, owned);
  const fromRevision = revisionOf(current ?? deployment) ?? 0;
  const fromTemplate = deployment.spec?.template;
  const toTemplate = target.spec?.template;
  // Compared, digested and written as the API server sent them; the sanitized copies are only shown.
  const fromSent = unsanitized(deployment).spec?.template;
  const toSent = unsanitized(target).spec?.template;
  const effect = {
    tool: 'rollback_deployment',
    target: effectTargetOf(deployment),
    paused: false,
    from_revision: fromRevision,
    to_revision: toRevision,
    from_template: podTemplateDigest(fromSent),
    to_template: podTemplateDigest(toSent),
    to_replicaset: target.metadata?.name ?? '',
    from_images: containerImages(fromTemplate),
    to_images: containerImages(toTemplate),
  };
  const common = {
    tool: 'rollback_deployment',
    deployment,
    resolvedArguments: { namespace, name, to_revision: toRevision },
    warnings: [...managementWarnings(deployment), ...observationWarnings(deployment)],
    action: `roll back from revision ${fromRevision} to revision ${toRevision}`,
    makesRevision: true,
  };
  if (equalIgnoreHash(toSent, fromSent)) {
    const plan: RemediationPlan = {
      ...common,
      summary: `Skipped rollback: the current template of ${ref} already matches revision ${toRevision} (${imageList(toTemplate)})`,
      effect: { ...effect, no_op: true },
      changes: [],
    };
    return { plan };
  }

  const template = templateWithoutHash(toSent);
  const annotations = rollbackAnnotations(unsanitized(deployment), unsanitized(target));
  const shownAfter = rollbackAnnotations(deployment, target);
  const newRevision = nextRevision(
    toSent,
    owned.map((rs) => unsanitized(rs)),
  );
  const restoredCause = target.metadata?.annotations?.[CHANGE_CAUSE_ANNOTATION];
  const resourceVersion = deployment.metadata?.resourceVersion ?? '';
  const shown = (map: Record<string, string> | undefined) =>
    Object.fromEntries(
      Object.entries(map ?? {}).filter(
        ([key]) =>
          !ROLLBACK_KEPT_ANNOTATIONS.has(key) &&
          !key.startsWith(ANNOTATION_PREFIX) &&
          key !== CHANGE_CAUSE_ANNOTATION,
      ),
    );
  const plan: RemediationPlan = {
    ...common,
    summary: `Roll back ${ref} from revision ${fromRevision} (${imageList(fromTemplate)}) to revision ${toRevision} (${imageList(toTemplate)})`,
    effect: {
      ...effect,
      annotations: digest(annotations),
      new_revision: newRevision,
    },
    changes: [
      ...diffPodTemplates(fromTemplate, toTemplate),
      ...diffStringMap(
        'annotation',
        'Deployment annotation',
        shown(deployment.metadata?.annotations),
        shown(shownAfter),
      ),
    ],
    templates: { from: fromTemplate, to: toTemplate },
    newRevision,
    restored: {
      revision: toRevision,
      summary: `Rolled back ${ref} from revision ${fromRevision} (${imageList(fromTemplate)}) to revision ${toRevision}'s template (${imageList(toTemplate)}), now revision ${newRevision}`,
    },
    action: `${common.action}${restoredCause ? ` (${JSON.stringify(oneLine(restoredCause, 200))})` : ''}`,
  };
  const operations = (stamps: Record<string, string>): JsonPatchOperation[] => [
    { op: 'replace', path: '/spec/template', value: template },
    {
      op: deployment.metadata?.annotations ? 'replace' : 'add',
      path: '/metadata/annotations',
      value: withStamps(annotations, stamps),
    },
    { op: 'replace', path: '/metadata/resourceVersion', value: resourceVersion },
  ];
  return {
    plan,
    patch: (writer, stamps) =>
      writer.patchDeploymentJson(namespace, name, operations(stamps), { fieldManager: FIELD_MANAGER }),
  };
}

/** PATCHes in all: the first, and up to two more after a 409 whose re-plan is unchanged. */
export const ROLLBACK_ATTEMPTS = 3;

/**
 * Sends `firstPatch` (of `approvedPlan`) and, on 409 Conflict, retries as client-go's
 * `retry.RetryOnConflict` does, but only while what was approved still holds: after a short backoff (50 ms, then 100 ms, each
 * ×1–2) it re-reads the Deployment and its ReplicaSets and re-plans; when the re-planned effect has
 * the same `digest` as the approved one (only status, resourceVersion or `spec.replicas` moved, e.g.
 * the controller updating replica counts or an autoscaler scaling mid-incident), it sends the
 * re-planned PATCH, which carries the new resourceVersion; at most `ROLLBACK_ATTEMPTS` PATCHes. When
 * the effect changed (template, revisions, paused, ...), the re-read failed, or the attempts ran out, it throws
 * `conflictError`: nothing was changed. Other errors are thrown as they are.
 */
async function patchRetryingOnConflict(
  approvedPlan: RemediationPlan,
  firstPatch: RollbackPatch,
  args: { to_revision?: number | undefined },
  { writer, reader }: PlanClients,
  stamps: Record<string, string>,
): Promise<Deployment> {
  const approved = digest(approvedPlan.effect);
  const before = approvedPlan.deployment;
  const { namespace, name } = effectTargetOf(before);
  let send = firstPatch;
  let latest: Deployment | undefined;
  let lastConflict: SentinelError | undefined;
  const isConflict = (error: unknown): error is SentinelError =>
    error instanceof SentinelError && error.code === 'conflict';
  const replan = async (cause: SentinelError) => {
    let observed: AsSentObservation;
    try {
      observed = await observeDeploymentAsSent(reader, namespace, name);
    } catch {
      throw new AbortError(conflictError(before, undefined, cause));
    }
    latest = observed.deployment;
    let fresh: RollbackAttempt | undefined;
    try {
      fresh = planOnce(observed, args);
    } catch {
      fresh = undefined; // e.g. paused or the target pruned meanwhile: the effect changed
    }
    if (!fresh?.patch || digest(fresh.plan.effect) !== approved) {
      throw new AbortError(conflictError(before, observed.deployment, cause));
    }
    send = fresh.patch;
  };
  try {
    return await pRetry(
      async (attempt) => {
        if (attempt > 1 && lastConflict) await replan(lastConflict);
        try {
          return await send(writer, stamps);
        } catch (error) {
          if (isConflict(error)) lastConflict = error;
          throw error;
        }
      },
      {
        retries: ROLLBACK_ATTEMPTS - 1,
        minTimeout: 50,
        factor: 2,
        randomize: true,
        shouldRetry: ({ error }) => isConflict(error),
      },
    );
  } catch (error) {
    // the attempts ran out, each re-plan unchanged: the Deployment keeps moving
    if (lastConflict && error === lastConflict) throw conflictError(before, latest, lastConflict);
    throw error;
  }
}

/**
 * The error for a 409 on the rollback: what moved between the read the plan was made from
 * (`before`) and the latest re-read (`now`; undefined when it failed) — resourceVersion, generation,
 * revision, paused, images — that nothing was changed, and what to do.
 */
function conflictError(before: Deployment, now: Deployment | undefined, cause: SentinelError): SentinelError {
  const ref = deploymentRef(before);
  const namespace = before.metadata?.namespace ?? '';
  const name = before.metadata?.name ?? '';
  const moved: string[] = [];
  const compare = (what: string, a: unknown, b: unknown) => {
    if (a !== b) moved.push(`${what} ${a ?? 'none'} → ${b ?? 'none'}`);
  };
  if (now) {
    compare('resourceVersion', before.metadata?.resourceVersion, now.metadata?.resourceVersion);
    compare('generation', before.metadata?.generation, now.metadata?.generation);
    compare('revision', revisionOf(before), revisionOf(now));
    compare('paused', before.spec?.paused ?? false, now.spec?.paused ?? false);
    compare('images', imageList(before.spec?.template), imageList(now.spec?.template));
  }
  const what = now ? (moved.length ? ` (${moved.join('; ')})` : '') : ' (it could not be re-read)';
  return new SentinelError(
    'conflict',
    `${ref} changed after Sentinel read it${what}, so the API server refused the rollback with 409 Conflict (resourceVersion precondition) and nothing was changed. Preview the rollback again with dry_run: true to see what it would do now, and have that approved.`,
    {
      kind: 'Deployment',
      namespace,
      name,
      cause,
      details: {
        read_resource_version: before.metadata?.resourceVersion,
        ...(now && { current_resource_version: now.metadata?.resourceVersion }),
      },
    },
  );
}

/**
 * Rolls a Deployment (or, with `kind`, a StatefulSet or DaemonSet: `planRevisionRollback`) back to an
 * earlier revision — `kubectl rollout undo deployment/<name>
 * [--to-revision=N]`. Input: namespace, name, to_revision (default: the previous revision), dry_run,
 * reason. Reads the Deployment and its ReplicaSets as sent (every field kept), plans with `planRollback`, and either returns the
 * preview (dry_run) or sends the JSON Patch with the resourceVersion precondition, field manager
 * `sentinel`, and the reason / approval request id / change-cause annotations. Output:
 * `RemediationOutputSchema`. Errors: `not_found` (Deployment or revision; lists the revisions),
 * `refused` (paused), `conflict` (what it would do changed since it was read, or kept conflicting
 * after `ROLLBACK_ATTEMPTS` PATCHes: nothing changed), and
 * the Kubernetes layer's errors.
 */
export const rollbackDeployment = defineTool({
  name: 'rollback_deployment',
  title: 'Roll back a Deployment, StatefulSet or DaemonSet',
  description:
    'Rolls a Deployment (default), StatefulSet or DaemonSet (`kind`) back to an earlier revision, exactly like `kubectl rollout undo deployment|statefulset|daemonset/<name> [--to-revision=N]`. ' +
    "For a StatefulSet or DaemonSet the target ControllerRevision's stored patch (its pod template) is applied with a resourceVersion precondition, " +
    'and the controller renumbers that revision to the newest; a partitioned or OnDelete StatefulSet replaces Pods as its strategy says. For a Deployment: ' +
    "the target revision's pod template (without its pod-template-hash label) replaces the Deployment's, and its change-cause " +
    'is restored; the Deployment controller then rolls out that template, reusing the old ReplicaSet, which becomes the newest revision. ' +
    'Default target: the previous revision. Refuses a paused Deployment; a target equal to the current template changes nothing ("skipped rollback"). ' +
    'Call it with dry_run: true first: the preview names the cluster, from/to revision and images, every image/env/resource change, ' +
    'and warnings (GitOps, Helm or an owner that may undo it; a target revision that showed failures, never became available, or was just rolled back from). Fails with a conflict, changing nothing, if what it would do changed since it was read (a status-only change is retried). ' +
    'Afterwards verify with get_rollout_status.',
  risk: 'destructive',
  idempotent: false,
  supportsDryRun: true,
  input: RollbackDeploymentInputSchema,
  output: RemediationOutputSchema,
  handler: async (args, ctx) => {
    const kind = kindOf(args);
    if (kind !== 'Deployment') {
      const revisioned = await observeRevisioned(ctx.kube, kind, args.namespace, args.name);
      return runRemediation(planRevisionRollback(revisioned, args), args, ctx);
    }
    const observed = await observeDeploymentAsSent(ctx.kube, args.namespace, args.name);
    const plan = planRollback(observed, args);
    const toRevision = plan.resolvedArguments.to_revision;
    // Only the preview a human decides on reads the target's health (two lists); the execution and
    // the stale check of an approved retry (`recheck`: its approver read these warnings) do not.
    if (ctx.dryRun && !ctx.recheck && plan.apply && typeof toRevision === 'number') {
      const health = await readTargetRevisionWarnings(
        ctx.kube,
        observed.deployment,
        observed.replicaSets,
        toRevision,
      );
      return runRemediation({ ...plan, warnings: [...plan.warnings, ...health] }, args, ctx);
    }
    return runRemediation(plan, args, ctx);
  },
});
