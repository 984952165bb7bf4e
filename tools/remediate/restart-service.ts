/**
 * `restart_service`: `kubectl rollout restart deployment/<name>`, for a Deployment named directly or
 * through the Service in front of it.
 */
import type { z } from 'zod';
import { defineTool, toolInput } from '../define-tool.ts';
import { SentinelError } from '../errors.ts';
import {
  formatLabelSelector,
  matchesLabels,
  newReplicaSetOf,
  revisionOf,
  revisionsOf,
  type Deployment,
  type KubeReader,
} from '../kube/index.ts';
import { NamespaceSchema, objectNameSchema } from '../params.ts';
import { workloadKindSchema } from '../workload-kind.ts';
import { planWorkloadRestart, resolveWorkloadTarget } from './restart-workload.ts';
import { remediationArgs } from './args.ts';
import { attributedPatch, FIELD_MANAGER } from './attribution.ts';
import { containerImages, imageList, type Change } from './changes.ts';
import { controlledReplicaSets, type DeploymentObservation } from './observe.ts';
import {
  nextRevision,
  pausedRefusal,
  podTemplateDigest,
  RemediationOutputSchema,
  effectTargetOf,
  type RemediationPlan,
} from './plan.ts';
import { runRemediation } from './run.ts';
import { deploymentRef, managementWarnings, observationWarnings } from './warnings.ts';

/** The pod template annotation `kubectl rollout restart` sets (objectrestarter.go). */
export const RESTARTED_AT_ANNOTATION = 'kubectl.kubernetes.io/restartedAt';

export const RestartServiceInputSchema = toolInput({
  namespace: NamespaceSchema,
  name: objectNameSchema('Deployment').describe(
    "Name of the workload to restart, e.g. 'checkout' — or of a Service whose selector matches the Pods of exactly one Deployment, StatefulSet or DaemonSet. " +
      "DNS-1123 subdomain: lowercase letters, digits, '-' and '.', at most 253 characters.",
  ),
  kind: workloadKindSchema().describe(
    'Kind of the workload named (Deployment, StatefulSet or DaemonSet). Absent: a Deployment of that name, else a Service and the one workload of any of the three kinds behind it.',
  ),
  ...remediationArgs,
});
export type RestartServiceInput = z.infer<typeof RestartServiceInputSchema>;

/** A restart target: the Deployment, and the Service it was found through, if any. */
export interface RestartObservation extends DeploymentObservation {
  /** The Service `name` referred to, when it was not a Deployment. */
  service?: string;
}

/**
 * Finds what `name` refers to in `namespace`: the Deployment of that name; else the Service of that
 * name and the one Deployment whose pod template labels match the Service's selector (the Pods it
 * sends traffic to). Errors (nothing is sent): `not_found` when neither exists or the Service selects
 * no Deployment; `invalid_input` (field `name`) when the Service has no selector or selects several
 * Deployments — the message lists them.
 */
