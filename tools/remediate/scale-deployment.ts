/**
 * `scale_deployment`: `kubectl scale deployment/<name> --replicas=N`, through the `scale`
 * subresource, bounded by a configured maximum.
 */
import { z } from 'zod';
import { defineTool, toolInput } from '../define-tool.ts';
import { SentinelError } from '../errors.ts';
import type { HorizontalPodAutoscaler } from '../kube/index.ts';
import { NamespaceSchema, objectNameSchema } from '../params.ts';
import { kindOf, workloadKindSchema } from '../workload-kind.ts';
import { planStatefulSetScale } from './scale-statefulset.ts';
import { remediationArgs } from './args.ts';
import type { DeploymentObservation } from './observe.ts';
import { RemediationOutputSchema, effectTargetOf, type RemediationPlan } from './plan.ts';
import { runRemediation } from './run.ts';
import { scaleSummary, sendScale } from './scale.ts';
import {
  autoscalersOf,
  autoscalerWarnings,
  deploymentRef,
  describeAutoscaler,
  managementWarnings,
  observationWarnings,
  scaleToZeroWarnings,
} from './warnings.ts';

/** Environment variable that sets the largest replica count `scale_deployment` accepts. */
export const MAX_REPLICAS_ENV = 'SENTINEL_MAX_REPLICAS';
/** The largest replica count accepted when `SENTINEL_MAX_REPLICAS` is not set. */
export const DEFAULT_MAX_REPLICAS = 50;
/** The largest value `SENTINEL_MAX_REPLICAS` may take. */
export const MAX_REPLICAS_LIMIT = 10_000;

/** What a `SENTINEL_MAX_REPLICAS` value must be, as errors state it. */
export const MAX_REPLICAS_RULE = `a whole number from 0 to ${MAX_REPLICAS_LIMIT} in plain decimal digits (no sign, spaces, decimal point, exponent or leading zero)`;

/**
 * The largest replica count `scale_deployment` accepts, from the value of `SENTINEL_MAX_REPLICAS`:
 * unset or empty → 50; otherwise plain decimal digits (`^(0|[1-9][0-9]*)$`) from 0 to 10000, where 0
 * allows only scaling to zero. Anything else — `1e3`, `0x10`, `+5`, `5.0`, ` 5`, `007`, `10001` — is
 * refused, never reinterpreted or replaced by the default. Throws `SentinelError('invalid_input')`
 * with field `SENTINEL_MAX_REPLICAS`, naming the value and the rule.
 */
export function parseMaxReplicas(raw: string | undefined): number {
  if (raw === undefined || raw === '') return DEFAULT_MAX_REPLICAS;
  if (/^(0|[1-9][0-9]*)$/.test(raw) && Number(raw) <= MAX_REPLICAS_LIMIT) return Number(raw);
  throw new SentinelError(
    'invalid_input',
    `${MAX_REPLICAS_ENV}=${JSON.stringify(raw)} is invalid: it must be ${MAX_REPLICAS_RULE}. scale_deployment refuses every call until the server's environment is fixed and the server restarted; nothing was sent.`,
    { field: MAX_REPLICAS_ENV },
  );
}

/** `SENTINEL_MAX_REPLICAS`, read once when the server loads its tools: the maximum, or why there is none. */
const configured = ((): { max: number; problem?: undefined } | { max?: undefined; problem: string } => {
  try {
    return { max: parseMaxReplicas(process.env[MAX_REPLICAS_ENV]) };
  } catch (error) {
    return { problem: (error as SentinelError).message };
  }
})();

/** The configuration error every scale call fails with (before any Kubernetes request), if any. */
function configurationError(): SentinelError | undefined {
  return configured.problem === undefined
    ? undefined
    : new SentinelError('invalid_input', configured.problem, { field: MAX_REPLICAS_ENV });
}

/** `replicas`: 0 to the configured maximum; with an invalid `SENTINEL_MAX_REPLICAS`, every value is refused with that error. */
function replicasSchema(): z.ZodType<number> {
  const { max, problem } = configured;
  if (problem !== undefined) {
    return z
      .number()
      .superRefine((_value, ctx) => ctx.addIssue({ code: 'custom', message: problem }))
      .describe(`Unavailable: ${problem}`);
  }
  const range = `must be a whole number of replicas from 0 to ${max}`;
  return z
    .number({ error: range })
    .int({ error: range })
    .min(0, { error: range })
    .max(max, { error: `must be at most ${max} (the configured maximum, ${MAX_REPLICAS_ENV})` })
    .describe(
      `Desired number of Pods, 0 to ${max} (the server's maximum, set by ${MAX_REPLICAS_ENV}, default ${DEFAULT_MAX_REPLICAS}). 0 stops every Pod.`,
    );
}

