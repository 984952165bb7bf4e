/**
 * `get_deployment`: one Deployment in detail, like `kubectl describe deployment`, without
 * `managedFields` and with secret-looking values redacted.
 */
import { z } from 'zod';
import { defineTool, toolInput } from '../define-tool.ts';
import { age, formatTable, untrustedBlock } from '../format/index.ts';
import { digest } from '../../core/index.ts';
import {
  formatLabelSelector,
  revisionOf,
  templateWithoutHash,
  unsanitized,
  type Container,
  type Deployment,
} from '../kube/index.ts';
import { DeploymentNameSchema, NamespaceSchema } from '../params.ts';
import { redactValue } from '../redact.ts';
import { AutoscalerSchema, autoscalersFor, describeAutoscalerLine } from './autoscalers.ts';
import {
  ClusterSchema,
  ConditionSchema,
  TimestampSchema,
  clusterLine,
  conditionsOf,
  isoTime,
} from './common.ts';

/** Annotations left out of the output: huge, and repeat the spec (including env values). */
const OMITTED_ANNOTATIONS = new Set(['kubectl.kubernetes.io/last-applied-configuration']);

const QuantitiesSchema = z.record(z.string(), z.string()).describe('e.g. { cpu: "100m", memory: "128Mi" }');

export const ContainerSpecSchema = z.object({
  name: z.string(),
  image: z.string(),
  requests: QuantitiesSchema,
  limits: QuantitiesSchema,
  ports: z.array(z.string()).describe('e.g. 8080/TCP'),
  env: z.array(
    z.object({
      name: z.string(),
      value: z.string().nullable().describe('Literal value; [REDACTED] for secret-looking names'),
      from: z.string().nullable().describe('Source when not literal, e.g. secret db/password'),
    }),
  ),
  probes: z.array(z.string()).describe('e.g. readiness: http GET :8080/healthz'),
});

export const GetDeploymentOutputSchema = z.object({
  cluster: ClusterSchema,
  namespace: z.string(),
  name: z.string(),
  revision: z.number().int().nullable(),
  generation: z.number().int(),
  observed_generation: z.number().int(),
  created: TimestampSchema,
  replicas: z.object({
    desired: z.number().int(),
    updated: z.number().int(),
    ready: z.number().int(),
    available: z.number().int(),
    unavailable: z.number().int(),
    total: z.number().int().describe('Pods of every revision (status.replicas)'),
  }),
  paused: z.boolean(),
  strategy: z.object({
    type: z.string(),
    max_surge: z.string().nullable(),
    max_unavailable: z.string().nullable(),
  }),
  min_ready_seconds: z.number().int(),
  progress_deadline_seconds: z.number().int().nullable(),
  revision_history_limit: z.number().int().nullable(),
  selector: z.string().describe('Label selector of the Pods'),
  conditions: z.array(ConditionSchema),
  containers: z.array(ContainerSpecSchema),
  init_containers: z.array(ContainerSpecSchema),
  labels: z.record(z.string(), z.string()),
  annotations: z.record(z.string(), z.string()).describe('Untrusted text from the cluster; redacted'),
  redactions: z.number().int().describe('Secret values removed by the redactor'),
  template_managers: z
    .array(z.object({ manager: z.string(), operation: z.string(), time: TimestampSchema }))
    .describe(
      'Field managers owning fields of the Pod template (from managedFields), newest write first: who last changed it (Argo CD, Flux, Helm, kubectl, sentinel)',
    )
    .optional(),
  autoscalers: z
    .array(AutoscalerSchema)
    .describe(
      'HorizontalPodAutoscalers targeting this Deployment: they own its replica count (absent when HPAs cannot be listed, or with autoscalers: false)',
    )
    .optional(),
  template_digest: z
    .string()
    .describe(
      'Digest of the Pod template as the API server sent it, pod-template-hash label ignored: the `to_template` a rollback’s effect records (equal digests, equal templates)',
    )
    .optional(),
});
export type GetDeploymentOutput = z.infer<typeof GetDeploymentOutputSchema>;

