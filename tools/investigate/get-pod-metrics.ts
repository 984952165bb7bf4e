/**
 * `get_pod_metrics`: the last CPU and memory usage of each container from the resource metrics API
 * (`metrics.k8s.io/v1beta1` PodMetrics, served by metrics-server), the columns of
 * `kubectl top pod --containers`, with each container's limit beside its usage — how close an
 * OOM-killed container was to its memory limit.
 */
import { z } from 'zod';
import { defineTool, toolInput } from '../define-tool.ts';
import { SentinelError } from '../errors.ts';
import { bound, formatTable } from '../format/index.ts';
import type { Pod, PodMetrics } from '../kube/index.ts';
import { cpuMillicores, memoryMiB } from '../kube/quantity.ts';
import { LabelSelectorSchema, NamespaceSchema, PodNameSchema } from '../params.ts';
import { ClusterSchema, MAX_LIST_ROWS, TimestampSchema, clusterLine, isoTime } from './common.ts';

export const ContainerMetricsSchema = z.object({
  name: z.string(),
  cpu_millicores: z.number().nullable().describe('CPU usage in millicores (1000 = one core)'),
  memory_mib: z.number().nullable().describe('Memory usage (working set) in MiB'),
  cpu_limit_millicores: z.number().nullable().describe('resources.limits.cpu in millicores, null when unset'),
  memory_limit_mib: z.number().nullable().describe('resources.limits.memory in MiB, null when unset'),
  memory_limit: z.string().nullable().describe('resources.limits.memory as written, e.g. 128Mi'),
});

export const PodMetricsRowSchema = z.object({
  name: z.string(),
  timestamp: TimestampSchema.describe('When the usage was sampled'),
  window: z.string().nullable().describe('Sampling window, e.g. 15s'),
  containers: z.array(ContainerMetricsSchema),
});

export const GetPodMetricsOutputSchema = z.object({
  cluster: ClusterSchema,
  namespace: z.string(),
  pod: z.string().nullable(),
  label_selector: z.string().nullable(),
  available: z.boolean().describe('false when the cluster does not serve metrics.k8s.io (no metrics-server)'),
  total: z.number().int().describe('Pods with metrics that matched'),
  omitted: z.number().int().describe('Pods not included (list bound)'),
  pods: z.array(PodMetricsRowSchema),
});
export type GetPodMetricsOutput = z.infer<typeof GetPodMetricsOutputSchema>;

/** The message when the metrics API is not served (`kubectl top` says "Metrics API not available"). */
export const METRICS_UNAVAILABLE = 'metrics API not available on this cluster';

/**
 * Mirrors `kubectl top pod [name] --containers`: `GET /apis/metrics.k8s.io/v1beta1/namespaces/{ns}/pods`
 * (with the label selector; a named Pod is picked from that list) and `GET /api/v1/namespaces/{ns}/pods`
 * for each container's limits. Input: namespace, optional Pod name and/or label selector. Output:
 * `GetPodMetricsOutput`: per container CPU in millicores and memory in MiB, limits beside them,
 * sorted by Pod name, at most 50 Pods. When the cluster does not serve metrics.k8s.io (404 on the
 * group: no metrics-server) the answer is `available: false` and the text says "metrics API not
 * available on this cluster" — not an error. Errors: `not_found` for a named Pod that does not exist;
 * the Kubernetes layer's (`forbidden`: the role lacks list on pods in group metrics.k8s.io,
 * `unauthorized`, `timeout`, `unavailable`).
 */
