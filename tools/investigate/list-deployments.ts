/**
 * `list_deployments`: the Deployments of a namespace with the columns of `kubectl get deployments
 * -o wide` plus revision, Progressing/Available conditions and paused.
 */
import { z } from 'zod';
import { assertNamespaceExists } from '../close-names.ts';
import { defineTool, toolInput } from '../define-tool.ts';
import { age, bound, formatTable } from '../format/index.ts';
import { revisionOf } from '../kube/index.ts';
import { LabelSelectorSchema, NamespaceSchema } from '../params.ts';
import {
  ClusterSchema,
  ConditionSchema,
  MAX_LIST_ROWS,
  TimestampSchema,
  clusterLine,
  conditionSummary,
  conditionsOf,
  imagesOf,
  isoTime,
} from './common.ts';

export const DeploymentRowSchema = z.object({
  name: z.string(),
  desired: z.number().int().describe('spec.replicas'),
  ready: z.number().int().describe('status.readyReplicas'),
  updated: z.number().int().describe('status.updatedReplicas (UP-TO-DATE)'),
  available: z.number().int().describe('status.availableReplicas'),
  revision: z.number().int().nullable().describe('deployment.kubernetes.io/revision'),
  images: z.array(z.string()),
  conditions: z.array(ConditionSchema),
  paused: z.boolean(),
  created: TimestampSchema,
});

export const ListDeploymentsOutputSchema = z.object({
  cluster: ClusterSchema,
  namespace: z.string(),
  label_selector: z.string().nullable(),
  total: z.number().int().describe('Deployments that matched'),
  omitted: z.number().int().describe('Deployments not included (list bound)'),
  deployments: z.array(DeploymentRowSchema),
});
export type ListDeploymentsOutput = z.infer<typeof ListDeploymentsOutputSchema>;

/**
 * Mirrors `kubectl get deployments -o wide` (READY = readyReplicas/spec.replicas), plus revision,
 * conditions and paused. Input: namespace, optional label selector (validated before the call).
 * Output: `ListDeploymentsOutput`, sorted by name, at most 50 rows. Errors: the Kubernetes layer's
 * (`forbidden`, `unauthorized`, `timeout`, `unavailable`).
 */
export const listDeployments = defineTool({
  name: 'list_deployments',
  title: 'List Deployments',
  description: `Lists the Deployments in a namespace, like \`kubectl get deployments -o wide\`: READY (ready/desired), UP-TO-DATE, AVAILABLE, current REVISION, container IMAGES, the Available/Progressing CONDITIONS with their reasons (e.g. Progressing=False/ProgressDeadlineExceeded), PAUSED and AGE. Sorted by name; at most ${MAX_LIST_ROWS} rows, then an "N more" line (narrow with label_selector).`,
  risk: 'read',
  input: toolInput({
    namespace: NamespaceSchema,
    label_selector: LabelSelectorSchema.optional(),
  }),
  output: ListDeploymentsOutputSchema,
  async handler({ namespace, label_selector }, ctx) {
    const selector = label_selector || undefined;
    const items = await ctx.kube.listDeployments(namespace, { labelSelector: selector });
    if (items.length === 0) await assertNamespaceExists(ctx.kube, namespace);
    items.sort((a, b) => (a.metadata?.name ?? '').localeCompare(b.metadata?.name ?? ''));
    const rows = items.map((d) => ({
      name: d.metadata?.name ?? '',
      desired: d.spec?.replicas ?? 1,
      ready: d.status?.readyReplicas ?? 0,
      updated: d.status?.updatedReplicas ?? 0,
      available: d.status?.availableReplicas ?? 0,
      revision: revisionOf(d) ?? null,
      images: imagesOf(d.spec?.template),
      conditions: conditionsOf(d),
      paused: d.spec?.paused ?? false,
      created: isoTime(d.metadata?.creationTimestamp),
      summary: conditionSummary(d),
    }));
    const { shown, omitted } = bound(rows, MAX_LIST_ROWS);
    const where = `namespace '${namespace}'${selector ? ` matching '${selector}'` : ''}`;
    const table = formatTable(
      ['name', 'ready', 'up-to-date', 'available', 'revision', 'images', 'conditions', 'paused', 'age'],
      rows.map((r) => [
        r.name,
        `${r.ready}/${r.desired}`,
        String(r.updated),
        String(r.available),
        r.revision === null ? '?' : String(r.revision),
        r.images.join(','),
        r.summary,
        r.paused ? 'yes' : 'no',
        age(r.created ?? undefined),
      ]),
      {
        noun: `Deployments in ${where}`,
        maxRows: MAX_LIST_ROWS,
        hint: 'narrow with label_selector',
        maxCell: 120,
      },
    );
    return {
      text: `${clusterLine(ctx.cluster)} — ${rows.length} Deployment(s) in ${where}\n${table}`,
      structured: {
        cluster: ctx.cluster,
        namespace,
        label_selector: selector ?? null,
        total: rows.length,
        omitted,
        deployments: shown.map(({ summary: _summary, ...row }) => row),
      },
    };
  },
});
