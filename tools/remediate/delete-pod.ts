/**
 * `delete_pod`: `kubectl delete pod <name> [--grace-period=N]` for one stuck Pod, previewed with who
 * will recreate it. Never `--force` by default: `grace_period_seconds: 0` is denied by the gate
 * unless a policy rule for it says otherwise (server/gate/policy/evaluate.ts).
 */
import { z } from 'zod';
import { defineTool, toolInput } from '../define-tool.ts';
import {
  controllerOf,
  POD_TEMPLATE_HASH_LABEL,
  type KubeReader,
  type Pod,
  type StatefulSet,
} from '../kube/index.ts';
import { NamespaceSchema, PodNameSchema } from '../params.ts';
import { remediationArgs } from './args.ts';
import { FIELD_MANAGER } from './attribution.ts';
import { effectTargetOf, RemediationOutputSchema, type ObjectPlan } from './plan.ts';
import { runRemediation } from './run.ts';
import type { Warning } from './warnings.ts';
import { workloadRef } from './workload.ts';

/** Longest grace period accepted, in seconds (one day). */
export const MAX_GRACE_PERIOD_SECONDS = 86_400;

export const DeletePodInputSchema = toolInput({
  namespace: NamespaceSchema,
  name: PodNameSchema,
  grace_period_seconds: z
    .number({ error: `must be a whole number of seconds from 0 to ${MAX_GRACE_PERIOD_SECONDS}` })
    .int({ error: `must be a whole number of seconds from 0 to ${MAX_GRACE_PERIOD_SECONDS}` })
    .min(0, { error: `must be a whole number of seconds from 0 to ${MAX_GRACE_PERIOD_SECONDS}` })
    .max(MAX_GRACE_PERIOD_SECONDS, {
      error: `must be a whole number of seconds from 0 to ${MAX_GRACE_PERIOD_SECONDS}`,
    })
    .optional()
    .describe(
      `Seconds between SIGTERM and SIGKILL, 0-${MAX_GRACE_PERIOD_SECONDS} (kubectl --grace-period). Default (absent): the Pod's own terminationGracePeriodSeconds. ` +
        '0 is a force deletion (kubectl --force --grace-period=0: the Pod object goes at once, its containers may still run): the server denies it unless a policy rule for it allows or asks.',
    ),
  ...remediationArgs,
});
export type DeletePodInput = z.infer<typeof DeletePodInputSchema>;

/** What `delete_pod` reads: the Pod, and the StatefulSet that controls it, if one does. */
export interface PodObservation {
  pod: Pod;
  statefulSet?: StatefulSet;
}

/** Reads Pod `namespace/name` and, when a StatefulSet controls it, that StatefulSet. */
export async function observePod(kube: KubeReader, namespace: string, name: string): Promise<PodObservation> {
  const pod = await kube.getPod(namespace, name);
  const owner = controllerOf(pod.metadata);
  if (owner?.kind !== 'StatefulSet') return { pod };
  return { pod, statefulSet: await kube.getStatefulSet(namespace, owner.name) };
}

/** The ordinal of a StatefulSet Pod (`web-3` → 3), or undefined when the name has none. */
export function podOrdinal(statefulSet: string, pod: string): number | undefined {
  const match = pod.startsWith(`${statefulSet}-`)
    ? /^(0|[1-9][0-9]*)$/.exec(pod.slice(statefulSet.length + 1))
    : null;
  return match ? Number(match[1]) : undefined;
}

/** The PersistentVolumeClaims a StatefulSet Pod uses: `<claim template>-<pod name>` (the controller's `getPersistentVolumeClaimName`). */
export function podClaims(sts: StatefulSet, pod: string): string[] {
  return (sts.spec?.volumeClaimTemplates ?? []).map((claim) => `${claim.metadata?.name ?? ''}-${pod}`);
}