/**
 * Mirrors `kubectl describe deployment`: one `GET` of the Deployment (and, sent at the same time, a list
 * of the namespace's HorizontalPodAutoscalers: those targeting it, ./autoscalers.ts), described without managedFields
 * or last-applied-configuration, everything passed through the redactor (count in `redactions`);
 * `autoscalers: false` skips the HPA list (a caller watching only the template, like the settle window);
 * annotations in an untrusted block. Output: `GetDeploymentOutput`. Errors: `not_found` naming the
 * Deployment, and the Kubernetes layer's others.
 */
export const getDeployment = defineTool({
  name: 'get_deployment',
  title: 'Describe a Deployment',
  description:
    'Shows one Deployment in detail, like `kubectl describe deployment`: revision, generation vs observedGeneration, replicas (desired/updated/ready/available/unavailable), strategy, selector, conditions with reason and message (e.g. Progressing=False ProgressDeadlineExceeded), containers with image, resource requests/limits, ports, probes and env (values of secret-looking names such as *_PASSWORD, *_TOKEN, *_KEY redacted), labels and annotations, and any HorizontalPodAutoscaler that sets its replica count (min/max, current vs target utilisation, at max or not). managedFields and last-applied-configuration are left out.',
  risk: 'read',
  input: toolInput({
    namespace: NamespaceSchema,
    name: DeploymentNameSchema,
    autoscalers: z
      .boolean()
      .default(true)
      .describe(
        "Also list the namespace's HorizontalPodAutoscalers and show those targeting the Deployment (one more list call). Default true; false when only the template or status matters.",
      ),
  }),
  output: GetDeploymentOutputSchema,
  async handler({ namespace, name, autoscalers: withAutoscalers }, ctx) {
    // Both reads are sent together (the HPA list does not depend on the Deployment): one round trip
    // instead of two. Best effort for the HPAs: a reader not allowed to list them (or a cluster without
    // the API) still gets the Deployment; their failure never rejects (no unhandled rejection when the
    // Deployment read fails first).
    const pendingAutoscalers = withAutoscalers
      ? ctx.kube
          .listHorizontalPodAutoscalers(namespace)
          .then((list) => autoscalersFor(list, 'Deployment', name))
          .catch(() => undefined)
      : undefined;
    // Read as sent, so the template digest is the one remediation effects record.
    const deployment = await ctx.kube.getDeploymentAsSent(namespace, name);
    const { value: detail, redactions } = redactValue(describe(deployment));
    const autoscalers = await pendingAutoscalers;
    const result: GetDeploymentOutput = {
      cluster: ctx.cluster,
      namespace,
      name,
      ...detail,
      redactions,
      template_digest: templateDigest(deployment),
      ...(autoscalers && { autoscalers }),
    };
    return { text: render(result, ctx.cluster), structured: result };
  },
});

type Detail = Omit<GetDeploymentOutput, 'cluster' | 'namespace' | 'name' | 'redactions'>;

function describe(d: Deployment): Detail {
  const spec = d.spec;
  const status = d.status ?? {};
  const rolling = spec?.strategy?.rollingUpdate;
  const annotations = Object.fromEntries(
    Object.entries(d.metadata?.annotations ?? {}).filter(([key]) => !OMITTED_ANNOTATIONS.has(key)),
  );
  return {
    revision: revisionOf(d) ?? null,
    generation: d.metadata?.generation ?? 0,
    observed_generation: status.observedGeneration ?? 0,
    created: isoTime(d.metadata?.creationTimestamp),
    replicas: {
      desired: spec?.replicas ?? 1,
      updated: status.updatedReplicas ?? 0,
      ready: status.readyReplicas ?? 0,
      available: status.availableReplicas ?? 0,
      unavailable: status.unavailableReplicas ?? 0,
      total: status.replicas ?? 0,
    },
    paused: spec?.paused ?? false,
    strategy: {
      type: spec?.strategy?.type ?? 'RollingUpdate',
      max_surge: rolling?.maxSurge === undefined ? null : String(rolling.maxSurge),
      max_unavailable: rolling?.maxUnavailable === undefined ? null : String(rolling.maxUnavailable),
    },
    min_ready_seconds: spec?.minReadySeconds ?? 0,
    progress_deadline_seconds: spec?.progressDeadlineSeconds ?? null,
    revision_history_limit: spec?.revisionHistoryLimit ?? null,
    selector: formatLabelSelector(spec?.selector),
    conditions: conditionsOf(d),
    containers: (spec?.template.spec?.containers ?? []).map(containerSpec),
    init_containers: (spec?.template.spec?.initContainers ?? []).map(containerSpec),
    labels: d.metadata?.labels ?? {},
    annotations,
    template_managers: templateManagers(d),
  };
}

