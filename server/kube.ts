/**
 * The server's cluster connection: from kubeconfig / in-cluster config through the Kubernetes layer,
 * or "not configured" with a reason that tools answer `unavailable` with and /healthz shows.
 */
import { connectKube, type KubeConnection } from '../tools/kube/index.ts';

/** The default of an embedded server given no connection: no cluster, and how to configure one. */
export function notConfigured(): KubeConnection {
  return {
    configured: false,
    reason:
      'No Kubernetes cluster is configured. Start the server with --kubeconfig <file> and/or --context <name> (or set KUBECONFIG), then call the tool again.',
  };
}

/** Which cluster `sentinel serve` should talk to. */
export interface ClusterOptions {
  /** kubeconfig file; default KUBECONFIG or ~/.kube/config, then the in-cluster service account. */
  kubeconfig?: string;
  /** kubeconfig context; default the current context. */
  context?: string;
}

/**
 * Connects to the cluster named by the options through the Kubernetes layer (`connectKube`: same
 * precedence as kubectl). Never throws: an unusable configuration is reported as not configured, with
 * the reason.
 */
export function connectCluster(options: ClusterOptions): KubeConnection {
  return connectKube({
    ...(options.kubeconfig !== undefined && { kubeconfig: options.kubeconfig }),
    ...(options.context !== undefined && { context: options.context }),
  });
}
