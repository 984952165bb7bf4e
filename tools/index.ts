/**
 * Public entry of the tools module: `defineTool`, the registry, errors, and the flat list of every
 * Sentinel tool (`allTools`). Add a tool by importing it here; the registry test pins the list.
 */
import type { Tool } from './define-tool.ts';
import { getClusterVersion } from './investigate/get-cluster-version.ts';
import { getDeployment } from './investigate/get-deployment.ts';
import { getPodLogs } from './investigate/get-pod-logs.ts';
import { getPodMetrics } from './investigate/get-pod-metrics.ts';
import { getRolloutHistory } from './investigate/get-rollout-history.ts';
import { getRolloutStatus } from './investigate/get-rollout-status.ts';
import { getService } from './investigate/get-service.ts';
import { listDeployments } from './investigate/list-deployments.ts';
import { listEvents } from './investigate/list-events.ts';
import { listNamespaces } from './investigate/list-namespaces.ts';
import { listPods } from './investigate/list-pods.ts';
import { triageNamespace } from './investigate/triage-namespace.ts';
import { remediationTools } from './remediate/index.ts';

export { defineTool, toolInput, annotationsFor, isStrictObject, RISKS } from './define-tool.ts';
export type {
  Risk,
  Tool,
  ToolSpec,
  ToolContext,
  ToolOutput,
  ToolAnnotations,
  ClusterIdentity,
} from './define-tool.ts';
export { createRegistry, type ToolRegistry } from './registry.ts';
export { SentinelError, toSentinelError, type ErrorCode } from './errors.ts';

/** Every tool Sentinel serves, in the order they are listed to clients. */
export const allTools: readonly Tool[] = [
  getClusterVersion,
  listNamespaces,
  triageNamespace,
  listDeployments,
  getDeployment,
  getRolloutHistory,
  getRolloutStatus,
  listPods,
  getPodLogs,
  getPodMetrics,
  listEvents,
  getService,
  ...remediationTools,
];

// The contract other modules use (added with the module-boundary lint rule).
export type { StrictObjectSchema } from './define-tool.ts';
export { bound, formatTable, humanDuration, moreLine, oneLine, sanitizeText } from './format/index.ts';
export { connectKube, describeSource, locateKubeconfig, type ConfigSource } from './kube/index.ts';
export {
  LabelSelectorSyntaxError,
  formatLabelSelector,
  matchesLabels,
  parseLabelSelector,
} from './kube/label-selector.ts';
export type { LabelRequirement } from './kube/label-selector.ts';
export { podSummary } from './kube/pod-status.ts';
export type { KubeConnection, KubeReader, KubeWriter, Pod } from './kube/types.ts';
export type { ReadCacheMode, ReadCacheOptions, ReadCacheStats, ReflectorPlace } from './kube/read-cache.ts';
export type { ReflectorStateChange } from './kube/reflector.ts';
export { DeploymentNameSchema, NamespaceSchema } from './params.ts';
export { REDACTED, isSecretName, redact, redactValue } from './redact.ts';
export { APPROVAL_REQUEST_ANNOTATION } from './remediate/attribution.ts';

// The contract other modules use (added with the module-boundary lint rule).
export { CONFIG_ERROR, IMAGE_PULL } from './investigate/triage/findings.ts';
export { sanitizedCopy, unsanitized } from './kube/index.ts';

// The contract other modules use (added with the module-boundary lint rule).
export { didYouMean } from './format/suggest.ts';
export { withCloseNames } from './close-names.ts';
