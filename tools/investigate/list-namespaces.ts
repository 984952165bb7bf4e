/**
 * `list_namespaces`: the namespaces of the cluster with the columns of `kubectl get namespaces`
 * (NAME, STATUS, AGE) — what exists, so a mistyped namespace can be corrected.
 */
import { z } from 'zod';
import { defineTool, toolInput } from '../define-tool.ts';
import { age, bound, formatTable } from '../format/index.ts';
import { LabelSelectorSchema } from '../params.ts';
import { ClusterSchema, MAX_LIST_ROWS, TimestampSchema, clusterLine, isoTime } from './common.ts';

export const NamespaceRowSchema = z.object({
  name: z.string(),
  status: z.string().describe('status.phase: Active or Terminating'),
  created: TimestampSchema,
});

export const ListNamespacesOutputSchema = z.object({
  cluster: ClusterSchema,
  label_selector: z.string().nullable(),
  total: z.number().int().describe('namespaces that matched'),
  omitted: z.number().int().describe('namespaces not included (list bound)'),
  namespaces: z.array(NamespaceRowSchema),
});
export type ListNamespacesOutput = z.infer<typeof ListNamespacesOutputSchema>;

/**
 * Mirrors `kubectl get namespaces`: `GET /api/v1/namespaces` (cluster-scoped, so Sentinel's role
 * must be a ClusterRole granting `list namespaces`, deploy/k8s/). Input: optional label selector.
 * Output: `ListNamespacesOutput`, sorted by name, at most 50 rows then an "N more" line. Errors:
 * the Kubernetes layer's (`forbidden` under a namespaced Role only, `unauthorized`, `timeout`,
 * `unavailable`).
 */
export const listNamespaces = defineTool({
  name: 'list_namespaces',
  title: 'List namespaces',
  description: `Lists the namespaces of the cluster, like \`kubectl get namespaces\`: NAME, STATUS (Active/Terminating) and AGE. Use it to find the namespace to investigate or to correct a mistyped one. Sorted by name; at most ${MAX_LIST_ROWS} rows, then an "N more" line (narrow with label_selector).`,
  risk: 'read',
  input: toolInput({ label_selector: LabelSelectorSchema.optional() }),
  output: ListNamespacesOutputSchema,
  async handler({ label_selector }, ctx) {
    const selector = label_selector || undefined;
    const items = await ctx.kube.listNamespaces({ labelSelector: selector });
    const rows = items
      .map((item) => ({
        name: item.metadata?.name ?? '',
        status: item.status?.phase ?? 'Active',
        created: isoTime(item.metadata?.creationTimestamp),
      }))
      .sort((a, b) => a.name.localeCompare(b.name));
    const { shown, omitted } = bound(rows, MAX_LIST_ROWS);
    const where = selector ? ` matching '${selector}'` : '';
    const table = formatTable(
      ['name', 'status', 'age'],
      rows.map((r) => [r.name, r.status, age(r.created ?? undefined)]),
      { noun: `namespaces${where}`, maxRows: MAX_LIST_ROWS, hint: 'narrow with label_selector' },
    );
    return {
      text: `${clusterLine(ctx.cluster)} — ${rows.length} namespace(s)${where}\n${table}`,
      structured: {
        cluster: ctx.cluster,
        label_selector: selector ?? null,
        total: rows.length,
        omitted,
        namespaces: shown,
      },
    };
  },
});
