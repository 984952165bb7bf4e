/**
 * Reading what a remediation plan is computed from: the Deployment and the ReplicaSets it controls
 * (listed with the Deployment's selector, then kept by controller owner reference, as kubectl's
 * `deploymentutil.GetAllReplicaSets` does).
 */
import {
  formatLabelSelector,
  replicaSetsOf,
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

/** The ReplicaSets `deployment` controls, oldest first. */
export async function controlledReplicaSets(kube: KubeReader, deployment: Deployment): Promise<ReplicaSet[]> {
  const labelSelector = formatLabelSelector(deployment.spec?.selector);
  const listed = await kube.listReplicaSets(deployment.metadata?.namespace ?? '', { labelSelector });
  return replicaSetsOf(deployment, listed);
}
