/**
 * `get_rollout_history`: a Deployment's revisions, numbered exactly as `kubectl rollout history`
 * numbers them (ReplicaSets it controls by owner reference, revision annotation compared as numbers).
 */
import { z } from 'zod';
import { defineTool, toolInput } from '../define-tool.ts';
import { age, bound, formatTable, untrustedBlock } from '../format/index.ts';
import {
  CHANGE_CAUSE_ANNOTATION,
  CONTROLLER_REVISION_HASH_LABEL,
  POD_TEMPLATE_HASH_LABEL,
  currentRevisionOf,
  formatLabelSelector,
  mergeEvents,
  revisionTemplate,
  revisionsOf,
  type RevisionedKind,
  type RevisionedWorkload,
  type StatefulSet,
  replicaSetsOf,
  revisionOf,
  rolloutHistory,
} from '../kube/index.ts';
import { NamespaceSchema, objectNameSchema } from '../params.ts';
import { SentinelError } from '../errors.ts';
import type { ToolContext } from '../define-tool.ts';
import { kindOf, workloadKindSchema } from '../workload-kind.ts';
import {
  RevisionDetailSchema,
  revisionDetail,
  revisionDetailLines,
  type RevisionDetail,
} from './revision-detail.ts';
import { redact } from '../redact.ts';
import { ChangeSchema, diffPodTemplates } from '../remediate/changes.ts';
import { RevisionHealthSchema, revisionHealth } from './revision-health.ts';
import { ClusterSchema, MAX_LIST_ROWS, TimestampSchema, clusterLine, imagesOf, isoTime } from './common.ts';

export const RevisionSchema = z.object({
  revision: z.number().int(),
  current: z.boolean().describe("Whether this is the Deployment's current (new) ReplicaSet"),
  replica_set: z.string().describe('The ReplicaSet; for a StatefulSet or DaemonSet, the ControllerRevision'),
  pod_template_hash: z
    .string()
    .nullable()
    .describe('pod-template-hash; for a StatefulSet or DaemonSet, controller-revision-hash'),
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
  kind: z.enum(['Deployment', 'StatefulSet', 'DaemonSet']).optional(),
  /** With `revision`: that revision's pod template and how it differs from the current one. */
  revision_detail: RevisionDetailSchema.optional(),
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
  title: 'Show the rollout history of a Deployment, StatefulSet or DaemonSet',
  description:
    'With kind StatefulSet or DaemonSet: its ControllerRevisions by revision number with their change-causes, like `kubectl rollout history statefulset|daemonset/<name>`. ' +
    'With revision: that revision in detail (kubectl --revision=N): its pod template and what a rollback to it would change. ' +
    'For a Deployment (default) it lists the revisions like `kubectl rollout history deployment/<name>`, from the ReplicaSets it controls (owner references, not name prefixes), numbered by their deployment.kubernetes.io/revision annotation compared as numbers. Per revision: images, change-cause, creation time, replicas/ready of its ReplicaSet, which one is current, and what it changed from the revision below (resources, pull secrets, node selectors, ...). Newest first. Use it to find the previous healthy revision before proposing a rollback.',
  risk: 'read',
  input: toolInput({
    namespace: NamespaceSchema,
    name: objectNameSchema('Deployment, StatefulSet or DaemonSet'),
    kind: workloadKindSchema(),
    revision: z
      .number({ error: 'must be a whole number, 1 or more' })
      .int({ error: 'must be a whole number, 1 or more' })
      .min(1, { error: 'must be a whole number, 1 or more' })
      .optional()
      .describe(
        'Show this revision in detail, like kubectl rollout history --revision=N: its pod template and what a rollback to it would change. Default: the list only.',
      ),
  }),
  output: GetRolloutHistoryOutputSchema,
  async handler({ namespace, name, kind, revision }, ctx) {
    if (kindOf({ kind }) !== 'Deployment') {
      return workloadHistory(ctx, kindOf({ kind }) as RevisionedKind, namespace, name, revision);
    }
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
    let detail: RevisionDetail | undefined;
    if (revision !== undefined) {
      const entry = history.find((h) => h.revision === revision);
      if (!entry)
        throw revisionNotFound(
          'Deployment',
          namespace,
          name,
          revision,
          history.map((h) => h.revision),
        );
      detail = revisionDetail(
        revision,
        entry.replicaSet.spec?.template,
        deployment.spec?.template,
        entry.current,
      );
      lines.push(...revisionDetailLines(`Deployment ${namespace}/${name}`, detail));
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
        ...(detail && { revision_detail: detail }),
      },
    };
  },
});

