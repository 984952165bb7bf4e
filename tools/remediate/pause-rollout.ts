/**
 * `pause_rollout`: `kubectl rollout pause deployment/<name>`.
 */
import type { z } from 'zod';
import { defineTool, toolInput } from '../define-tool.ts';
import { newReplicaSetOf, revisionOf, rolloutVerdict } from '../kube/index.ts';
import { DeploymentNameSchema, NamespaceSchema } from '../params.ts';
import { remediationArgs } from './args.ts';
import { imageList } from './changes.ts';
import type { DeploymentObservation } from './observe.ts';
import { RemediationOutputSchema, type RemediationPlan } from './plan.ts';
import { patchPaused, pausedPlan, runOnDeployment } from './paused.ts';
import { deploymentRef } from './warnings.ts';

export const PauseRolloutInputSchema = toolInput({
  namespace: NamespaceSchema,
  name: DeploymentNameSchema,
  ...remediationArgs,
});
export type PauseRolloutInput = z.infer<typeof PauseRolloutInputSchema>;

/**
 * Plans a pause, mirroring `kubectl rollout pause` (polymorphichelpers/objectpauser.go: the strategic
 * merge patch `{"spec":{"paused":true}}`): an already paused Deployment is a no-op that says so. A
 * paused Deployment keeps its Pods and still scales, but template changes are not rolled out until
 * it is resumed; a rollout in progress stops where it is. Pure: reads nothing, sends nothing.
 */
export function planPause(observed: DeploymentObservation): RemediationPlan {
  const { deployment } = observed;
  const ref = deploymentRef(deployment);
  const paused = deployment.spec?.paused === true;
  const revision = revisionOf(newReplicaSetOf(deployment, observed.replicaSets) ?? deployment) ?? 0;
  const verdict = rolloutVerdict(deployment);
  const plan = { ...pausedPlan('pause_rollout', deployment, true, revision), action: 'rollout pause' };
  if (paused) {
    return { ...plan, summary: `${ref} is already paused`, changes: [] };
  }
  const midRollout =
    verdict.state === 'progressing'
      ? ` A rollout is in progress and stops where it is: ${verdict.message}`
      : '';
  return {
    ...plan,
    summary: `Pause rollouts of ${ref} at revision ${revision} (${imageList(deployment.spec?.template)}): its Pods stay, template changes wait until resume_rollout`,
    changes: [
      {
        kind: 'paused',
        from: false,
        to: true,
        text: `spec.paused: false → true (template changes are not rolled out until resumed; scaling still works).${midRollout}`,
      },
    ],
    apply: patchPaused(deployment, true),
  };
}

/**
 * Pauses a Deployment's rollouts — `kubectl rollout pause deployment/<name>`. Input: namespace,
 * name, dry_run, reason. No-op (nothing sent) when already paused. Output: `RemediationOutputSchema`.
 * Errors: `not_found` and the Kubernetes layer's errors.
 */
export const pauseRollout = defineTool({
  name: 'pause_rollout',
  title: 'Pause a Deployment rollout',
  description:
    'Pauses a Deployment, exactly like `kubectl rollout pause deployment/<name>`: its Pods keep running and it still scales, but template changes (new images, env) are not rolled out until resume_rollout; a rollout in progress stops where it is. ' +
    'Pausing a paused Deployment changes nothing and says so. Reversible with resume_rollout. dry_run: true previews.',
  risk: 'write',
  idempotent: true,
  supportsDryRun: true,
  input: PauseRolloutInputSchema,
  output: RemediationOutputSchema,
  handler: runOnDeployment(planPause),
});