export const ScaleDeploymentInputSchema = toolInput({
  namespace: NamespaceSchema,
  name: objectNameSchema('Deployment or StatefulSet'),
  kind: workloadKindSchema(['Deployment', 'StatefulSet'] as const),
  replicas: replicasSchema(),
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
 * annotations are put back. The effect binds the target's uid, `replicas_from`, `replicas_to` and
 * the autoscalers targeting it — not `metadata.generation`: a count an autoscaler moved makes an
 * approved scale stale through `replicas_from`, and nothing else the scale depends on moves
 * generation without showing there. Pure: reads nothing, sends nothing.
 */
export function planScale(observed: ScaleObservation, args: { replicas: number }): RemediationPlan {
  const { deployment, autoscalers } = observed;
  const namespace = deployment.metadata?.namespace ?? '';
  const name = deployment.metadata?.name ?? '';
  const ref = deploymentRef(deployment);
  const from = deployment.spec?.replicas ?? 1;
  const to = args.replicas;
  const plan = {
    tool: 'scale_deployment',
    deployment,
    resolvedArguments: { namespace, name, replicas: to },
    effect: {
      tool: 'scale_deployment',
      target: effectTargetOf(deployment),
      replicas_from: from,
      replicas_to: to,
      autoscalers: autoscalersOf(deployment, autoscalers).map(describeAutoscaler),
      ...(from === to && { no_op: true }),
    },
    warnings: [
      ...scaleToZeroWarnings(ref, from, to),
      ...autoscalerWarnings(deployment, autoscalers, to),
      ...managementWarnings(deployment),
      ...observationWarnings(deployment),
    ],
    action: `scale from ${from} to ${to} replicas`,
    makesRevision: false,
  };
  if (from === to) return { ...plan, ...scaleSummary(ref, from, to) };
  return {
    ...plan,
    ...scaleSummary(ref, from, to),
    apply: async ({ writer, reader }, stamps) => {
      const annotations = deployment.metadata?.annotations;
      await sendScale(writer, { kind: 'Deployment', namespace, name, ref, annotations }, to, stamps);
      return reader.getDeployment(namespace, name);
    },
  };
}

/**
 * Scales a Deployment (or, with `kind: StatefulSet`, a StatefulSet: `planStatefulSetScale`) —
 * `kubectl scale deployment/<name> --replicas=N`. Input: namespace, name,
 * replicas (0 to the configured maximum, `SENTINEL_MAX_REPLICAS`, default 50), dry_run, reason.
 * Reads the Deployment and the namespace's HorizontalPodAutoscalers, plans with `planScale`, and
 * either previews or sends the merge patch to the `scale` subresource with field manager `sentinel`.
 * Output: `RemediationOutputSchema`. Errors: `invalid_input` (a bad `SENTINEL_MAX_REPLICAS`),
 * `not_found`, and the Kubernetes layer's errors.
 */
export const scaleDeployment = defineTool({
  name: 'scale_deployment',
  title: 'Scale a Deployment or StatefulSet',
  description:
    'Sets the number of Pods of a Deployment (default) or StatefulSet (`kind`), exactly like `kubectl scale deployment|statefulset/<name> --replicas=N` (through the scale subresource). ' +
    'A StatefulSet removes its highest ordinals first, in order, and keeps their PersistentVolumeClaims (warned). ' +
    (configured.problem === undefined
      ? `replicas: 0 to ${configured.max}. `
      : `Unavailable until the server's ${MAX_REPLICAS_ENV} is fixed. `) +
    'Scaling down removes Pods; 0 stops the service. ' +
    'Call it with dry_run: true first: the preview shows replicas from/to and warns about scaling to 0, a HorizontalPodAutoscaler that owns the count, and GitOps/Helm/owner management that may undo it. ' +
    'Afterwards verify with get_rollout_status.',
  risk: 'destructive',
  // Scaling to N again changes nothing more (and sends nothing).
  idempotent: true,
  supportsDryRun: true,
  input: ScaleDeploymentInputSchema,
  output: RemediationOutputSchema,
  handler: async (args, ctx) => {
    const invalid = configurationError();
    if (invalid) throw invalid;
    if (kindOf(args) === 'StatefulSet') {
      const statefulSet = await ctx.kube.getStatefulSet(args.namespace, args.name);
      const autoscalers = await ctx.kube.listHorizontalPodAutoscalers(args.namespace);
      return runRemediation(planStatefulSetScale({ statefulSet, autoscalers }, args), args, ctx);
    }
    const deployment = await ctx.kube.getDeployment(args.namespace, args.name);
    const autoscalers = await ctx.kube.listHorizontalPodAutoscalers(args.namespace);
    return runRemediation(planScale({ deployment, autoscalers }, args), args, ctx);
  },
});