export async function resolveRestartTarget(
  kube: KubeReader,
  namespace: string,
  name: string,
): Promise<{ deployment: Deployment; service?: string }> {
  try {
    return { deployment: await kube.getDeployment(namespace, name) };
  } catch (error) {
    if (!(error instanceof SentinelError && error.code === 'not_found')) throw error;
  }
  const service = await kube.getService(namespace, name).catch((error: unknown) => {
    if (error instanceof SentinelError && error.code === 'not_found') {
      throw new SentinelError(
        'not_found',
        `Neither a Deployment nor a Service named '${name}' exists in namespace '${namespace}'; list_deployments shows the Deployments that exist.`,
        { kind: 'Deployment', namespace, name, field: 'name', cause: error },
      );
    }
    throw error;
  });
  const selector = service.spec?.selector ?? {};
  const ref = `Service ${namespace}/${name}`;
  if (Object.keys(selector).length === 0) {
    throw new SentinelError(
      'invalid_input',
      `${ref} has no selector, so it selects no Pods and no Deployment to restart; call restart_service with the Deployment's name.`,
      { kind: 'Service', namespace, name, field: 'name' },
    );
  }
  const selectorText = formatLabelSelector({ matchLabels: selector });
  const requirements = Object.entries(selector).map(([key, value]) => ({
    key,
    operator: '=' as const,
    values: [value],
  }));
  const selected = (await kube.listDeployments(namespace)).filter((deployment) =>
    matchesLabels(deployment.spec?.template?.metadata?.labels, requirements),
  );
  if (selected.length === 0) {
    throw new SentinelError(
      'not_found',
      `${ref} (selector ${selectorText}) selects the Pods of no Deployment; list_deployments shows the Deployments that exist.`,
      { kind: 'Service', namespace, name, field: 'name' },
    );
  }
  if (selected.length > 1) {
    const names = selected.map((d) => d.metadata?.name ?? '').sort();
    throw new SentinelError(
      'invalid_input',
      `${ref} (selector ${selectorText}) selects the Pods of ${names.length} Deployments: ${names.join(', ')}. Restart one of them by its Deployment name; nothing was sent.`,
      { kind: 'Service', namespace, name, field: 'name', details: { deployments: names } },
    );
  }
  return { deployment: selected[0]!, service: name };
}

/** RFC 3339 in UTC with whole seconds, as kubectl writes `restartedAt` (`time.Now().Format(time.RFC3339)`). */
export function rfc3339(date: Date): string {
  return date.toISOString().replace(/\.\d{3}Z$/, 'Z');
}

/**
 * Plans a restart, mirroring `kubectl rollout restart` (polymorphichelpers/objectrestarter.go): a
 * paused Deployment is refused (`refused`); otherwise the pod template annotation
 * `kubectl.kubernetes.io/restartedAt` is set to the time of execution (RFC 3339, UTC) by a strategic
 * merge patch, which keeps the template's other annotations. The changed template makes the
 * controller roll out a new revision that replaces every Pod. At execution, a `restartedAt` equal to
 * the new value (a restart within the same second) is refused with `conflict`, as kubectl refuses
 * an empty patch. `now` is the execution clock. The effect binds what the restart depends on and the
 * approver saw: the target's uid, paused, revision, template digest, images, the previous
 * `restartedAt` and the new revision — not `metadata.generation`, which an autoscaler moves (a restart does
 * not touch `spec.replicas`). Pure: reads nothing, sends nothing.
 */
export function planRestart(
  observed: RestartObservation,
  now: () => Date = () => new Date(),
): RemediationPlan {
  const { deployment } = observed;
  if (deployment.spec?.paused) {
    throw pausedRefusal(
      deployment,
      'restarted',
      "kubectl rollout restart says: can't restart paused deployment",
    );
  }
  const namespace = deployment.metadata?.namespace ?? '';
  const name = deployment.metadata?.name ?? '';
  const ref = deploymentRef(deployment);
  const template = deployment.spec?.template;
  const revision = revisionOf(newReplicaSetOf(deployment, observed.replicaSets) ?? deployment) ?? 0;
  const previous = template?.metadata?.annotations?.[RESTARTED_AT_ANNOTATION] ?? null;
  const newRevision = nextRevision(undefined, observed.replicaSets);
  const replicas = deployment.spec?.replicas ?? 1;
  const via = observed.service ? `, the Deployment behind Service ${namespace}/${observed.service}` : '';
  const restartChange: Change = {
    kind: 'template_annotation',
    key: RESTARTED_AT_ANNOTATION,
    from: previous,
    to: 'the time of execution (RFC 3339, UTC)',
    text: `pod template annotation ${RESTARTED_AT_ANNOTATION}: ${previous ?? '(none)'} → the time of execution; the controller replaces every Pod by a rolling update`,
  };
  return {
    tool: 'restart_service',
    deployment,
    summary: `Restart ${ref}${via} (revision ${revision}, ${imageList(template)}): a rolling update replaces its ${replicas} Pod${replicas === 1 ? '' : 's'}`,
    resolvedArguments: { namespace, name },
    effect: {
      tool: 'restart_service',
      target: effectTargetOf(deployment),
      paused: false,
      revision,
      template: podTemplateDigest(template),
      images: containerImages(template),
      restarted_at: previous,
      new_revision: newRevision,
    },
    changes: [restartChange],
    warnings: [...managementWarnings(deployment), ...observationWarnings(deployment)],
    newRevision,
    action: 'rollout restart',
    makesRevision: true,
    apply: async ({ writer }, stamps) => {
      const restartedAt = rfc3339(now());
      if (restartedAt === previous) {
        throw new SentinelError(
          'conflict',
          `${ref} was already restarted within the past second (restartedAt ${restartedAt}); nothing was sent. Wait a second before restarting it again.`,
          { kind: 'Deployment', namespace, name },
        );
      }
      return writer.patchDeploymentStrategic(
        namespace,
        name,
        attributedPatch(
          { template: { metadata: { annotations: { [RESTARTED_AT_ANNOTATION]: restartedAt } } } },
          deployment.metadata?.annotations,
          stamps,
        ),
        { fieldManager: FIELD_MANAGER },
      );
    },
  };
}