/**
 * 16 hex characters of SHA-256 over the canonical JSON of the Pod template as the API server sent it,
 * without `pod-template-hash` — the same function as remediation effects' `podTemplateDigest`
 * (tools/remediate/plan.ts), so a live template compares with an approved one by digest.
 */
function templateDigest(d: Deployment): string {
  return digest(templateWithoutHash(unsanitized(d).spec?.template), 16);
}

/** managedFields entries that own something under `spec.template`, newest `time` first. */
function templateManagers(d: Deployment): NonNullable<Detail['template_managers']> {
  return (d.metadata?.managedFields ?? [])
    .filter((entry) => {
      const fields = entry.fieldsV1 as Record<string, Record<string, unknown> | undefined> | undefined;
      return fields?.['f:spec']?.['f:template'] !== undefined;
    })
    .map((entry) => ({
      manager: entry.manager ?? '',
      operation: entry.operation ?? '',
      time: isoTime(entry.time as string | Date | undefined),
    }))
    .sort((a, b) => (b.time ?? '').localeCompare(a.time ?? ''));
}

function containerSpec(c: Container): z.infer<typeof ContainerSpecSchema> {
  const quantities = (q: Record<string, unknown> | undefined) =>
    Object.fromEntries(Object.entries(q ?? {}).map(([k, v]) => [k, String(v)]));
  return {
    name: c.name,
    image: c.image ?? '<none>',
    requests: quantities(c.resources?.requests),
    limits: quantities(c.resources?.limits),
    ports: (c.ports ?? []).map(
      (p) => `${p.containerPort}/${p.protocol ?? 'TCP'}${p.name ? ` (${p.name})` : ''}`,
    ),
    env: (c.env ?? []).map((e) => ({
      name: e.name,
      value: e.valueFrom ? null : (e.value ?? ''),
      from: envSource(e.valueFrom),
    })),
    probes: [
      ['liveness', c.livenessProbe],
      ['readiness', c.readinessProbe],
      ['startup', c.startupProbe],
    ].flatMap(([kind, probe]) =>
      probe ? [`${kind as string}: ${describeProbe(probe as NonNullable<Container['livenessProbe']>)}`] : [],
    ),
  };
}

type EnvSource = NonNullable<Container['env']>[number]['valueFrom'];

function envSource(from: EnvSource): string | null {
  if (!from) return null;
  if (from.secretKeyRef) return `secret ${from.secretKeyRef.name}/${from.secretKeyRef.key}`;
  if (from.configMapKeyRef) return `configmap ${from.configMapKeyRef.name}/${from.configMapKeyRef.key}`;
  if (from.fieldRef) return `field ${from.fieldRef.fieldPath}`;
  if (from.resourceFieldRef) return `resource ${from.resourceFieldRef.resource}`;
  return 'other source';
}