/**
 * Who recreates `pod` once deleted, in a sentence, and the warnings: a ReplicaSet (of a Deployment,
 * named from the `pod-template-hash` suffix) or a DaemonSet recreates it under a new name (a DaemonSet
 * on the same node); a StatefulSet under the same name with the same claims, unless its ordinal is
 * outside `[start, start + replicas)` — then nothing recreates it and its claims stay, orphaned;
 * another controller (Job, ...) may; a bare Pod is recreated by nothing.
 */
export function recreation(observed: PodObservation): {
  who: string;
  recreated: boolean;
  warnings: Warning[];
} {
  const { pod, statefulSet } = observed;
  const namespace = pod.metadata?.namespace ?? '';
  const name = pod.metadata?.name ?? '';
  const owner = controllerOf(pod.metadata);
  if (!owner) {
    return {
      who: 'nothing recreates it: it is a bare Pod, owned by no controller',
      recreated: false,
      warnings: [
        {
          kind: 'bare_pod',
          message: `Pod ${namespace}/${name} has no controller: once deleted it is gone for good, and whatever it ran stops until someone creates it again.`,
        },
      ],
    };
  }
  if (owner.kind === 'ReplicaSet') {
    const hash = pod.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL];
    const deployment =
      hash && owner.name.endsWith(`-${hash}`) ? owner.name.slice(0, -hash.length - 1) : undefined;
    return {
      who: `ReplicaSet ${namespace}/${owner.name}${deployment ? ` (of Deployment ${namespace}/${deployment})` : ''} recreates it as a new Pod with a new name`,
      recreated: true,
      warnings: [],
    };
  }
  if (owner.kind === 'DaemonSet') {
    return {
      who: `DaemonSet ${namespace}/${owner.name} recreates it on the same node${pod.spec?.nodeName ? ` (${pod.spec.nodeName})` : ''}`,
      recreated: true,
      warnings: [],
    };
  }
  if (owner.kind === 'StatefulSet' && statefulSet) {
    const ordinal = podOrdinal(owner.name, name);
    const start = (statefulSet.spec?.ordinals as { start?: number } | undefined)?.start ?? 0;
    const replicas = statefulSet.spec?.replicas ?? 1;
    const claims = podClaims(statefulSet, name);
    const claimText = claims.length ? ` and claims ${claims.join(', ')}` : '';
    if (ordinal !== undefined && ordinal >= start && ordinal < start + replicas) {
      return {
        who: `${workloadRef('StatefulSet', statefulSet)} recreates it under the same name${claimText}`,
        recreated: true,
        warnings: [],
      };
    }
    return {
      who: `nothing recreates it: ${workloadRef('StatefulSet', statefulSet)} has ${replicas} replica${replicas === 1 ? '' : 's'} (ordinals ${start}-${start + replicas - 1}) and ${name} is outside them`,
      recreated: false,
      warnings: claims.length
        ? [
            {
              kind: 'pvc_orphaned',
              message: `Pod ${namespace}/${name} is outside the replicas of ${workloadRef('StatefulSet', statefulSet)}, so no Pod will use its PersistentVolumeClaims ${claims.join(', ')} after it is deleted: they (and their data) stay, orphaned, until deleted by hand or the StatefulSet is scaled up again.`,
            },
          ]
        : [],
    };
  }
  return {
    who: `its controller ${owner.kind} ${namespace}/${owner.name} may recreate it`,
    recreated: true,
    warnings: [],
  };
}

/**
 * Plans deleting one Pod — `kubectl delete pod <name> [--grace-period=N]`: the DELETE carries the
 * Pod's UID as a precondition (a Pod recreated under the same name meanwhile is not deleted) and the
 * grace period when given. A Pod already terminating is a no-op. A force deletion (grace 0) is
 * warned about (the gate denies it without a policy rule). The effect binds the Pod's uid (the
 * DELETE's precondition), its controller, whether it is recreated and the grace period — not
 * `metadata.generation` (a Pod's moves on in-place updates such as a resize, which do not change
 * what deleting it does). Pure.
 */