export const getPodMetrics = defineTool({
  name: 'get_pod_metrics',
  title: 'Get Pod metrics',
  description: `Shows the last CPU (millicores) and memory (MiB) usage of each container, like \`kubectl top pod --containers\`, with the container's CPU and memory limits beside them, from the metrics API (metrics-server). Use it for an OOM kill (how close usage was to the memory limit) or CPU throttling. Give a Pod name, or a label_selector, or neither for the whole namespace; at most ${MAX_LIST_ROWS} Pods. When the cluster has no metrics API it says so (available: false) instead of failing.`,
  risk: 'read',
  input: toolInput({
    namespace: NamespaceSchema,
    pod: PodNameSchema.optional(),
    label_selector: LabelSelectorSchema.optional(),
  }),
  output: GetPodMetricsOutputSchema,
  async handler({ namespace, pod, label_selector }, ctx) {
    const selector = label_selector || undefined;
    const options = { labelSelector: selector };
    const [metrics, pods] = await Promise.all([
      ctx.kube.listPodMetrics(namespace, options).catch((error: unknown) => {
        if (error instanceof SentinelError && error.code === 'not_found') return undefined;
        throw error;
      }),
      ctx.kube.listPods(namespace, options),
    ]);
    if (pod !== undefined && !pods.some((p) => p.metadata?.name === pod)) {
      throw new SentinelError(
        'not_found',
        `Pod '${pod}' not found in namespace '${namespace}'${selector ? ` matching '${selector}'` : ''} on cluster '${ctx.cluster.context}'. list_pods shows the Pods that exist.`,
        { kind: 'Pod', namespace, name: pod },
      );
    }
    const base = { cluster: ctx.cluster, namespace, pod: pod ?? null, label_selector: selector ?? null };
    const where = `${pod ? `Pod '${pod}'` : `namespace '${namespace}'`}${selector ? ` matching '${selector}'` : ''}`;
    if (metrics === undefined) {
      return {
        text: `${clusterLine(ctx.cluster)} — ${METRICS_UNAVAILABLE} (metrics.k8s.io is not served: no metrics-server), so there is no usage for ${where}.`,
        structured: { ...base, available: false, total: 0, omitted: 0, pods: [] },
      };
    }
    const specs = new Map(pods.map((p) => [p.metadata?.name ?? '', p]));
    const rows = metrics
      .filter((m) => pod === undefined || m.metadata?.name === pod)
      .map((m) => podRow(m, specs.get(m.metadata?.name ?? '')))
      .sort((a, b) => a.name.localeCompare(b.name));
    const { shown, omitted } = bound(rows, MAX_LIST_ROWS);
    const show = (value: number | null, unit: string) => (value === null ? '-' : `${value}${unit}`);
    const table = formatTable(
      ['pod', 'container', 'cpu', 'cpu limit', 'memory', 'memory limit'],
      rows.flatMap((r) =>
        r.containers.map((c) => [
          r.name,
          c.name,
          show(c.cpu_millicores, 'm'),
          show(c.cpu_limit_millicores, 'm'),
          show(c.memory_mib, 'Mi'),
          c.memory_limit ?? '-',
        ]),
      ),
      { noun: `Pods with metrics in ${where}`, maxRows: MAX_LIST_ROWS, hint: 'narrow with label_selector' },
    );
    const none =
      rows.length === 0 ? ' (a Pod appears once a container has run and metrics-server has scraped it)' : '';
    return {
      text: `${clusterLine(ctx.cluster)} — usage of ${rows.length} Pod(s) in ${where}${none}\n${table}`,
      structured: { ...base, available: true, total: rows.length, omitted, pods: shown },
    };
  },
});

/** One PodMetrics item with the limits of the same containers in the Pod's spec. */
function podRow(metrics: PodMetrics, pod: Pod | undefined): z.infer<typeof PodMetricsRowSchema> {
  const containers = new Map((pod?.spec?.containers ?? []).map((c) => [c.name, c]));
  return {
    name: metrics.metadata?.name ?? '',
    timestamp: isoTime(metrics.timestamp),
    window: metrics.window ?? null,
    containers: (metrics.containers ?? []).map((c) => {
      const limits = containers.get(c.name)?.resources?.limits;
      const memoryLimit = limits?.memory === undefined ? null : String(limits.memory);
      return {
        name: c.name,
        cpu_millicores: cpuMillicores(c.usage?.cpu) ?? null,
        memory_mib: memoryMiB(c.usage?.memory) ?? null,
        cpu_limit_millicores: cpuMillicores(limits?.cpu) ?? null,
        memory_limit_mib: memoryMiB(memoryLimit) ?? null,
        memory_limit: memoryLimit,
      };
    }),
  };
}
