/**
 * `triage_namespace`: what is unhealthy in a namespace and why, ranked — the first call of an
 * investigation. Five list operations (Deployments, ReplicaSets, Pods, core events, events.k8s.io
 * events) whatever the Pod count; the analysis is ./triage/findings.ts.
 */
import { z } from 'zod';
import { assertNamespaceExists } from '../close-names.ts';
import { defineTool, toolInput } from '../define-tool.ts';
import { age, bound, moreLine, oneLine, untrustedBlock } from '../format/index.ts';
import { mergeEvents } from '../kube/index.ts';
import { NamespaceSchema } from '../params.ts';
import { redact } from '../redact.ts';
import { ClusterSchema, TimestampSchema, clusterLine } from './common.ts';
import { FINDING_SCORES, triage, type EventReference, type WorkloadTriage } from './triage/findings.ts';
import { addWorkloadTriage } from './triage/workloads.ts';

/** Workloads shown before "N more". */
export const MAX_WORKLOADS = 10;
/** Evidence lines per workload before "+N more". */
export const MAX_EVIDENCE = 6;
/** Event messages quoted in the untrusted section. */
export const MAX_EVENT_MESSAGES = 20;

const FindingKindSchema = z.enum(Object.keys(FINDING_SCORES) as [keyof typeof FINDING_SCORES]);

export const TriageOutputSchema = z.object({
  cluster: ClusterSchema,
  namespace: z.string(),
  counts: z.object({
    deployments: z.number().int(),
    healthy_deployments: z.number().int(),
    pods: z.number().int(),
    warning_events: z.number().int(),
    unhealthy_workloads: z.number().int(),
  }),
  list_operations: z
    .number()
    .int()
    .describe('Kubernetes list operations made (pages of one list count once)'),
  omitted: z.number().int().describe('Unhealthy workloads not included'),
  workloads: z
    .array(
      z.object({
        rank: z.number().int(),
        kind: z.string().describe('Deployment, ReplicaSet, StatefulSet, Pod, ...'),
        name: z.string(),
        severity: z.enum(['critical', 'high', 'medium']),
        score: z.number().int(),
        summary: z.string(),
        likely_cause: z.string(),
        pods_affected: z.number().int(),
        since: TimestampSchema.describe(
          'When the problem was first seen: earliest Warning event or Available=False transition, else the failing Pods’ creation',
        ),
        findings: z.array(
          z.object({
            kind: FindingKindSchema,
            score: z.number().int(),
            evidence: z.string(),
            pod: z.string().nullable(),
            event_ref: z.string().nullable().describe('Reference into event_messages, e.g. E3'),
          }),
        ),
        omitted_findings: z.number().int(),
        rollout: z
          .object({
            current_revision: z.number().int().nullable(),
            current_revision_created: TimestampSchema,
            started_with_rollout: z
              .boolean()
              .describe(
                'Whether the problem began with the current revision’s rollout (within 15 minutes of it)',
              ),
            paused: z.boolean(),
            failing_revisions: z.array(z.number().int()),
            previous_revision: z
              .object({
                revision: z.number().int(),
                images: z.array(z.string()),
                ready_replicas: z.number().int(),
              })
              .nullable()
              .describe('What `kubectl rollout undo` would return to'),
          })
          .nullable(),
      }),
    )
    .describe('Most severe first'),
  event_messages: z
    .array(
      z.object({
        ref: z.string(),
        object: z.string(),
        reason: z.string(),
        count: z.number().int(),
        message: z.string(),
      }),
    )
    .describe('Untrusted event messages referenced by findings; redacted'),
});
export type TriageOutput = z.infer<typeof TriageOutputSchema>;

/**
 * Ranks what is unhealthy in a namespace from one snapshot: five list operations (Deployments,
 * ReplicaSets, Pods, core and events.k8s.io events; pages of a list count once) analysed by `triage`
 * (./triage/findings.ts). Output: `TriageOutput` — at most 10 workloads with 6 findings each, event
 * messages redacted in an untrusted block. Errors: the Kubernetes layer's.
 */
