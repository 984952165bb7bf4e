/**
 * Warnings a human should read before approving a change to a Deployment: something else manages it
 * and may undo a direct change (an owner reference to another controller; the labels, annotations or
 * field managers Argo CD, Flux and Helm leave on what they manage), a HorizontalPodAutoscaler owns
 * its replica count, a scale to zero, or a controller that has not yet caught up with the spec.
 */
import { z } from 'zod';
import type { Deployment, HorizontalPodAutoscaler } from '../kube/index.ts';
import { oneLine } from '../format/index.ts';

export const WARNING_KINDS = [
  'owner_reference',
  'argo_cd',
  'flux',
  'helm',
  'managed_by',
  'hpa',
  'scale_to_zero',
  'not_observed',
  'target_unhealthy',
  'target_rolled_back_from',
  // StatefulSets, DaemonSets and Pods (issue 15)
  'pvc_retained',
  'ordered_termination',
  'on_delete',
  'bare_pod',
  'pvc_orphaned',
  'force_delete',
] as const;

export const WarningSchema = z.object({
  kind: z.enum(WARNING_KINDS),
  /** One or two sentences for the approver. */
  message: z.string(),
});
export type Warning = z.infer<typeof WarningSchema>;

/** `Deployment shop/checkout`. */
export function deploymentRef(deployment: Deployment): string {
  return `Deployment ${deployment.metadata?.namespace}/${deployment.metadata?.name}`;
}

const show = (text: string | undefined) => `'${oneLine(text ?? '', 120)}'`;

/** Field managers (`metadata.managedFields[].manager`) of GitOps controllers, by tool. */
const GITOPS_MANAGERS: Record<string, 'argo_cd' | 'flux' | 'helm'> = {
  'argocd-controller': 'argo_cd',
  'argocd-application-controller': 'argo_cd',
  'kustomize-controller': 'flux',
  'helm-controller': 'flux',
  helm: 'helm',
};

/**
 * Warnings that a direct change to `deployment` may be undone by whoever manages it: any owner
 * reference; Argo CD (annotation `argocd.argoproj.io/tracking-id`, label `argocd.argoproj.io/instance`,
 * or its default tracking label `app.kubernetes.io/instance` when Helm is not the manager); Flux
 * (labels `kustomize.toolkit.fluxcd.io/name`, `helm.toolkit.fluxcd.io/name`); Helm (label
 * `app.kubernetes.io/managed-by: Helm`, annotation `meta.helm.sh/release-name`); another
 * `app.kubernetes.io/managed-by` value; and the field managers of those controllers. At most one
 * warning per kind.
 */
export function managementWarnings(deployment: Deployment): Warning[] {
  const ref = deploymentRef(deployment);
  const labels = deployment.metadata?.labels ?? {};
  const annotations = deployment.metadata?.annotations ?? {};
  const managers = new Set((deployment.metadata?.managedFields ?? []).map((field) => field.manager ?? ''));
  const warnings: Warning[] = [];
  const add = (kind: Warning['kind'], message: string) => {
    if (!warnings.some((w) => w.kind === kind)) warnings.push({ kind, message });
  };

  for (const owner of deployment.metadata?.ownerReferences ?? []) {
    add(
      'owner_reference',
      `${ref} is owned by ${owner.kind} ${show(owner.name)}${owner.controller ? ' (its controller)' : ''}; that controller may undo or fight a direct change — change it through the ${owner.kind} instead if it manages this field.`,
    );
  }

  const helmManaged =
    labels['app.kubernetes.io/managed-by'] === 'Helm' || 'meta.helm.sh/release-name' in annotations;
  const argoApp =
    annotations['argocd.argoproj.io/tracking-id']?.split(':')[0] ??
    labels['argocd.argoproj.io/instance'] ??
    (helmManaged ? undefined : labels['app.kubernetes.io/instance']);
  if (argoApp !== undefined) {
    const evidence =
      'argocd.argoproj.io/tracking-id' in annotations
        ? 'annotation argocd.argoproj.io/tracking-id'
        : 'argocd.argoproj.io/instance' in labels
          ? 'label argocd.argoproj.io/instance'
          : "label app.kubernetes.io/instance, Argo CD's default tracking label";
    add(
      'argo_cd',
      `${ref} looks managed by Argo CD (application ${show(argoApp)}, from the ${evidence}): with automated sync or self-heal, Argo CD reverts a direct change to what Git declares; make the change in Git too, or pause auto-sync.`,
    );
  }
  const kustomization = labels['kustomize.toolkit.fluxcd.io/name'];
  const helmRelease = labels['helm.toolkit.fluxcd.io/name'];
  if (kustomization !== undefined || helmRelease !== undefined) {
    const source =
      kustomization !== undefined
        ? `Kustomization ${show(`${labels['kustomize.toolkit.fluxcd.io/namespace'] ?? '?'}/${kustomization}`)}`
        : `HelmRelease ${show(`${labels['helm.toolkit.fluxcd.io/namespace'] ?? '?'}/${helmRelease}`)}`;
    add(
      'flux',
      `${ref} is managed by Flux (${source}): Flux reapplies what Git declares on its next reconciliation, undoing a direct change; make the change in Git too, or suspend the ${kustomization !== undefined ? 'Kustomization' : 'HelmRelease'}.`,
    );
  }
  if (helmManaged) {
    const release = annotations['meta.helm.sh/release-name'] ?? labels['app.kubernetes.io/instance'];
    add(
      'helm',
      `${ref} is managed by Helm${release ? ` (release ${show(release)})` : ''}: the next helm upgrade sets it back to the chart's values.`,
    );
  }
  const managedBy = labels['app.kubernetes.io/managed-by'];
  if (managedBy !== undefined && managedBy !== 'Helm') {
    add(
      'managed_by',
      `${ref} is labelled app.kubernetes.io/managed-by=${show(managedBy)}: that tool may undo a direct change.`,
    );
  }
  for (const manager of managers) {
    const kind = GITOPS_MANAGERS[manager];
    if (!kind) continue;
    const tool = { argo_cd: 'Argo CD', flux: 'Flux', helm: 'Helm' }[kind];
    add(
      kind,
      `${ref} has fields written by ${tool} (field manager ${show(manager)}): ${tool} may undo a direct change on its next sync or upgrade.`,
    );
  }
  return warnings;
}