/** `http GET :8080/healthz delay=5s period=10s timeout=1s failure=3`, as `kubectl describe` prints probes. */
function describeProbe(probe: NonNullable<Container['livenessProbe']>): string {
  const action = probe.httpGet
    ? `http GET :${probe.httpGet.port}${probe.httpGet.path ?? '/'}`
    : probe.tcpSocket
      ? `tcp-socket :${probe.tcpSocket.port}`
      : probe.grpc
        ? `grpc :${probe.grpc.port}`
        : probe.exec
          ? `exec [${(probe.exec.command ?? []).join(' ')}]`
          : 'unknown';
  return `${action} delay=${probe.initialDelaySeconds ?? 0}s period=${probe.periodSeconds ?? 10}s timeout=${probe.timeoutSeconds ?? 1}s failure=${probe.failureThreshold ?? 3}`;
}

function render(r: GetDeploymentOutput, cluster: GetDeploymentOutput['cluster']): string {
  const lines = [
    `${clusterLine(cluster)} — Deployment ${r.namespace}/${r.name}`,
    `Revision: ${r.revision ?? '?'}   Generation: ${r.generation} (observed ${r.observed_generation}${r.observed_generation < r.generation ? ', NOT YET OBSERVED by the controller' : ''})   Age: ${age(r.created ?? undefined)}   Paused: ${r.paused ? 'yes' : 'no'}`,
    `Replicas: ${r.replicas.desired} desired | ${r.replicas.updated} updated | ${r.replicas.ready} ready | ${r.replicas.available} available | ${r.replicas.unavailable} unavailable | ${r.replicas.total} total`,
    `Strategy: ${r.strategy.type}${r.strategy.type === 'RollingUpdate' ? ` (max surge ${r.strategy.max_surge ?? '25%'}, max unavailable ${r.strategy.max_unavailable ?? '25%'})` : ''}   MinReadySeconds: ${r.min_ready_seconds}   ProgressDeadlineSeconds: ${r.progress_deadline_seconds ?? '-'}   RevisionHistoryLimit: ${r.revision_history_limit ?? '-'}`,
    `Selector: ${r.selector || '(none)'}`,
    'Conditions:',
    formatTable(
      ['type', 'status', 'reason', 'last-update', 'message'],
      r.conditions.map((c) => [
        c.type,
        c.status,
        c.reason ?? '',
        c.last_update ? `${age(c.last_update)} ago` : '',
        c.message ?? '',
      ]),
      { noun: 'conditions', maxCell: 160 },
    ),
  ];
  for (const [title, containers] of [
    ['Init containers', r.init_containers],
    ['Containers', r.containers],
  ] as const) {
    if (containers.length === 0) continue;
    lines.push(`${title}:`);
    for (const c of containers) {
      const resources = (q: Record<string, string>) =>
        Object.entries(q)
          .map(([k, v]) => `${k}=${v}`)
          .join(',') || '-';
      lines.push(
        `  ${c.name}: image ${c.image}   requests ${resources(c.requests)}   limits ${resources(c.limits)}${c.ports.length ? `   ports ${c.ports.join(', ')}` : ''}`,
      );
      for (const probe of c.probes) lines.push(`    probe ${probe}`);
      if (c.env.length)
        lines.push(
          `    env: ${c.env.map((e) => `${e.name}=${e.from ? `<${e.from}>` : e.value}`).join('  ')}`,
        );
    }
  }
  for (const a of r.autoscalers ?? []) lines.push(`HorizontalPodAutoscaler ${describeAutoscalerLine(a)}`);
  lines.push(
    `Labels: ${
      Object.entries(r.labels)
        .map(([k, v]) => `${k}=${v}`)
        .join(',') || '(none)'
    }`,
  );
  if (Object.keys(r.annotations).length > 0) {
    lines.push(
      untrustedBlock(
        Object.entries(r.annotations)
          .map(([k, v]) => `${k}: ${v}`)
          .join('\n'),
        { label: `annotations of Deployment ${r.namespace}/${r.name}`, maxBytes: 4096 },
      ),
    );
  }
  if (r.redactions > 0) lines.push(`Redacted: ${r.redactions} secret value(s) removed.`);
  return lines.join('\n');
}