/**
 * Restarts a Deployment's Pods by a rolling update — `kubectl rollout restart deployment/<name>`; with
 * `kind` (or through a Service selecting one), a StatefulSet's or DaemonSet's (`planWorkloadRestart`).
 * Input: namespace, name (a Deployment, or a Service selecting exactly one Deployment), dry_run,
 * reason. Reads the Deployment (resolving a Service), its ReplicaSets, plans with `planRestart`, and
 * either previews or sends the strategic merge patch with field manager `sentinel` and the
 * attribution annotations. Output: `RemediationOutputSchema` (resolved_arguments name the
 * Deployment). Errors: `not_found`, `invalid_input` (Service without selector or selecting several
 * Deployments, listed), `refused` (paused), `conflict` (restarted within the same second), and the
 * Kubernetes layer's errors.
 */
export const restartService = defineTool({
  name: 'restart_service',
  title: 'Restart a Deployment, StatefulSet or DaemonSet',
  description:
    'Restarts every Pod of a Deployment, StatefulSet or DaemonSet (`kind`; absent: a Deployment, or whatever one workload a Service of that name selects) with a rolling update, exactly like `kubectl rollout restart deployment|statefulset|daemonset/<name>`: sets' +
    " the pod template annotation kubectl.kubernetes.io/restartedAt to now (RFC 3339), keeping the template's other annotations, so the controller rolls out a new revision. " +
    'name may be a workload or a Service; for a Service, the one workload whose Pods its selector matches is restarted (several is an error that lists them). ' +
    'Refuses a paused Deployment. Call it with dry_run: true first to see the resolved Deployment, the revision it becomes, and warnings (GitOps, Helm, owners). ' +
    'Afterwards verify with get_rollout_status.',
  risk: 'destructive',
  idempotent: false,
  supportsDryRun: true,
  input: RestartServiceInputSchema,
  output: RemediationOutputSchema,
  handler: async (args, ctx) => {
    const resolved = await resolveWorkloadTarget(ctx.kube, args.namespace, args.name, args.kind);
    if (resolved.kind !== 'Deployment') {
      const { kind, object, service } = resolved;
      const listed = await ctx.kube.listControllerRevisions(args.namespace, {
        labelSelector: formatLabelSelector(object.spec?.selector),
      });
      const observed = { kind, object, revisions: revisionsOf(object, listed), service };
      return runRemediation(planWorkloadRestart(observed), args, ctx);
    }
    const replicaSets = await controlledReplicaSets(ctx.kube, resolved.deployment);
    const { deployment, service } = resolved;
    return runRemediation(
      planRestart({ deployment, replicaSets, ...(service !== undefined && { service }) }),
      args,
      ctx,
    );
  },
});