/** `not_found` for a `revision` that does not exist, listing the ones that do. */
function revisionNotFound(
  kind: string,
  namespace: string,
  name: string,
  revision: number,
  existing: number[],
) {
  return new SentinelError(
    'not_found',
    `Revision ${revision} of ${kind} ${namespace}/${name} not found; its revisions are ${existing.length ? [...existing].sort((a, b) => a - b).join(', ') : 'none'}.`,
    { kind, namespace, name, field: 'revision', details: { revisions: existing } },
  );
}

/**
 * `kubectl rollout history statefulset|daemonset/<name> [--revision=N]`: the ControllerRevisions the
 * object controls (listed by its selector, kept by controller reference), by `revision`, newest first,
 * with the change-cause each carries (polymorphichelpers/history.go).
 */
async function workloadHistory(
  ctx: ToolContext,
  kind: RevisionedKind,
  namespace: string,
  name: string,
  revision: number | undefined,
) {
  const object: RevisionedWorkload =
    kind === 'StatefulSet'
      ? await ctx.kube.getStatefulSet(namespace, name)
      : await ctx.kube.getDaemonSet(namespace, name);
  const listed = await ctx.kube.listControllerRevisions(namespace, {
    labelSelector: formatLabelSelector(object.spec?.selector) || undefined,
  });
  const sorted = revisionsOf(object, listed);
  const current = currentRevisionOf(object, sorted);
  const sts = kind === 'StatefulSet' ? (object as StatefulSet) : undefined;
  const ref = `${kind} ${namespace}/${name}`;
  const newestFirst = [...sorted].reverse();
  const revisions = newestFirst.map((cr, index) => {
    const name = cr.metadata?.name ?? '';
    const replicas =
      sts?.status?.updateRevision === name
        ? (sts.status.updatedReplicas ?? 0)
        : sts?.status?.currentRevision === name
          ? (sts.status.currentReplicas ?? 0)
          : 0;
    const cause = cr.metadata?.annotations?.[CHANGE_CAUSE_ANNOTATION];
    return {
      revision: cr.revision ?? 0,
      current: cr === current,
      replica_set: name,
      pod_template_hash: cr.metadata?.labels?.[CONTROLLER_REVISION_HASH_LABEL] ?? null,
      images: imagesOf(revisionTemplate(cr)),
      change_cause: cause === undefined ? null : redact(cause).value,
      created: isoTime(cr.metadata?.creationTimestamp),
      replicas,
      ready: 0,
      // Health from evidence is worked out for Deployment revisions only (their Pods carry the
      // ReplicaSet's name); a ControllerRevision's health is not assessed.
      health: {
        state: 'unknown' as const,
        ever_available: false,
        ready: 0,
        failures: [],
        basis: `not assessed for ${kind} revisions`,
      },
      // Newest first: the revision below is the next entry.
      changes: newestFirst[index + 1]
        ? diffPodTemplates(revisionTemplate(newestFirst[index + 1]!), revisionTemplate(cr))
        : [],
    };
  });
  const { shown, omitted } = bound(revisions, MAX_LIST_ROWS);
  const lines = [
    `${clusterLine(ctx.cluster)} — rollout history of ${ref} (${revisions.length} revision(s), newest first)`,
    formatTable(
      ['revision', 'current', 'controllerrevision', 'images', 'age'],
      revisions.map((r) => [
        String(r.revision),
        r.current ? '*' : '',
        r.replica_set,
        r.images.join(','),
        age(r.created ?? undefined),
      ]),
      { noun: 'revisions', maxRows: MAX_LIST_ROWS, maxCell: 120 },
    ),
  ];
  const causes = shown.filter((r) => r.change_cause);
  if (causes.length > 0) {
    lines.push(
      untrustedBlock(causes.map((r) => `revision ${r.revision}: ${r.change_cause}`).join('\n'), {
        label: `change-cause annotations of the ControllerRevisions of ${ref}`,
        maxBytes: 8192,
      }),
    );
  }
  let detail: RevisionDetail | undefined;
  if (revision !== undefined) {
    const entry = sorted.find((cr) => cr.revision === revision);
    if (!entry)
      throw revisionNotFound(
        kind,
        namespace,
        name,
        revision,
        sorted.map((cr) => cr.revision ?? 0),
      );
    detail = revisionDetail(revision, revisionTemplate(entry), object.spec?.template, entry === current);
    lines.push(...revisionDetailLines(ref, detail));
  }
  return {
    text: lines.join('\n'),
    structured: {
      cluster: ctx.cluster,
      namespace,
      name,
      kind,
      deployment_revision: current?.revision ?? null,
      total: revisions.length,
      omitted,
      revisions: shown,
      ...(detail && { revision_detail: detail }),
    },
  };
}
