/**
 * Reading what a remediation plan is computed from: the Deployment and the ReplicaSets it controls
 * (listed with the Deployment's selector, then kept by controller owner reference, as kubectl's
 * `deploymentutil.GetAllReplicaSets` does).
 */
import {
  formatLabelSelector,
  replicaSetsOf,
  type AsSent,
  type Deployment,
  type KubeReader,
  type ReplicaSet,
} from '../kube/index.ts';

/** A Deployment and the ReplicaSets it controls, oldest first. */
export interface DeploymentObservation {
  deployment: Deployment;
  replicaSets: ReplicaSet[];
}

/**
 * Reads Deployment `namespace/name` and its ReplicaSets: two API calls (get deployment, list
 * replicasets with the Deployment's selector). Throws the Kubernetes layer's `SentinelError`s
 * (`not_found` naming the Deployment, `forbidden`, `unavailable`, ...).
 */
export async function observeDeployment(
  kube: KubeReader,
  namespace: string,
  name: string,
): Promise<DeploymentObservation> {
  const deployment = await kube.getDeployment(namespace, name);
  return { deployment, replicaSets: await controlledReplicaSets(kube, deployment) };
}

/** A Deployment and the ReplicaSets it controls, oldest first, each exactly as the API server sent it. */
export interface AsSentObservation {
  deployment: AsSent<Deployment>;
  replicaSets: AsSent<ReplicaSet>[];
}

/**
 * `observeDeployment` with every object as the API server sent it (no field dropped by the client's
 * models), for a plan whose write carries part of what it read — a rollback copies a ReplicaSet's
 * pod template into the Deployment. Same two API calls and errors as `observeDeployment`.
 */
export async function observeDeploymentAsSent(
  kube: KubeReader,
  namespace: string,
  name: string,
): Promise<AsSentObservation> {
  const deployment = await kube.getDeploymentAsSent(namespace, name);
  const labelSelector = formatLabelSelector(deployment.spec?.selector);
  const listed = await kube.listReplicaSetsAsSent(namespace, { labelSelector });
  return { deployment, replicaSets: replicaSetsOf(deployment, listed) };
}

/** The ReplicaSets `deployment` controls, oldest first. */
export async function controlledReplicaSets(kube: KubeReader, deployment: Deployment): Promise<ReplicaSet[]> {
  const labelSelector = formatLabelSelector(deployment.spec?.selector);
  const listed = await kube.listReplicaSets(deployment.metadata?.namespace ?? '', { labelSelector });
  return replicaSetsOf(deployment, listed);
}
