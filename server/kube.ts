/**
 * The server's cluster connection when none is configured: tools answer `unavailable` with this
 * reason, and /healthz shows it.
 */
import type { KubeConnection } from '../tools/kube/types.ts';

/** A `KubeConnection` that says no cluster is configured and how to configure one. */
export function notConfigured(detail?: string): KubeConnection {
  return {
    configured: false,
    reason:
      (detail ? `${detail} ` : 'No Kubernetes cluster is configured. ') +
      'Start the server with --kubeconfig <file> and/or --context <name> (or set KUBECONFIG), then call the tool again.',
  };
}

/** Which cluster `sentinel serve` should talk to. */
export interface ClusterOptions {
  /** kubeconfig file; default KUBECONFIG or ~/.kube/config. */
  kubeconfig?: string;
  /** kubeconfig context; default the current context. */
  context?: string;
}

/**
 * Connects to the cluster named by the options. Until the Kubernetes layer (tools/kube/) provides a
 * connect function this reports the cluster as not configured, with the reason.
 */
export async function connectCluster(options: ClusterOptions): Promise<KubeConnection> {
  if (options.kubeconfig === undefined && options.context === undefined) return notConfigured();
  return notConfigured('This build has no Kubernetes client yet, so --kubeconfig/--context cannot be used.');
}
