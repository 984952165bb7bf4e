/**
 * What the StatefulSet and DaemonSet remediations share (issue 15): reading the object and its
 * ControllerRevisions as the API server sent them (kubectl's `statefulSetHistory` /
 * `daemonSetHistory`: get the object, list revisions with its selector, keep those it controls),
 * naming it, and the warnings that something else manages it.
 */
import {
  formatLabelSelector,
  revisionsOf,
  type AsSent,
  type ControllerRevision,
  type DaemonSet,
  type Deployment,
  type KubeReader,
  type RevisionedKind,
  type RevisionedWorkload,
  type StatefulSet,
} from '../kube/index.ts';
import { deploymentRef, managementWarnings, type Warning } from './warnings.ts';

/** A StatefulSet or DaemonSet and the ControllerRevisions it controls, by revision ascending; all as sent. */
export interface RevisionedObservation {
  kind: RevisionedKind;
  object: AsSent<RevisionedWorkload>;
  revisions: AsSent<ControllerRevision>[];
}

/**
 * Reads `kind` `namespace/name` and its ControllerRevisions: two API calls (get the object, list
 * controllerrevisions with its selector). Throws the Kubernetes layer's errors (`not_found` naming
 * the object, `forbidden`, ...).
 */
export async function observeRevisioned(
  kube: KubeReader,
  kind: RevisionedKind,
  namespace: string,
  name: string,
): Promise<RevisionedObservation> {
  const object: AsSent<RevisionedWorkload> =
    kind === 'StatefulSet'
      ? await kube.getStatefulSet(namespace, name)
      : await kube.getDaemonSet(namespace, name);
  const labelSelector = formatLabelSelector(object.spec?.selector);
  const listed = await kube.listControllerRevisions(namespace, { labelSelector });
  return { kind, object, revisions: revisionsOf(object, listed) };
}

/** `StatefulSet shop/postgres`. */
export function workloadRef(
  kind: string,
  object: { metadata?: { namespace?: string; name?: string } },
): string {
  return `${kind} ${object.metadata?.namespace ?? ''}/${object.metadata?.name ?? ''}`;
}

/**
 * `managementWarnings` (owner references, Argo CD, Flux, Helm, other managers) for a StatefulSet or
 * DaemonSet: the same labels, annotations and field managers, naming the object by its kind.
 */
export function workloadManagementWarnings(kind: RevisionedKind, object: RevisionedWorkload): Warning[] {
  const asDeployment = object as unknown as Deployment;
  const wrong = deploymentRef(asDeployment);
  const right = workloadRef(kind, object);
  return managementWarnings(asDeployment).map((warning) => ({
    ...warning,
    message: warning.message.split(wrong).join(right),
  }));
}

/**
 * A warning when the controller has not yet observed the latest spec (`status.observedGeneration <
 * metadata.generation`): its revisions and status may be about to change.
 */
export function workloadObservationWarnings(kind: RevisionedKind, object: RevisionedWorkload): Warning[] {
  const generation = object.metadata?.generation ?? 0;
  const observed = object.status?.observedGeneration ?? 0;
  if (observed >= generation) return [];
  return [
    {
      kind: 'not_observed',
      message: `The ${kind} controller has not yet observed the latest change to ${workloadRef(kind, object)} (generation ${generation}, observed ${observed}): its revisions and status may be about to change.`,
    },
  ];
}

/**
 * A warning when the object's update strategy is `OnDelete`: a template change (rollback, restart)
 * replaces no Pod until each is deleted.
 */
export function onDeleteWarnings(kind: RevisionedKind, object: RevisionedWorkload): Warning[] {
  if ((object.spec?.updateStrategy?.type ?? 'RollingUpdate') !== 'OnDelete') return [];
  return [
    {
      kind: 'on_delete',
      message: `${workloadRef(kind, object)} uses the OnDelete update strategy: the new template reaches a Pod only when that Pod is deleted (delete_pod), and rollout status cannot wait for it.`,
    },
  ];
}

/** A StatefulSet's replica count (default 1). */
export function statefulSetReplicas(sts: StatefulSet): number {
  return sts.spec?.replicas ?? 1;
}

/** How many Pods a DaemonSet wants (`status.desiredNumberScheduled`). */
export function daemonSetPods(ds: DaemonSet): number {
  return ds.status?.desiredNumberScheduled ?? 0;
}