export function planDeletePod(
  observed: PodObservation,
  args: { grace_period_seconds?: number | undefined },
): ObjectPlan {
  const { pod } = observed;
  const namespace = pod.metadata?.namespace ?? '';
  const name = pod.metadata?.name ?? '';
  const uid = pod.metadata?.uid ?? '';
  const owner = controllerOf(pod.metadata);
  const { who, recreated, warnings } = recreation(observed);
  const grace = args.grace_period_seconds;
  const graceText =
    grace === undefined
      ? `after its grace period (${pod.spec?.terminationGracePeriodSeconds ?? 30} s)`
      : grace === 0
        ? 'at once (force: grace period 0)'
        : `after a grace period of ${grace} s`;
  const force: Warning[] =
    grace === 0
      ? [
          {
            kind: 'force_delete',
            message: `A force deletion removes Pod ${namespace}/${name} from the API at once without waiting for the kubelet: its containers may keep running on the node${owner?.kind === 'StatefulSet' ? ', and a StatefulSet may start a second Pod with the same identity and volumes (split brain)' : ''}.`,
          },
        ]
      : [];
  const effect = {
    tool: 'delete_pod',
    target: effectTargetOf(pod, 'Pod'),
    controller: owner ? { kind: owner.kind, name: owner.name } : null,
    recreated,
    grace_period_seconds: grace ?? null,
  };
  const common = {
    tool: 'delete_pod',
    kind: 'Pod' as const,
    object: pod,
    resolvedArguments: { namespace, name, ...(grace !== undefined && { grace_period_seconds: grace }) },
    warnings: [...warnings, ...force],
    action: 'delete pod',
    makesRevision: false,
  };
  if (pod.metadata?.deletionTimestamp) {
    return {
      ...common,
      summary: `Pod ${namespace}/${name} is already being deleted (since ${new Date(pod.metadata.deletionTimestamp).toISOString()}); nothing to do`,
      effect: { ...effect, no_op: true },
      changes: [],
    };
  }
  return {
    ...common,
    summary: `Delete Pod ${namespace}/${name} ${graceText}; ${who}`,
    effect,
    changes: [
      {
        kind: 'pod_deleted',
        key: name,
        from: pod.status?.phase ?? null,
        to: null,
        text: `Pod ${name} (${pod.status?.phase ?? 'unknown phase'}${pod.spec?.nodeName ? ` on ${pod.spec.nodeName}` : ''}) deleted ${graceText}; ${who}`,
      },
    ],
    apply: ({ writer }) =>
      writer.deletePod(namespace, name, {
        fieldManager: FIELD_MANAGER,
        uid,
        ...(grace !== undefined && { gracePeriodSeconds: grace }),
      }),
  };
}

/**
 * Deletes one Pod — `kubectl delete pod <name> -n <namespace> [--grace-period=N]`. Input:
 * namespace, name, grace_period_seconds (absent: the Pod's own), dry_run, reason. Output:
 * `RemediationOutputSchema` (target kind Pod). Errors: `not_found` (the Pod), `conflict` (the UID
 * precondition failed: another Pod has the name now), and the Kubernetes layer's errors. A Pod
 * cannot carry an annotation after deletion: the attribution is the audit record and the approval.
 */
export const deletePod = defineTool({
  name: 'delete_pod',
  title: 'Delete one Pod',
  description:
    'Deletes one Pod, like `kubectl delete pod <name> -n <namespace> [--grace-period=N]`, so its controller replaces it (a stuck or wedged Pod). ' +
    'The preview says which controller recreates it — a ReplicaSet/Deployment or DaemonSet under a new name, a StatefulSet under the same name and claims — ' +
    'or that nothing will (a bare Pod, or a StatefulSet Pod outside its replicas, whose PersistentVolumeClaims then stay orphaned: warned). ' +
    'grace_period_seconds: 0 is a force deletion, denied unless a policy rule allows it. Call with dry_run: true first. Afterwards check list_pods.',
  risk: 'destructive',
  idempotent: false,
  supportsDryRun: true,
  input: DeletePodInputSchema,
  output: RemediationOutputSchema,
  handler: async (args, ctx) => {
    const observed = await observePod(ctx.kube, args.namespace, args.name);
    return runRemediation(planDeletePod(observed, args), args, ctx);
  },
});