export const triageNamespace = defineTool({
  name: 'triage_namespace',
  title: 'Triage a namespace',
  description: `Finds what is unhealthy in a namespace and ranks it: unavailable Deployments, rollouts past their progress deadline, crash-looping containers with their last termination reason, image pull failures, OOM kills, container config errors, failing probes (from events), unschedulable Pods and ReplicaSets that cannot create Pods. Per workload: severity, likely cause, evidence lines, and for Deployments, StatefulSets and DaemonSets which revisions the failing Pods run and the previous revision (StatefulSet rolling updates stuck on a Pod, DaemonSet Pods unavailable). Start an investigation here. Makes the same five list calls whatever the namespace size (up to three more — statefulsets, daemonsets, controllerrevisions — when Pods of a StatefulSet or DaemonSet are unhealthy); shows the ${MAX_WORKLOADS} worst workloads, then "N more".`,
  risk: 'read',
  input: toolInput({ namespace: NamespaceSchema }),
  output: TriageOutputSchema,
  async handler({ namespace }, ctx) {
    const [deployments, replicaSets, pods, core, eventsV1] = await Promise.all([
      ctx.kube.listDeployments(namespace),
      ctx.kube.listReplicaSets(namespace),
      ctx.kube.listPods(namespace),
      ctx.kube.listEvents(namespace),
      ctx.kube.listEventsV1(namespace),
    ]);
    if (deployments.length + pods.length + core.length + eventsV1.length === 0) {
      await assertNamespaceExists(ctx.kube, namespace);
    }
    const events = mergeEvents(core, eventsV1);
    const result = triage({ deployments, replicaSets, pods, events });
    // StatefulSets and DaemonSets whose Pods showed up: their own findings and rollout (issue 15).
    const kinds = new Set(result.workloads.map((w) => w.kind));
    const extraLists = (kinds.has('StatefulSet') ? 1 : 0) + (kinds.has('DaemonSet') ? 1 : 0);
    if (extraLists > 0) {
      const [statefulSets, daemonSets, revisions] = await Promise.all([
        kinds.has('StatefulSet') ? ctx.kube.listStatefulSets(namespace) : [],
        kinds.has('DaemonSet') ? ctx.kube.listDaemonSets(namespace) : [],
        ctx.kube.listControllerRevisions(namespace),
      ]);
      addWorkloadTriage(result.workloads, { statefulSets, daemonSets, revisions }, pods);
    }
    const { shown, omitted } = bound(result.workloads, MAX_WORKLOADS);
    const workloads = shown.map((w, i) => toOutput(w, i + 1));
    const usedRefs = new Set(workloads.flatMap((w) => w.findings.map((f) => f.event_ref)).filter(Boolean));
    const eventMessages = result.eventMessages
      .filter((e) => usedRefs.has(e.ref))
      .slice(0, MAX_EVENT_MESSAGES)
      .map((e): EventReference => ({ ...e, message: redact(e.message).value }));
    const structured: TriageOutput = {
      cluster: ctx.cluster,
      namespace,
      counts: {
        deployments: deployments.length,
        healthy_deployments: result.healthyDeployments,
        pods: pods.length,
        warning_events: events.filter((e) => e.type === 'Warning').length,
        unhealthy_workloads: result.workloads.length,
      },
      list_operations: 5 + (extraLists > 0 ? extraLists + 1 : 0),
      omitted,
      workloads,
      event_messages: eventMessages,
    };
    return { text: render(structured), structured };
  },
});

function toOutput(w: WorkloadTriage, rank: number): TriageOutput['workloads'][number] {
  const { shown, omitted } = bound(w.findings, MAX_EVIDENCE);
  return {
    rank,
    kind: w.kind,
    name: w.name,
    severity: w.severity,
    score: w.score,
    summary: w.summary,
    likely_cause: w.likelyCause,
    pods_affected: w.podsAffected,
    since: w.since === undefined ? null : new Date(w.since).toISOString(),
    findings: shown.map((f) => ({
      kind: f.kind,
      score: f.score,
      evidence: oneLine(f.evidence, 240),
      pod: f.pod ?? null,
      event_ref: f.eventRef === undefined ? null : `E${f.eventRef}`,
    })),
    omitted_findings: omitted,
    rollout: w.rollout
      ? {
          current_revision: w.rollout.currentRevision,
          current_revision_created:
            w.rollout.currentRevisionCreated === undefined
              ? null
              : new Date(w.rollout.currentRevisionCreated).toISOString(),
          started_with_rollout: w.rollout.startedWithRollout,
          paused: w.rollout.paused,
          failing_revisions: w.rollout.failingRevisions,
          previous_revision: w.rollout.previousRevision
            ? {
                revision: w.rollout.previousRevision.revision,
                images: w.rollout.previousRevision.images,
                ready_replicas: w.rollout.previousRevision.readyReplicas,
              }
            : null,
        }
      : null,
  };
}

function render(r: TriageOutput): string {
  const lines = [
    `${clusterLine(r.cluster)} — triage of namespace '${r.namespace}': ${r.counts.unhealthy_workloads} unhealthy workload(s); ${r.counts.healthy_deployments} of ${r.counts.deployments} Deployment(s) healthy; ${r.counts.pods} Pod(s); ${r.counts.warning_events} Warning event(s).`,
  ];
  if (r.workloads.length === 0) lines.push('Nothing unhealthy found.');
  for (const w of r.workloads) {
    lines.push(
      `${w.rank}. [${w.severity}] ${w.kind} ${w.name} — ${w.summary} (${w.pods_affected} Pod(s) affected)`,
    );
    lines.push(`   Likely cause: ${w.likely_cause}.`);
    const since = w.since ? `first seen ${age(w.since)} ago` : 'first seen: unknown';
    const rollout =
      w.rollout?.current_revision != null && w.rollout.current_revision_created
        ? `; revision ${w.rollout.current_revision} rolled out ${age(w.rollout.current_revision_created)} ago`
        : '';
    lines.push(`   Since: ${since}${rollout}.`);
    for (const f of w.findings) lines.push(`   - ${f.evidence}${f.event_ref ? ` [${f.event_ref}]` : ''}`);
    if (w.omitted_findings > 0) lines.push(`   - … ${w.omitted_findings} more finding(s)`);
  }
  if (r.omitted > 0) lines.push(moreLine(r.omitted, 'unhealthy workloads', 'they rank below the ones shown'));
  if (r.event_messages.length > 0) {
    lines.push(
      untrustedBlock(
        r.event_messages
          .map((e) => `[${e.ref}] ${e.object} ${e.reason}${e.count > 1 ? ` ×${e.count}` : ''}: ${e.message}`)
          .join('\n'),
        { label: `event messages in namespace ${r.namespace}`, maxBytes: 8192 },
      ),
    );
  }
  return lines.join('\n');
}
