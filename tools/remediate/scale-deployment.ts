/**
 * `scale_deployment`: `kubectl scale deployment/<name> --replicas=N`, through the `scale`
 * subresource, bounded by a configured maximum.
 */
import { z } from 'zod';
import { defineTool, toolInput } from '../define-tool.ts';
import { SentinelError } from '../errors.ts';
import type { HorizontalPodAutoscaler } from '../kube/index.ts';
import { DeploymentNameSchema, NamespaceSchema } from '../params.ts';
import { remediationArgs } from './args.ts';
import { annotationPatch, FIELD_MANAGER } from './attribution.ts';
import type { DeploymentObservation } from './observe.ts';
import { RemediationOutputSchema, targetOf, type RemediationPlan } from './plan.ts';
import { outcomeUnknown, runRemediation } from './run.ts';
import {
  autoscalersOf,
  autoscalerWarnings,
  deploymentRef,
  describeAutoscaler,
  managementWarnings,
  observationWarnings,
  type Warning,
} from './warnings.ts';

/** Environment variable that sets the largest replica count `scale_deployment` accepts. */
export const MAX_REPLICAS_ENV = 'SENTINEL_MAX_REPLICAS';
/** The largest replica count accepted when `SENTINEL_MAX_REPLICAS` is not set. */
export const DEFAULT_MAX_REPLICAS = 50;
/** The largest value `SENTINEL_MAX_REPLICAS` may take. */
export const MAX_REPLICAS_LIMIT = 10_000;

/**
 * The configured maximum from the value of `SENTINEL_MAX_REPLICAS`: unset or empty → 50; a whole
 * number from 1 to 10000 → that; anything else → 50 plus a `problem` that every scale call reports
 * (so a typo in the server's environment is loud, never silently widened).
 */
export function maxReplicasFrom(raw: string | undefined): { max: number; problem?: string } {
  if (raw === undefined || raw.trim() === '') return { max: DEFAULT_MAX_REPLICAS };
  const value = Number(raw.trim());
  if (Number.isInteger(value) && value >= 1 && value <= MAX_REPLICAS_LIMIT) return { max: value };
  return {
    max: DEFAULT_MAX_REPLICAS,
    problem: `${MAX_REPLICAS_ENV}=${JSON.stringify(raw)} is not a whole number from 1 to ${MAX_REPLICAS_LIMIT}; fix the server's environment and restart it. Nothing was sent.`,
  };
}

const configured = maxReplicasFrom(process.env[MAX_REPLICAS_ENV]);

export const ScaleDeploymentInputSchema = toolInput({
  namespace: NamespaceSchema,
  name: DeploymentNameSchema,
  replicas: z
    .number({ error: `must be a whole number of replicas from 0 to ${configured.max}` })
    .int({ error: `must be a whole number of replicas from 0 to ${configured.max}` })
    .min(0, { error: `must be a whole number of replicas from 0 to ${configured.max}` })
    .max(configured.max, {
      error: `must be at most ${configured.max} (the configured maximum, ${MAX_REPLICAS_ENV})`,
    })
    .describe(
      `Desired number of Pods, 0 to ${configured.max} (the server's maximum, set by ${MAX_REPLICAS_ENV}, default ${DEFAULT_MAX_REPLICAS}). 0 stops every Pod.`,
    ),
  ...remediationArgs,
});
export type ScaleDeploymentInput = z.infer<typeof ScaleDeploymentInputSchema>;

/** A Deployment and the HorizontalPodAutoscalers of its namespace. */
export interface ScaleObservation {
  deployment: DeploymentObservation['deployment'];
  autoscalers: HorizontalPodAutoscaler[];
}

/**
 * Plans a scale, mirroring `kubectl scale` (a merge patch `{"spec":{"replicas":N}}` on
 * `deployments/<name>/scale`): from `spec.replicas` (default 1) to `replicas`; equal counts are a
 * no-op. Warns when the result is 0, when a HorizontalPodAutoscaler targets the Deployment, and when
 * something else manages it. At execution the attribution annotations are set first (a metadata-only
 * patch, which does not move `metadata.generation`), then the scale; if the scale fails, the
 * annotations are put back. Pure: reads nothing, sends nothing.
 */