/** The workload kinds a HorizontalPodAutoscaler's `scaleTargetRef` names here. */
export type ScaledKind = 'Deployment' | 'StatefulSet';

/** The API groups a `scaleTargetRef` may name each kind in (Deployments also had `extensions`). */
const SCALE_TARGET_GROUPS: Record<ScaledKind, readonly string[]> = {
  Deployment: ['apps', 'extensions'],
  StatefulSet: ['apps'],
};

/** The HorizontalPodAutoscalers whose `scaleTargetRef` is this `kind` (a Deployment unless given). */
export function autoscalersOf(
  workload: { metadata?: { name?: string } },
  autoscalers: readonly HorizontalPodAutoscaler[],
  kind: ScaledKind = 'Deployment',
): HorizontalPodAutoscaler[] {
  return autoscalers.filter((hpa) => {
    const target = hpa.spec?.scaleTargetRef;
    const group = target?.apiVersion?.split('/')[0];
    return (
      target?.kind === kind &&
      target.name === workload.metadata?.name &&
      (target.apiVersion === undefined || SCALE_TARGET_GROUPS[kind].includes(group ?? ''))
    );
  });
}

/** `checkout (min 2, max 10)`: how an autoscaler appears in effects and warnings. */
export function describeAutoscaler(hpa: HorizontalPodAutoscaler): string {
  return `${hpa.metadata?.name} (min ${hpa.spec?.minReplicas ?? 1}, max ${hpa.spec?.maxReplicas})`;
}

/**
 * Warnings for setting `workload` (a Deployment unless `kind` says otherwise) to `replicas` while
 * `autoscalers` target it: the autoscaler owns the replica count; at 0 it stops autoscaling (it
 * never scales up from zero); outside [min, max] it moves the count back on its next sync.
 */
export function autoscalerWarnings(
  workload: { metadata?: { namespace?: string; name?: string } },
  autoscalers: readonly HorizontalPodAutoscaler[],
  replicas: number,
  kind: ScaledKind = 'Deployment',
): Warning[] {
  const ref = `${kind} ${workload.metadata?.namespace}/${workload.metadata?.name}`;
  return autoscalersOf(workload, autoscalers, kind).map((hpa) => {
    const min = hpa.spec?.minReplicas ?? 1;
    const max = hpa.spec?.maxReplicas ?? 0;
    const consequence =
      replicas === 0
        ? `at 0 replicas it stops autoscaling (an autoscaler never scales up from zero) until the ${kind} is scaled up again`
        : replicas < min || replicas > max
          ? `${replicas} is outside its range, so it will set the count back to between ${min} and ${max} on its next sync (about 15 s)`
          : 'it may change the count again on its next sync (about 15 s) as load changes';
    return {
      kind: 'hpa',
      message: `HorizontalPodAutoscaler ${show(describeAutoscaler(hpa))} targets ${ref} and sets its replica count itself: ${consequence}.`,
    };
  });
}

/** The warning for scaling `ref` (`Deployment shop/web`) from `from` to 0 replicas; none for another count. */
export function scaleToZeroWarnings(ref: string, from: number, to: number): Warning[] {
  if (to !== 0 || from === 0) return [];
  return [
    {
      kind: 'scale_to_zero',
      message: `Scaling to 0 stops every Pod of ${ref}: it serves nothing until it is scaled up again.`,
    },
  ];
}

/** A warning when the Deployment controller has not yet observed the latest spec (`observedGeneration < generation`). */
export function observationWarnings(deployment: Deployment): Warning[] {
  const generation = deployment.metadata?.generation ?? 0;
  const observed = deployment.status?.observedGeneration ?? 0;
  if (observed >= generation) return [];
  return [
    {
      kind: 'not_observed',
      message: `The Deployment controller has not yet observed the latest change to ${deploymentRef(deployment)} (generation ${generation}, observed ${observed}): its revisions and status may be about to change.`,
    },
  ];
}
