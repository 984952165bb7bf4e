/**
 * `list_pods`: Pods with the columns of `kubectl get pods -o wide`, per-container states (waiting and
 * terminated reasons, last termination, init containers), and the ReplicaSet and revision that
 * created each Pod — for a StatefulSet's or DaemonSet's Pod, its ControllerRevision's number.
 */
import { z } from 'zod';
import { assertNamespaceExists } from '../close-names.ts';
import { defineTool, toolInput } from '../define-tool.ts';
import { SentinelError } from '../errors.ts';
import { bound, formatTable, humanDuration, untrustedBlock } from '../format/index.ts';
import {
  containerProblem,
  containerStates,
  controllerOf,
  formatLabelSelector,
  isControlledBy,
  podSummary,
  revisionOf,
  timeOf,
  POD_TEMPLATE_HASH_LABEL,
  type ContainerState,
  type ControllerRevision,
  type KubeReader,
  type Pod,
  type ReplicaSet,
} from '../kube/index.ts';
import { DeploymentNameSchema, LabelSelectorSchema, NamespaceSchema } from '../params.ts';
import { redact } from '../redact.ts';
import { podControllerRevisions, podRevision } from './pod-revisions.ts';
import { ClusterSchema, MAX_LIST_ROWS, TimestampSchema, clusterLine, isoTime } from './common.ts';

export const ContainerStateSchema = z.object({
  name: z.string(),
  type: z.enum(['init', 'app']),
  image: z.string().nullable(),
  state: z.enum(['running', 'waiting', 'terminated', 'unknown']),
  reason: z
    .string()
    .nullable()
    .describe(
      'CrashLoopBackOff, ImagePullBackOff, ErrImagePull, OOMKilled, Error, CreateContainerConfigError, ...',
    ),
  exit_code: z.number().int().nullable(),
  ready: z.boolean(),
  restarts: z.number().int(),
  last_termination: z
    .object({ reason: z.string().nullable(), exit_code: z.number().int(), finished_at: TimestampSchema })
    .nullable(),
  problem: z.string().nullable().describe('One-line summary when unhealthy'),
});

export const PodRowSchema = z.object({
  name: z.string(),
  phase: z.string(),
  status: z.string().describe('STATUS as kubectl get pods shows it'),
  ready_containers: z.number().int(),
  total_containers: z.number().int(),
  restarts: z.number().int(),
  last_restart: TimestampSchema,
  node: z.string().nullable(),
  created: TimestampSchema,
  replica_set: z.string().nullable().describe('Owning ReplicaSet, if any'),
  revision: z
    .number()
    .int()
    .nullable()
    .describe(
      "Revision of the owning ReplicaSet; for a StatefulSet's or DaemonSet's Pod, of the ControllerRevision its controller-revision-hash label names",
    ),
  containers: z.array(ContainerStateSchema),
});

export const ListPodsOutputSchema = z.object({
  cluster: ClusterSchema,
  namespace: z.string(),
  label_selector: z.string().nullable(),
  deployment: z.string().nullable(),
  total: z.number().int(),
  omitted: z.number().int(),
  pods: z.array(PodRowSchema),
});
export type ListPodsOutput = z.infer<typeof ListPodsOutputSchema>;

/**
 * Mirrors `kubectl get pods -o wide` (STATUS/READY/RESTARTS by `podSummary`, kubectl's printPod) with
 * per-container states from `containerStates`. With `deployment`, the Pods whose controller is one of
 * that Deployment's ReplicaSets. The revision of a StatefulSet's or DaemonSet's Pod is the number of
 * the ControllerRevision its `controller-revision-hash` names (./pod-revisions.ts). Output: `ListPodsOutput`, sorted by name, at most 50 rows; kubelet
 * messages in an untrusted block. Errors: `invalid_input` for label_selector with deployment,
 * `not_found` for the Deployment, and the Kubernetes layer's others.
 */
