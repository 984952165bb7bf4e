/**
 * Sentinel's Kubernetes layer: the only module that imports `@kubernetes/client-node`.
 * `connectKube()` finds the cluster and returns a `KubeReader` (no mutating methods) and a
 * `KubeWriter`; object types are re-exported in Kubernetes terms (`Deployment`, `Pod`, ...).
 */
export * from './types.ts';
export { connectKube, IN_CLUSTER_CONTEXT, type ConnectOptions } from './connect.ts';
export {
  DEFAULT_REQUEST_TIMEOUT_MS,
  DEFAULT_RETRY_POLICY,
  DEFAULT_PAGE_SIZE,
  type RetryPolicy,
} from './client.ts';
export { KubeApiError } from './errors.ts';
export {
  READER_OPERATIONS,
  WRITER_OPERATIONS,
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
