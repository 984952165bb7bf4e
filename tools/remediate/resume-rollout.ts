/**
 * `resume_rollout`: `kubectl rollout resume deployment/<name>`.
 */
import type { z } from 'zod';
import { defineTool, toolInput } from '../define-tool.ts';
import { newReplicaSetOf, revisionOf, type ReplicaSet } from '../kube/index.ts';
import { DeploymentNameSchema, NamespaceSchema } from '../params.ts';
import { remediationArgs } from './args.ts';
import { attributedPatch, FIELD_MANAGER } from './attribution.ts';
import { diffPodTemplates, imageList } from './changes.ts';
import { observeDeployment, type DeploymentObservation } from './observe.ts';
import {
  nextRevision,
  podTemplateDigest,
  RemediationOutputSchema,
  targetOf,
  type RemediationPlan,
} from './plan.ts';
import { runRemediation } from './run.ts';
import { deploymentRef, managementWarnings, observationWarnings } from './warnings.ts';

export const ResumeRolloutInputSchema = toolInput({
  namespace: NamespaceSchema,
  name: DeploymentNameSchema,
  ...remediationArgs,
});
export type ResumeRolloutInput = z.infer<typeof ResumeRolloutInputSchema>;

/**
 * The ReplicaSet a paused Deployment is running: the one whose revision is the Deployment's
 * revision, else the highest revision.
 */
function runningReplicaSet(observed: DeploymentObservation): ReplicaSet | undefined {
  const revision = revisionOf(observed.deployment);
  const byRevision = [...observed.replicaSets].sort((a, b) => (revisionOf(a) ?? 0) - (revisionOf(b) ?? 0));
  return byRevision.find((rs) => revisionOf(rs) === revision) ?? byRevision.at(-1);
}

/**
 * Plans a resume, mirroring `kubectl rollout resume` (polymorphichelpers/objectresumer.go: the
 * strategic merge patch `{"spec":{"paused":null}}`): a Deployment that is not paused is a no-op that
 * says so. When the template changed while paused (no ReplicaSet matches it yet), resuming rolls
 * those changes out as a new revision; the preview lists each of them. Pure: reads nothing, sends
 * nothing.
 */
export function planResume(observed: DeploymentObservation): RemediationPlan {
  const { deployment } = observed;
  const namespace = deployment.metadata?.namespace ?? '';
  const name = deployment.metadata?.name ?? '';
  const ref = deploymentRef(deployment);
  const paused = deployment.spec?.paused === true;
  const template = deployment.spec?.template;
  const current = newReplicaSetOf(deployment, observed.replicaSets);
  const running = current ?? runningReplicaSet(observed);
  const revision = revisionOf(running ?? deployment) ?? 0;
  const pending = current === undefined && running !== undefined;
  const newRevision = pending ? nextRevision(template, observed.replicaSets) : undefined;
  const plan = {
    tool: 'resume_rollout',
    deployment,
    resolvedArguments: { namespace, name },
    effect: {
      tool: 'resume_rollout',
      target: targetOf(deployment),
      paused_from: paused,
      paused_to: false,
      revision,
      template: podTemplateDigest(template),
      running_template: podTemplateDigest(running?.spec?.template),
      ...(newRevision !== undefined && { new_revision: newRevision }),
      ...(!paused && { no_op: true }),
    },
    warnings: [...managementWarnings(deployment), ...observationWarnings(deployment)],
    // The rollout a resume releases is someone else's template change: its change-cause stays theirs.
    action: 'rollout resume',
    makesRevision: false,
  };
  if (!paused) {
    return { ...plan, summary: `${ref} is not paused`, changes: [] };
  }
  const rollsOut = pending
    ? `: the template changed while it was paused, so the controller rolls out revision ${newRevision} (${imageList(template)}) replacing revision ${revision} (${imageList(running?.spec?.template)})`
    : ` at revision ${revision} (${imageList(template)}); no template change is waiting, so no Pod is replaced`;
  return {
    ...plan,
    summary: `Resume rollouts of ${ref}${rollsOut}`,
    changes: [
      { kind: 'paused', from: true, to: false, text: 'spec.paused: true → false' },
      ...(pending ? diffPodTemplates(running?.spec?.template, template) : []),
    ],
    ...(newRevision !== undefined && { newRevision }),
    apply: ({ writer }, stamps) =>
      writer.patchDeploymentStrategic(
        namespace,
        name,
        attributedPatch({ paused: null }, deployment.metadata?.annotations, stamps),
        { fieldManager: FIELD_MANAGER },
      ),
  };
}

/**
 * Resumes a paused Deployment's rollouts — `kubectl rollout resume deployment/<name>`. Input:
 * namespace, name, dry_run, reason. No-op (nothing sent) when not paused. The preview lists the
 * template changes that resuming rolls out. Output: `RemediationOutputSchema`. Errors: `not_found`
 * and the Kubernetes layer's errors.
 */
export const resumeRollout = defineTool({
  name: 'resume_rollout',
  title: 'Resume a Deployment rollout',
  description:
    'Resumes a paused Deployment, exactly like `kubectl rollout resume deployment/<name>`; template changes made while it was paused are then rolled out as a new revision (the preview lists each image/env/resource change). ' +
    'Resuming a Deployment that is not paused changes nothing and says so. dry_run: true previews. Afterwards verify with get_rollout_status.',
  risk: 'write',
  idempotent: true,
  supportsDryRun: true,
  input: ResumeRolloutInputSchema,
  output: RemediationOutputSchema,
  handler: async (args, ctx) => {
    const observed = await observeDeployment(ctx.kube, args.namespace, args.name);
    return runRemediation(planResume(observed), args, ctx);
  },
});