export const listPods = defineTool({
  name: 'list_pods',
  title: 'List Pods',
  description: `Lists Pods like \`kubectl get pods -o wide\`: READY x/y, STATUS (kubectl's: CrashLoopBackOff, ImagePullBackOff, ErrImagePull, OOMKilled, Error, CreateContainerConfigError, Init:1/2, Pending, Terminating, ...), RESTARTS, AGE, NODE, the owning ReplicaSet and its revision (a StatefulSet's or DaemonSet's Pod: the revision of its ControllerRevision), and per-container problems with the last termination reason and exit code (init containers included). Select with label_selector, or with deployment to get exactly the Pods of that Deployment's ReplicaSets (not both). Sorted by name; at most ${MAX_LIST_ROWS} rows, then "N more".`,
  risk: 'read',
  input: toolInput({
    namespace: NamespaceSchema,
    label_selector: LabelSelectorSchema.optional(),
    deployment: DeploymentNameSchema.optional().describe(
      "Only Pods of this Deployment (by its selector and owner references), e.g. 'checkout'. Not together with label_selector.",
    ),
  }),
  output: ListPodsOutputSchema,
  async handler({ namespace, label_selector, deployment: deploymentName }, ctx) {
    const selector = label_selector || undefined;
    if (selector && deploymentName) {
      throw new SentinelError('invalid_input', 'Give either label_selector or deployment, not both.', {
        field: 'deployment',
      });
    }
    let pods: Pod[];
    let replicaSets: ReplicaSet[];
    let revisions: ControllerRevision[] = [];
    if (deploymentName) {
      const deployment = await ctx.kube.getDeployment(namespace, deploymentName);
      const podSelector = formatLabelSelector(deployment.spec?.selector) || undefined;
      [pods, replicaSets] = await Promise.all([
        ctx.kube.listPods(namespace, { labelSelector: podSelector }),
        ctx.kube.listReplicaSets(namespace, { labelSelector: podSelector }),
      ]);
      replicaSets = replicaSets.filter((rs) => isControlledBy(rs, deployment));
      const owned = new Set(replicaSets.map((rs) => rs.metadata?.uid));
      pods = pods.filter((p) => owned.has(controllerOf(p.metadata)?.uid));
    } else {
      pods = await ctx.kube.listPods(namespace, { labelSelector: selector });
      if (pods.length === 0) await assertNamespaceExists(ctx.kube, namespace);
      [replicaSets, revisions] = await Promise.all([
        owningReplicaSets(ctx.kube, namespace, pods),
        podControllerRevisions(ctx.kube, namespace, pods),
      ]);
    }
    const byUid = new Map(replicaSets.map((rs) => [rs.metadata?.uid, rs]));
    // Each Pod's container states once: its row and its messages both use them.
    const states = new Map(pods.map((p) => [p, containerStates(p)]));
    const entries = pods
      .map((p) => podRow(p, states.get(p)!, byUid, revisions))
      .sort((a, b) => a.row.name.localeCompare(b.row.name));
    const rows = entries.map((e) => e.row);
    // AGE and the last restart's age from the times in ms (not re-parsed from the rows), one `now`.
    const now = Date.now();
    const ageOf = (ms: number) => (ms === 0 ? '<unknown>' : humanDuration(now - ms));
    const { shown, omitted } = bound(rows, MAX_LIST_ROWS);
    const where = `namespace '${namespace}'${deploymentName ? ` of Deployment '${deploymentName}'` : ''}${selector ? ` matching '${selector}'` : ''}`;
    const lines = [
      `${clusterLine(ctx.cluster)} — ${rows.length} Pod(s) in ${where}`,
      formatTable(
        ['name', 'ready', 'status', 'restarts', 'age', 'node', 'replicaset', 'rev', 'container problems'],
        entries.map(({ row: r, createdAt, lastRestartAt }) => [
          r.name,
          `${r.ready_containers}/${r.total_containers}`,
          r.status,
          r.restarts > 0 && lastRestartAt
            ? `${r.restarts} (${ageOf(lastRestartAt)} ago)`
            : String(r.restarts),
          ageOf(createdAt),
          r.node ?? '<none>',
          r.replica_set ?? '<none>',
          r.revision === null ? '' : String(r.revision),
          r.containers
            .filter((c) => c.problem)
            .map((c) => `${c.type === 'init' ? 'init ' : ''}${c.name}: ${c.problem}`)
            .join('; '),
        ]),
        {
          noun: `Pods in ${where}`,
          maxRows: MAX_LIST_ROWS,
          hint: 'narrow with label_selector or deployment',
          maxCell: 160,
        },
      ),
    ];
    const shownNames = new Set(shown.map((r) => r.name));
    const messages = containerMessages(
      pods.filter((p) => p.metadata?.name !== undefined && shownNames.has(p.metadata.name)),
      states,
    );
    if (messages)
      lines.push(untrustedBlock(messages, { label: `container state messages in ${where}`, maxBytes: 8192 }));
    return {
      text: lines.join('\n'),
      structured: {
        cluster: ctx.cluster,
        namespace,
        label_selector: selector ?? null,
        deployment: deploymentName ?? null,
        total: rows.length,
        omitted,
        pods: shown,
      },
    };
  },
});

