/**
 * Sentinel's Kubernetes layer: the only module that imports `@kubernetes/client-node`.
 * `connectKube()` finds the cluster and returns a `KubeReader` (no mutating methods) and a
 * `KubeWriter`; object types are re-exported in Kubernetes terms (`Deployment`, `Pod`, ...).
 *
 * This index loads without the library (~80 MB of resident memory and 1–3 s of start-up on the
 * 2-core machine, issue 17): what it exports by value — the object helpers the tools use, the
 * error class, the operations — imports the library for types only. `connectKube` loads it, with
 * the client (./connect.ts, ./client.ts, ./transport.ts, ./errors.ts), on its first call.
 */
import type { ConnectOptions } from './connect.ts';
import { locateKubeconfig } from './locate.ts';
import type { KubeConnection } from './types.ts';

export * from './types.ts';
export type { ConnectOptions } from './connect.ts';
export type { RetryPolicy } from './client.ts';
export { KubeApiError } from './api-error.ts';

/**
 * Connects to the cluster described by the options, as `connect.ts`'s `connectKube` (kubeconfig from
 * `--kubeconfig`, `KUBECONFIG`, `~/.kube/config`, else the in-cluster service account: kubectl's
 * order; nothing is sent to the cluster yet), after loading the client and `@kubernetes/client-node`
 * on the first call (later calls reuse the loaded modules). Resolves to `{ configured: true, cluster,
 * reader, writer, source }` or `{ configured: false, reason }` (the reason says what is wrong and how
 * to configure a cluster); never rejects for a bad configuration. Rejects only when the library
 * itself cannot be loaded.
 */
export async function connectKube(options: ConnectOptions = {}): Promise<KubeConnection> {
  // No configuration to read: said without loading the library.
  const located = locateKubeconfig(options);
  if ('reason' in located) return { configured: false, reason: located.reason };
  const client = await import('./connect.ts');
  return client.connectKube(options);
}
export { locateKubeconfig, describeSource, type ConfigSource, type LocateOptions } from './locate.ts';
export {
  READER_OPERATIONS,
  WRITER_OPERATIONS,
  CACHE_OPERATIONS,
  describeOperation,
  type KubeOperation,
  type KubeNonResourceOperation,
} from './operations.ts';
export { notConfiguredReader, notConfiguredWriter, NO_CLUSTER } from './not-configured.ts';
export {
  parseLabelSelector,
  matchesLabels,
  formatLabelSelector,
  LabelSelectorSyntaxError,
  type LabelRequirement,
  type LabelSelectorObject,
} from './label-selector.ts';
export {
  REVISION_ANNOTATION,
  CHANGE_CAUSE_ANNOTATION,
  POD_TEMPLATE_HASH_LABEL,
  TIMED_OUT_REASON,
  controllerOf,
  isControlledBy,
  replicaSetsOf,
  revisionOf,
  equalIgnoreHash,
  templateWithoutHash,
  newReplicaSetOf,
  rolloutHistory,
  rollbackTarget,
  conditionOf,
  rolloutVerdict,
  timeOf,
  type RolloutRevision,
  type RollbackTarget,
  type RolloutVerdict,
} from './deployment-util.ts';
export {
  podSummary,
  containerStates,
  containerProblem,
  type PodSummary,
  type ContainerState,
} from './pod-status.ts';
export { mergeEvents, type ClusterEvent } from './events.ts';
export {
  sanitizeFromCluster,
  sanitizedCopy,
  sanitizingReader,
  sanitizingWriter,
  unsanitized,
} from './sanitize.ts';
export {
  CONTROLLER_REVISION_HASH_LABEL,
  HISTORY_HASH_LABEL,
  revisionsOf,
  findRevision,
  revisionPatch,
  matchesRevision,
  revisionTemplate,
  revisionNamed,
  currentRevisionOf,
  nextControllerRevision,
  statefulSetVerdict,
  daemonSetVerdict,
  workloadVerdict,
  type RevisionedKind,
  type RevisionedWorkload,
  type WorkloadVerdict,
} from './workload-util.ts';
