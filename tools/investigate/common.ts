/**
 * Pieces the investigation tools share: the cluster identity in every result, the list bound,
 * timestamps in outputs, and short Deployment summaries (images, conditions) used by several tools.
 */
import { z } from 'zod';
import type { ClusterIdentity } from '../define-tool.ts';
import { timeOf, type Deployment, type PodTemplateSpec } from '../kube/index.ts';

/** Rows a list tool shows (text and structured) before its "N more" line. */
export const MAX_LIST_ROWS = 50;

/** The cluster a result describes (kubeconfig context and API server URL): core's one schema. */
export { ClusterSchema, type Cluster } from '../../core/index.ts';

/** `Cluster 'kind-shop' (https://127.0.0.1:6443)` — the first line of every tool's text. */
export function clusterLine(cluster: ClusterIdentity): string {
  return `Cluster '${cluster.context}' (${cluster.server})`;
}

/** A timestamp in structured output: RFC 3339, or null when unset. */
export const TimestampSchema = z.string().nullable().describe('RFC 3339 time, null when unknown');

/** Timestamps already converted by `isoTime`: the same few repeat in every list (~1 µs each to convert). */
const isoOfText = new Map<string, string | null>();
/** Entries kept before the memo starts over (a bound on its memory, ~100 KB). */
const ISO_MEMO_SIZE = 2048;

/** A Kubernetes timestamp (Date or string) as RFC 3339 (`toISOString`: milliseconds, `Z`), or null. */
export function isoTime(value: Date | string | undefined | null): string | null {
  if (typeof value !== 'string') {
    const ms = timeOf(value);
    return ms === 0 ? null : new Date(ms).toISOString();
  }
  let iso = isoOfText.get(value);
  if (iso === undefined) {
    const ms = timeOf(value);
    iso = ms === 0 ? null : new Date(ms).toISOString();
    if (isoOfText.size >= ISO_MEMO_SIZE) isoOfText.clear();
    isoOfText.set(value, iso);
  }
  return iso;
}

/** Container images of a pod template, in container order. */
export function imagesOf(template: PodTemplateSpec | undefined): string[] {
  return (template?.spec?.containers ?? []).map((c) => c.image ?? '<none>');
}

/** A Deployment condition in structured output. */
export const ConditionSchema = z.object({
  type: z.string(),
  status: z.string().describe('True, False or Unknown'),
  reason: z.string().nullable(),
  message: z.string().nullable(),
  last_update: TimestampSchema,
});
export type Condition = z.infer<typeof ConditionSchema>;

/** The Deployment's conditions for structured output. */
export function conditionsOf(deployment: Deployment): Condition[] {
  return (deployment.status?.conditions ?? []).map((c) => ({
    type: c.type,
    status: c.status,
    reason: c.reason ?? null,
    message: c.message ?? null,
    last_update: isoTime(c.lastUpdateTime ?? c.lastTransitionTime),
  }));
}

/** `Available=True Progressing=True/NewReplicaSetAvailable`: Available and Progressing with reasons. */
export function conditionSummary(deployment: Deployment): string {
  return (deployment.status?.conditions ?? [])
    .filter((c) => c.type === 'Available' || c.type === 'Progressing' || c.type === 'ReplicaFailure')
    .map((c) => `${c.type}=${c.status}${c.reason ? `/${c.reason}` : ''}`)
    .join(' ');
}
