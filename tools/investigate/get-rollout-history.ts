/**
 * `get_rollout_history`: a Deployment's revisions, numbered exactly as `kubectl rollout history`
 * numbers them (ReplicaSets it controls by owner reference, revision annotation compared as numbers).
 */
import { z } from 'zod';
import { defineTool, toolInput } from '../define-tool.ts';
import { age, bound, formatTable, untrustedBlock } from '../format/index.ts';
import {
  POD_TEMPLATE_HASH_LABEL,
  formatLabelSelector,
  mergeEvents,
  replicaSetsOf,
  revisionOf,
  rolloutHistory,
} from '../kube/index.ts';
import { DeploymentNameSchema, NamespaceSchema } from '../params.ts';
import { redact } from '../redact.ts';
import { ChangeSchema, diffPodTemplates } from '../remediate/changes.ts';
import { RevisionHealthSchema, revisionHealth } from './revision-health.ts';
import { ClusterSchema, MAX_LIST_ROWS, TimestampSchema, clusterLine, imagesOf, isoTime } from './common.ts';

export const RevisionSchema = z.object({
  revision: z.number().int(),
  current: z.boolean().describe("Whether this is the Deployment's current (new) ReplicaSet"),
  replica_set: z.string(),
  pod_template_hash: z.string().nullable(),
  images: z.array(z.string()),
  change_cause: z.string().nullable().describe('kubernetes.io/change-cause; untrusted text, redacted'),
  created: TimestampSchema,
  replicas: z.number().int().describe('status.replicas of the ReplicaSet'),
  ready: z.number().int().describe('status.readyReplicas of the ReplicaSet'),
  health: RevisionHealthSchema.describe(
    'Whether this revision was ever healthy, from its ReplicaSet status, its Pods and the Warning events of its Pods (deleted ones too, by name prefix)',
  ),
  changes: z
    .array(ChangeSchema)
    .describe(
      'What this revision changed in the pod template from the revision below it (image, env, resources, pod spec fields such as imagePullSecrets, nodeSelector, affinity, tolerations); empty for the oldest shown',
    ),
});

export const GetRolloutHistoryOutputSchema = z.object({
  cluster: ClusterSchema,
  namespace: z.string(),
  name: z.string(),
  deployment_revision: z.number().int().nullable().describe("The Deployment's own revision annotation"),
  total: z.number().int(),
  omitted: z.number().int().describe('Oldest revisions not included (list bound)'),
  revisions: z.array(RevisionSchema).describe('Newest first'),
});
export type GetRolloutHistoryOutput = z.infer<typeof GetRolloutHistoryOutputSchema>;

/**
 * Mirrors `kubectl rollout history deployment/<name>`: reads the Deployment, lists ReplicaSets by its
 * selector (plus its Pods and the namespace's core events, for each revision's health), keeps those it controls (owner reference uid) and numbers them with
 * `rolloutHistory` (tools/kube/deployment-util.ts). Output: `GetRolloutHistoryOutput`, newest first;
 * change-causes redacted and shown as untrusted text. Errors: `not_found` for the Deployment, and the
 * Kubernetes layer's others.
 */
export const getRolloutHistory = defineTool({
  name: 'get_rollout_history',
  title: 'Show the rollout history of a Deployment',
  description:
    "Lists a Deployment's revisions like `kubectl rollout history deployment/<name>`, from the ReplicaSets it controls (owner references, not name prefixes), numbered by their deployment.kubernetes.io/revision annotation compared as numbers. Per revision: images, change-cause, creation time, replicas/ready of its ReplicaSet, which one is current, and what it changed from the revision below (resources, pull secrets, node selectors, ...). Newest first. Use it to find the previous healthy revision before proposing a rollback.",
  risk: 'read',
  input: toolInput({ namespace: NamespaceSchema, name: DeploymentNameSchema }),
  output: GetRolloutHistoryOutputSchema,
  async handler({ namespace, name }, ctx) {
    const deployment = await ctx.kube.getDeployment(namespace, name);
    // kubectl lists by the Deployment's selector, then keeps what the Deployment controls.
    const candidates = await ctx.kube.listReplicaSets(namespace, {
      labelSelector: formatLabelSelector(deployment.spec?.selector) || undefined,
    });
    const selector = formatLabelSelector(deployment.spec?.selector) || undefined;
    const [pods, events] = await Promise.all([
      ctx.kube.listPods(namespace, { labelSelector: selector }),
      ctx.kube.listEvents(namespace),
    ]);
    const history = rolloutHistory(deployment, replicaSetsOf(deployment, candidates)).reverse();
    const health = revisionHealth(history, pods, mergeEvents(events, []));
    const revisions = history.map((h, index) => ({
      revision: h.revision,
      current: h.current,
      replica_set: h.replicaSet.metadata?.name ?? '',
      pod_template_hash: h.replicaSet.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL] ?? null,
      images: imagesOf(h.replicaSet.spec?.template),
      change_cause: h.changeCause === undefined ? null : redact(h.changeCause).value,
      created: isoTime(h.replicaSet.metadata?.creationTimestamp),
      replicas: h.replicaSet.status?.replicas ?? 0,
      ready: h.replicaSet.status?.readyReplicas ?? 0,
      health: health.get(h.revision)!,
      // Newest first: the revision below is the next entry.
      changes: history[index + 1]
        ? diffPodTemplates(history[index + 1]!.replicaSet.spec?.template, h.replicaSet.spec?.template)
        : [],
    }));
    const { shown, omitted } = bound(revisions, MAX_LIST_ROWS);
    const lines = [
      `${clusterLine(ctx.cluster)} — rollout history of Deployment ${namespace}/${name} (${revisions.length} revision(s), newest first)`,
      formatTable(
        ['revision', 'current', 'replicaset', 'images', 'ready', 'health', 'age'],
        revisions.map((r) => [
          String(r.revision),
          r.current ? '*' : '',
          r.replica_set,
          r.images.join(','),
          `${r.ready}/${r.replicas}`,
          r.health.state,
          age(r.created ?? undefined),
        ]),
        { noun: 'revisions', maxRows: MAX_LIST_ROWS, maxCell: 120 },
      ),
    ];
    const causes = shown.filter((r) => r.change_cause);
    if (causes.length > 0) {
      lines.push(
        untrustedBlock(causes.map((r) => `revision ${r.revision}: ${r.change_cause}`).join('\n'), {
          label: `change-cause annotations of Deployment ${namespace}/${name}`,
          maxBytes: 8192,
        }),
      );
    }
    if (!revisions.some((r) => r.current)) {
      lines.push('No ReplicaSet matches the current pod template yet: the controller has not created it.');
    }
    return {
      text: lines.join('\n'),
      structured: {
        cluster: ctx.cluster,
        namespace,
        name,
        deployment_revision: revisionOf(deployment) ?? null,
        total: revisions.length,
        omitted,
        revisions: shown,
      },
    };
  },
});
