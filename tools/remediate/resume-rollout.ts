/**
 * `resume_rollout`: `kubectl rollout resume deployment/<name>`.
 */
import type { z } from 'zod';
import { defineTool, toolInput } from '../define-tool.ts';
import { newReplicaSetOf, revisionOf, type ReplicaSet } from '../kube/index.ts';
import { DeploymentNameSchema, NamespaceSchema } from '../params.ts';
import { remediationArgs } from './args.ts';
import { diffPodTemplates, imageList } from './changes.ts';
import type { DeploymentObservation } from './observe.ts';
import { nextRevision, podTemplateDigest, RemediationOutputSchema, type RemediationPlan } from './plan.ts';
import { patchPaused, pausedPlan, runOnDeployment } from './paused.ts';
import { deploymentRef } from './warnings.ts';

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
  const ref = deploymentRef(deployment);
  const paused = deployment.spec?.paused === true;
  const template = deployment.spec?.template;
  const current = newReplicaSetOf(deployment, observed.replicaSets);
  const running = current ?? runningReplicaSet(observed);
  const revision = revisionOf(running ?? deployment) ?? 0;
  const pending = current === undefined && running !== undefined;
  const newRevision = pending ? nextRevision(template, observed.replicaSets) : undefined;
  const plan = {
    ...pausedPlan('resume_rollout', deployment, false, revision, {
      running_template: podTemplateDigest(running?.spec?.template),
      ...(newRevision !== undefined && { new_revision: newRevision }),
    }),
    // The rollout a resume releases is someone else's template change: its change-cause stays theirs.
    action: 'rollout resume',
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
    apply: patchPaused(deployment, null),
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
  handler: runOnDeployment(planResume),
});