/**
 * The ReplicaSets that control `pods`, fetched with one list of exactly those: the Deployment
 * controller labels each ReplicaSet and its Pods with the same `pod-template-hash`, so
 * `pod-template-hash in (<the Pods' hashes>)` selects the owners and leaves out the namespace's
 * other ReplicaSets (old revisions, other workloads — hundreds in a large namespace). No request
 * when no Pod has a ReplicaSet owner. When a ReplicaSet-owned Pod carries no hash (a ReplicaSet
 * made by hand) or a malformed one, every ReplicaSet of the namespace is listed, as before.
 */
const LABEL_VALUE = /^[A-Za-z0-9]([-A-Za-z0-9_.]{0,61}[A-Za-z0-9])?$/;

async function owningReplicaSets(kube: KubeReader, namespace: string, pods: Pod[]): Promise<ReplicaSet[]> {
  const hashes = new Set<string>();
  let unhashed = false;
  for (const pod of pods) {
    if (controllerOf(pod.metadata)?.kind !== 'ReplicaSet') continue;
    const hash = pod.metadata?.labels?.[POD_TEMPLATE_HASH_LABEL];
    // Only a well-formed label value goes into the selector (a cluster could send anything).
    if (hash && LABEL_VALUE.test(hash)) hashes.add(hash);
    else unhashed = true;
  }
  if (unhashed) return kube.listReplicaSets(namespace);
  if (hashes.size === 0) return [];
  return kube.listReplicaSets(namespace, {
    labelSelector: `${POD_TEMPLATE_HASH_LABEL} in (${[...hashes].sort().join(',')})`,
  });
}

/**
 * A Pod's row, with its creation and last restart as ms since epoch (0 when unknown; the table's
 * AGE and RESTARTS columns).
 */
function podRow(
  pod: Pod,
  containers: readonly ContainerState[],
  replicaSets: ReadonlyMap<string | undefined, ReplicaSet>,
  revisions: readonly ControllerRevision[],
): { row: z.infer<typeof PodRowSchema>; createdAt: number; lastRestartAt: number } {
  const summary = podSummary(pod);
  const ownerRef = controllerOf(pod.metadata);
  const owner = ownerRef?.kind === 'ReplicaSet' ? replicaSets.get(ownerRef.uid) : undefined;
  const created = isoTime(pod.metadata?.creationTimestamp);
  const row = {
    name: pod.metadata?.name ?? '',
    phase: pod.status?.phase ?? 'Unknown',
    status: summary.status,
    ready_containers: summary.readyContainers,
    total_containers: summary.totalContainers,
    restarts: summary.restarts,
    last_restart: summary.lastRestartAt ? new Date(summary.lastRestartAt).toISOString() : null,
    node: pod.spec?.nodeName ?? null,
    created,
    replica_set: ownerRef?.kind === 'ReplicaSet' ? ownerRef.name : null,
    revision: owner ? (revisionOf(owner) ?? null) : (podRevision(pod, revisions) ?? null),
    containers: containers.map((c) => ({
      name: c.name,
      type: c.type,
      image: c.image ?? null,
      state: c.state,
      reason: c.reason ?? null,
      exit_code: c.exitCode ?? null,
      ready: c.ready,
      restarts: c.restarts,
      last_termination: c.lastTermination
        ? {
            reason: c.lastTermination.reason ?? null,
            exit_code: c.lastTermination.exitCode,
            finished_at: c.lastTermination.finishedAt
              ? new Date(c.lastTermination.finishedAt).toISOString()
              : null,
          }
        : null,
      problem: containerProblem(c) ?? null,
    })),
  };
  return {
    row,
    createdAt: created === null ? 0 : timeOf(pod.metadata?.creationTimestamp),
    lastRestartAt: summary.lastRestartAt ?? 0,
  };
}

/** `pod/container: message` for containers whose state carries a kubelet message (redacted). */
function containerMessages(pods: Pod[], states: ReadonlyMap<Pod, readonly ContainerState[]>): string {
  const lines: string[] = [];
  for (const pod of pods) {
    for (const c of states.get(pod) ?? []) {
      if (c.message && containerProblem(c)) lines.push(`${pod.metadata?.name}/${c.name}: ${c.message}`);
    }
  }
  return redact(lines.join('\n')).value;
}
