/**
 * What `pause_rollout` and `resume_rollout` share: the strategic merge patch of `spec.paused` that
 * kubectl's polymorphichelpers/objectpauser.go and objectresumer.go send (`true` to pause, `null` to
 * resume), carrying Sentinel's attribution, and the handler that reads the Deployment and runs the
 * tool's plan of it.
 */
import type { ToolContext, ToolOutput } from '../define-tool.ts';
import type { Deployment } from '../kube/index.ts';
import type { RemediationArgs } from './args.ts';
import { attributedPatch, FIELD_MANAGER } from './attribution.ts';
import { observeDeployment, type DeploymentObservation } from './observe.ts';
import { podTemplateDigest, effectTargetOf, type RemediationOutput, type RemediationPlan } from './plan.ts';
import { runRemediation } from './run.ts';
import { managementWarnings, observationWarnings } from './warnings.ts';

/**
 * What a pause (`to: true`) or resume (`to: false`) plan of `deployment` at `revision` holds
 * besides its summary, changes and write: the call, the effect (target, `paused_from`/`paused_to`,
 * revision, template digest, then `effect`'s own fields, `no_op` when `spec.paused` is already
 * `to`), the management and observation warnings; neither makes a revision. The effect binds the
 * target's uid, paused, revision and template digest — not `metadata.generation`, which an autoscaler moves
 * (pausing and resuming do not depend on `spec.replicas`).
 */
export function pausedPlan(
  tool: 'pause_rollout' | 'resume_rollout',
  deployment: Deployment,
  to: boolean,
  revision: number,
  effect: Record<string, unknown> = {},
): Omit<RemediationPlan, 'summary' | 'changes' | 'action'> {
  const from = deployment.spec?.paused === true;
  return {
    tool,
    deployment,
    resolvedArguments: {
      namespace: deployment.metadata?.namespace ?? '',
      name: deployment.metadata?.name ?? '',
    },
    effect: {
      tool,
      target: effectTargetOf(deployment),
      paused_from: from,
      paused_to: to,
      revision,
      template: podTemplateDigest(deployment.spec?.template),
      ...effect,
      ...(from === to && { no_op: true }),
    },
    warnings: [...managementWarnings(deployment), ...observationWarnings(deployment)],
    makesRevision: false,
  };
}

/**
 * A plan's `apply` that sets `spec.paused` of `deployment` to `paused` (`null` removes it, as
 * `kubectl rollout resume` does) with the attribution annotations, field manager `sentinel`, and
 * returns the Deployment the API server answered with. Throws the Kubernetes layer's errors.
 */
export function patchPaused(
  deployment: Deployment,
  paused: true | null,
): NonNullable<RemediationPlan['apply']> {
  const namespace = deployment.metadata?.namespace ?? '';
  const name = deployment.metadata?.name ?? '';
  return ({ writer }, stamps) =>
    writer.patchDeploymentStrategic(
      namespace,
      name,
      attributedPatch({ paused }, deployment.metadata?.annotations, stamps),
      { fieldManager: FIELD_MANAGER },
    );
}

/**
 * A tool handler that reads Deployment `namespace/name` and its ReplicaSets (`observeDeployment`,
 * two API calls) and runs the plan `plan` makes of them (`runRemediation`: a preview, a no-op or
 * the write). Throws what those throw (`not_found` naming the Deployment, ...).
 */
export function runOnDeployment(
  plan: (observed: DeploymentObservation) => RemediationPlan,
): (
  args: RemediationArgs & { namespace: string; name: string },
  ctx: ToolContext,
) => Promise<ToolOutput<RemediationOutput>> {
  return async (args, ctx) =>
    runRemediation(plan(await observeDeployment(ctx.kube, args.namespace, args.name)), args, ctx);
}
