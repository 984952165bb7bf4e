/**
 * `get_service`: one Service and what backs it — the Pods its selector matches and the workloads
 * that own them (Pod → ReplicaSet → Deployment, or a StatefulSet or DaemonSet), like
 * `kubectl describe service` plus `kubectl get pods -l <selector>`. How a host a failing Pod names
 * (`postgres:5432`) leads to the workload behind it, whatever its name.
 */
import { z } from 'zod';
import { defineTool, toolInput } from '../define-tool.ts';
import { bound, formatTable, moreLine } from '../format/index.ts';
import { formatLabelSelector, type Pod, type ReplicaSet } from '../kube/index.ts';
import { NamespaceSchema, objectNameSchema } from '../params.ts';
import { ClusterSchema, MAX_LIST_ROWS, clusterLine } from './common.ts';

export const BackendSchema = z.object({
  kind: z.string().describe('Deployment, StatefulSet, DaemonSet, ReplicaSet (no Deployment owns it) or Pod'),
  name: z.string(),
  pods: z.number().int().describe('Pods of it the selector matches'),
  ready: z.number().int().describe('Of those, Pods whose Ready condition is True (endpoints)'),
});
export type Backend = z.infer<typeof BackendSchema>;

export const GetServiceOutputSchema = z.object({
  cluster: ClusterSchema,
  namespace: z.string(),
  name: z.string(),
  type: z.string().describe('ClusterIP, NodePort, LoadBalancer or ExternalName'),
  cluster_ip: z.string().nullable(),
  external_name: z.string().nullable(),
  ports: z.array(z.string()).describe('e.g. 5432/TCP → 5432 (pg)'),
  selector: z
    .string()
    .nullable()
    .describe('Label selector of the backing Pods; null when the Service has none (manual endpoints)'),
  pods: z.object({ matched: z.number().int(), ready: z.number().int() }),
  backends: z.array(BackendSchema).describe('Owning workloads of the matched Pods, most Pods first'),
  omitted: z.number().int().describe('Backends not included (list bound)'),
});
export type GetServiceOutput = z.infer<typeof GetServiceOutputSchema>;

const isReady = (pod: Pod) =>
  pod.status?.conditions?.some((c) => c.type === 'Ready' && c.status === 'True') ?? false;

/**
 * The workload owning `pod`, following controller owner references as the garbage collector does:
 * a ReplicaSet's controlling Deployment (`replicaSets` is where its ReplicaSet is looked up; one
 * not found there is reported as the ReplicaSet), a StatefulSet or DaemonSet directly, else the Pod.
 */
export function owningWorkload(pod: Pod, replicaSets: readonly ReplicaSet[]): { kind: string; name: string } {
  const owner = pod.metadata?.ownerReferences?.find((ref) => ref.controller);
  if (!owner) return { kind: 'Pod', name: pod.metadata?.name ?? '' };
  if (owner.kind !== 'ReplicaSet') return { kind: owner.kind, name: owner.name };
  const rs = replicaSets.find((candidate) => candidate.metadata?.uid === owner.uid);
  const deployment = rs?.metadata?.ownerReferences?.find(
    (ref) => ref.controller && ref.kind === 'Deployment',
  );
  return deployment
    ? { kind: 'Deployment', name: deployment.name }
    : { kind: 'ReplicaSet', name: owner.name };
}

/**
 * Mirrors `kubectl describe service` (type, cluster IP, ports, selector) and adds what the selector
 * selects: one GET of the Service, then — when it has a selector — one list of Pods and one of
 * ReplicaSets with that selector, Pods grouped by owning workload (`owningWorkload`) with their
 * ready counts. Terminating Pods are left out (they are no endpoints). Output: `GetServiceOutput`,
 * at most 50 backends. Errors: `not_found` naming the Service, and the Kubernetes layer's others.
 */
export const getService = defineTool({
  name: 'get_service',
  title: 'Describe a Service and its backing workloads',
  description:
    'Shows one Service like `kubectl describe service`: type, cluster IP, ports and selector, plus what backs it — the Pods its selector matches (ready = endpoints) grouped by the workload that owns them (Deployment via its ReplicaSet, StatefulSet, DaemonSet). ' +
    'Use it to follow a host a failing Pod names in its logs or events (`postgres:5432`, `http://db.shop.svc`) to the workload behind it, whose name may differ from the Service’s. Three API calls at most.',
  risk: 'read',
  input: toolInput({ namespace: NamespaceSchema, name: objectNameSchema('Service') }),
  output: GetServiceOutputSchema,
  async handler({ namespace, name }, ctx) {
    const service = await ctx.kube.getService(namespace, name);
    const spec = service.spec ?? {};
    const selectorLabels = spec.selector ?? {};
    const selector =
      Object.keys(selectorLabels).length > 0 ? formatLabelSelector({ matchLabels: selectorLabels }) : null;
    const [pods, replicaSets] = selector
      ? await Promise.all([
          ctx.kube.listPods(namespace, { labelSelector: selector }),
          ctx.kube.listReplicaSets(namespace, { labelSelector: selector }),
        ])
      : [[], []];
    const live = pods.filter((pod) => !pod.metadata?.deletionTimestamp);
    const groups = new Map<string, Backend>();
    for (const pod of live) {
      const owner = owningWorkload(pod, replicaSets);
      const key = `${owner.kind}/${owner.name}`;
      const backend = groups.get(key) ?? { ...owner, pods: 0, ready: 0 };
      backend.pods++;
      if (isReady(pod)) backend.ready++;
      groups.set(key, backend);
    }
    const backends = [...groups.values()].sort((a, b) => b.pods - a.pods || a.name.localeCompare(b.name));
    const { shown, omitted } = bound(backends, MAX_LIST_ROWS);
    const ports = (spec.ports ?? []).map(
      (p) => `${p.port}/${p.protocol ?? 'TCP'} → ${p.targetPort ?? p.port}${p.name ? ` (${p.name})` : ''}`,
    );
    const result: GetServiceOutput = {
      cluster: ctx.cluster,
      namespace,
      name,
      type: spec.type ?? 'ClusterIP',
      cluster_ip: spec.clusterIP ?? null,
      external_name: spec.externalName ?? null,
      ports,
      selector,
      pods: { matched: live.length, ready: live.filter(isReady).length },
      backends: shown,
      omitted,
    };
    return { text: render(result, ctx.cluster), structured: result };
  },
});

function render(r: GetServiceOutput, cluster: Parameters<typeof clusterLine>[0]): string {
  const head = `${clusterLine(cluster)} — Service ${r.namespace}/${r.name} (${r.type}${r.cluster_ip ? ` ${r.cluster_ip}` : ''}${r.external_name ? ` → ${r.external_name}` : ''})`;
  const lines = [head, `Ports: ${r.ports.join(', ') || '(none)'}`];
  if (r.selector === null) {
    lines.push('Selector: (none) — endpoints are managed by hand or by another controller');
    return lines.join('\n');
  }
  lines.push(`Selector: ${r.selector}`, `Pods: ${r.pods.matched} matched, ${r.pods.ready} ready`);
  lines.push(
    formatTable(
      ['kind', 'name', 'pods', 'ready'],
      r.backends.map((b) => [b.kind, b.name, String(b.pods), String(b.ready)]),
      { noun: 'backing workloads', maxRows: MAX_LIST_ROWS },
    ),
  );
  if (r.omitted > 0) lines.push(moreLine(r.omitted, 'backing workloads'));
  return lines.join('\n');
}