export function planScale(observed: ScaleObservation, args: { replicas: number }): RemediationPlan {
  const { deployment, autoscalers } = observed;
  const namespace = deployment.metadata?.namespace ?? '';
  const name = deployment.metadata?.name ?? '';
  const ref = deploymentRef(deployment);
  const from = deployment.spec?.replicas ?? 1;
  const to = args.replicas;
  const zero: Warning[] =
    to === 0 && from !== 0
      ? [
          {
            kind: 'scale_to_zero',
            message: `Scaling to 0 stops every Pod of ${ref}: it serves nothing until it is scaled up again.`,
          },
        ]
      : [];
  const plan = {
    tool: 'scale_deployment',
    deployment,
    resolvedArguments: { namespace, name, replicas: to },
    effect: {
      tool: 'scale_deployment',
      target: targetOf(deployment),
      replicas_from: from,
      replicas_to: to,
      autoscalers: autoscalersOf(deployment, autoscalers).map(describeAutoscaler),
      ...(from === to && { no_op: true }),
    },
    warnings: [
      ...zero,
      ...autoscalerWarnings(deployment, autoscalers, to),
      ...managementWarnings(deployment),
      ...observationWarnings(deployment),
    ],
    action: `scale from ${from} to ${to} replicas`,
    makesRevision: false,
  };
  if (from === to) {
    return { ...plan, summary: `${ref} already has ${to} replica${to === 1 ? '' : 's'}`, changes: [] };
  }
  return {
    ...plan,
    summary: `Scale ${ref} from ${from} to ${to} replica${to === 1 ? '' : 's'}`,
    changes: [{ kind: 'replicas', from, to, text: `spec.replicas: ${from} → ${to}` }],
    apply: async ({ writer, reader }, stamps) => {
      const current = deployment.metadata?.annotations ?? {};
      const stamp = annotationPatch(current, stamps);
      const options = { fieldManager: FIELD_MANAGER };
      if (Object.keys(stamp).length > 0) {
        await writer.patchDeploymentStrategic(namespace, name, { metadata: { annotations: stamp } }, options);
      }
      try {
        await writer.patchDeploymentScale(namespace, name, { spec: { replicas: to } }, options);
      } catch (error) {
        // Put the annotations back only when the API server refused the scale (nothing changed).
        if (Object.keys(stamp).length === 0 || outcomeUnknown(error)) throw error;
        const restore = Object.fromEntries(Object.keys(stamp).map((key) => [key, current[key] ?? null]));
        const restored = await writer
          .patchDeploymentStrategic(namespace, name, { metadata: { annotations: restore } }, options)
          .then(
            () => true,
            () => false,
          );
        const failure = error instanceof SentinelError ? error : undefined;
        throw new SentinelError(
          failure?.code ?? 'internal',
          `${failure?.message ?? 'The scale request failed.'} ${ref} was not scaled; ${restored ? "Sentinel's annotations were put back" : "Sentinel's attribution annotations (sentinel.dev/) stay on it and could not be put back"}.`,
          { kind: 'Deployment', namespace, name, cause: error },
        );
      }
      return reader.getDeployment(namespace, name);
    },
  };
}

/**
 * Scales a Deployment — `kubectl scale deployment/<name> --replicas=N`. Input: namespace, name,
 * replicas (0 to the configured maximum, `SENTINEL_MAX_REPLICAS`, default 50), dry_run, reason.
 * Reads the Deployment and the namespace's HorizontalPodAutoscalers, plans with `planScale`, and
 * either previews or sends the merge patch to the `scale` subresource with field manager `sentinel`.
 * Output: `RemediationOutputSchema`. Errors: `invalid_input` (a bad `SENTINEL_MAX_REPLICAS`),
 * `not_found`, and the Kubernetes layer's errors.
 */
export const scaleDeployment = defineTool({
  name: 'scale_deployment',
  title: 'Scale a Deployment',
  description:
    'Sets the number of Pods of a Deployment, exactly like `kubectl scale deployment/<name> --replicas=N` (through the scale subresource). ' +
    `replicas: 0 to ${configured.max}. Scaling down removes Pods; 0 stops the service. ` +
    'Call it with dry_run: true first: the preview shows replicas from/to and warns about scaling to 0, a HorizontalPodAutoscaler that owns the count, and GitOps/Helm/owner management that may undo it. ' +
    'Afterwards verify with get_rollout_status.',
  risk: 'destructive',
  // Scaling to N again changes nothing more (and sends nothing).
  idempotent: true,
  supportsDryRun: true,
  input: ScaleDeploymentInputSchema,
  output: RemediationOutputSchema,
  handler: async (args, ctx) => {
    if (configured.problem) {
      throw new SentinelError('invalid_input', configured.problem, { field: MAX_REPLICAS_ENV });
    }
    const deployment = await ctx.kube.getDeployment(args.namespace, args.name);
    const autoscalers = await ctx.kube.listHorizontalPodAutoscalers(args.namespace);
    return runRemediation(planScale({ deployment, autoscalers }, args), args, ctx);
  },
});
