/**
 * `get_rollout_status`: the verdict of `kubectl rollout status deployment/<name>` (complete,
 * progressing, failed, paused), optionally waiting up to 45 s for it to settle.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { z } from 'zod';
import { defineTool, toolInput } from '../define-tool.ts';
import {
  conditionOf,
  revisionOf,
  rolloutVerdict,
  type Deployment,
  type RolloutVerdict,
} from '../kube/index.ts';
import { NamespaceSchema, boundedInt, objectNameSchema } from '../params.ts';
import { kindOf, workloadKindSchema } from '../workload-kind.ts';
import { readWorkloadStatus, workloadReplicas, workloadStrategy } from './workload-rollout-status.ts';
import { ClusterSchema, clusterLine } from './common.ts';

/** How often the Deployment is re-read while waiting. */
export const POLL_INTERVAL_MS = 1000;

export const GetRolloutStatusOutputSchema = z.object({
  cluster: ClusterSchema,
  namespace: z.string(),
  name: z.string(),
  /** `unsupported`: kubectl cannot wait (a StatefulSet or DaemonSet with strategy OnDelete). */
  kind: z.enum(['Deployment', 'StatefulSet', 'DaemonSet']).optional(),
  state: z.enum(['complete', 'progressing', 'failed', 'paused', 'unsupported']),
  reason: z
    .string()
    .nullable()
    .describe('Progressing condition reason when failed, e.g. ProgressDeadlineExceeded'),
  message: z.string().describe('What kubectl rollout status would print'),
  revision: z.number().int().nullable(),
  generation: z.number().int(),
  observed_generation: z.number().int(),
  replicas: z.object({
    desired: z.number().int(),
    updated: z.number().int(),
    ready: z.number().int(),
    available: z.number().int(),
    total: z.number().int(),
  }),
  progressing_condition: z
    .object({ status: z.string(), reason: z.string().nullable(), message: z.string().nullable() })
    .nullable(),
  waited_seconds: z.number().describe('Seconds spent waiting for the rollout to settle after the first read'),
  controller_revisions: z
    .object({
      current: z.string().nullable(),
      update: z.string().nullable(),
      current_number: z.number().int().nullable(),
      update_number: z.number().int().nullable(),
    })
    .optional()
    .describe(
      'StatefulSet/DaemonSet: status.currentRevision and updateRevision (ControllerRevision names) and their numbers',
    ),
  strategy: z
    .object({
      type: z.string(),
      partition: z.number().int().nullable(),
      pod_management_policy: z.string().nullable(),
    })
    .optional()
    .describe(
      "StatefulSet/DaemonSet: updateStrategy type (RollingUpdate, OnDelete); a StatefulSet's partition and podManagementPolicy (OrderedReady, Parallel), defaults filled",
    ),
});
export type GetRolloutStatusOutput = z.infer<typeof GetRolloutStatusOutputSchema>;

/**
 * Mirrors `kubectl rollout status deployment/<name>` through `rolloutVerdict`
 * (tools/kube/deployment-util.ts), plus `paused`. `wait_seconds` (0-45 s, default 0) re-reads the
 * Deployment every second while the verdict is `progressing`, and stops early when the call is
 * cancelled. Output: `GetRolloutStatusOutput`. Errors: `not_found`, and the Kubernetes layer's others.
 */
export const getRolloutStatus = defineTool({
  name: 'get_rollout_status',
  title: 'Check the rollout status of a Deployment, StatefulSet or DaemonSet',
  description:
    'With kind StatefulSet or DaemonSet: the verdict of `kubectl rollout status statefulset|daemonset/<name>` (partitioned rolling updates count only the Pods at or above the partition; OnDelete is `unsupported`: kubectl cannot wait for it), with currentRevision/updateRevision. ' +
    "For a Deployment (default) it gives the verdict `kubectl rollout status deployment/<name>` gives: complete; progressing with how many of how many replicas are updated/available; failed with the Progressing condition's reason (ProgressDeadlineExceeded); or paused. Conditions are trusted only once the controller has observed the latest generation (observedGeneration >= generation). With wait_seconds > 0 it re-reads the Deployment every second until the rollout is no longer progressing or the time is up; for longer waits, call again.",
  risk: 'read',
  input: toolInput({
    namespace: NamespaceSchema,
    name: objectNameSchema('Deployment, StatefulSet or DaemonSet'),
    kind: workloadKindSchema(),
    wait_seconds: boundedInt({
      min: 0,
      max: 45,
      default: 0,
      unit: 'seconds',
      what: 'How long to wait for a progressing rollout to finish before answering (MCP clients time out at about 60 s; poll for longer)',
    }),
  }),
  output: GetRolloutStatusOutputSchema,
  async handler({ namespace, name, wait_seconds, ...rest }, ctx) {
    const kind = kindOf(rest);
    if (kind !== 'Deployment') {
      let read = await readWorkloadStatus(ctx.kube, kind, namespace, name);
      const started = Date.now();
      const deadline = started + wait_seconds * 1000;
      while (
        read.verdict.state === 'progressing' &&
        Date.now() + POLL_INTERVAL_MS <= deadline &&
        !ctx.signal.aborted
      ) {
        await sleep(POLL_INTERVAL_MS, undefined, { signal: ctx.signal }).catch(() => undefined);
        if (ctx.signal.aborted) break;
        read = await readWorkloadStatus(ctx.kube, kind, namespace, name);
      }
      const result: GetRolloutStatusOutput = {
        cluster: ctx.cluster,
        namespace,
        name,
        kind,
        state: read.verdict.state,
        reason: null,
        message: read.verdict.message,
        revision: read.revision,
        generation: read.object.metadata?.generation ?? 0,
        observed_generation: read.object.status?.observedGeneration ?? 0,
        replicas: workloadReplicas(kind, read.object),
        progressing_condition: null,
        waited_seconds: Math.round(((Date.now() - started) / 1000) * 10) / 10,
        controller_revisions: read.revisions,
        strategy: workloadStrategy(kind, read.object),
      };
      return { text: render(result), structured: result };
    }
    let deployment = await ctx.kube.getDeployment(namespace, name);
    let verdict = rolloutVerdict(deployment);
    const started = Date.now();
    const deadline = started + wait_seconds * 1000;
    while (
      verdict.state === 'progressing' &&
      Date.now() + POLL_INTERVAL_MS <= deadline &&
      !ctx.signal.aborted
    ) {
      await sleep(POLL_INTERVAL_MS, undefined, { signal: ctx.signal }).catch(() => undefined);
      if (ctx.signal.aborted) break;
      deployment = await ctx.kube.getDeployment(namespace, name);
      verdict = rolloutVerdict(deployment);
    }
    const result = summarize(
      deployment,
      verdict,
      ctx.cluster,
      namespace,
      name,
      (Date.now() - started) / 1000,
    );
    return { text: render(result), structured: result };
  },
});

function summarize(
  d: Deployment,
  verdict: RolloutVerdict,
  cluster: GetRolloutStatusOutput['cluster'],
  namespace: string,
  name: string,
  waited: number,
): GetRolloutStatusOutput {
  const progressing = conditionOf(d, 'Progressing');
  return {
    cluster,
    namespace,
    name,
    state: verdict.state,
    reason: verdict.state === 'failed' ? verdict.reason : null,
    message: verdict.message,
    revision: revisionOf(d) ?? null,
    generation: d.metadata?.generation ?? 0,
    observed_generation: d.status?.observedGeneration ?? 0,
    replicas: {
      desired: d.spec?.replicas ?? 1,
      updated: d.status?.updatedReplicas ?? 0,
      ready: d.status?.readyReplicas ?? 0,
      available: d.status?.availableReplicas ?? 0,
      total: d.status?.replicas ?? 0,
    },
    progressing_condition: progressing
      ? {
          status: progressing.status,
          reason: progressing.reason ?? null,
          message: progressing.message ?? null,
        }
      : null,
    waited_seconds: Math.round(waited * 10) / 10,
  };
}

function render(r: GetRolloutStatusOutput): string {
  const next: Record<GetRolloutStatusOutput['state'], string> = {
    complete: '',
    progressing: 'Still in progress: call again (wait_seconds up to 45) to keep watching.',
    failed:
      'The rollout will not finish on its own: look at the new Pods (list_pods), their logs and events.',
    paused: 'Paused: the rollout resumes only when the Deployment is resumed.',
    unsupported:
      'With OnDelete, a Pod gets the new template only when it is deleted (delete_pod); list_pods shows which still run the old one.',
  };
  const revisions = r.controller_revisions;
  return [
    `${clusterLine(r.cluster)} — rollout of ${r.kind ?? 'Deployment'} ${r.namespace}/${r.name}: ${r.state.toUpperCase()}${r.reason ? ` (${r.reason})` : ''}`,
    revisions && r.kind === 'StatefulSet'
      ? `currentRevision ${revisions.current ?? '?'} (revision ${revisions.current_number ?? '?'}), updateRevision ${revisions.update ?? '?'} (revision ${revisions.update_number ?? '?'})`
      : '',
    r.strategy && r.kind === 'StatefulSet'
      ? `updateStrategy ${r.strategy.type}${r.strategy.type === 'RollingUpdate' ? ` (partition ${r.strategy.partition ?? 0})` : ''}, podManagementPolicy ${r.strategy.pod_management_policy ?? 'OrderedReady'}`
      : '',
    r.message,
    `Revision ${r.revision ?? '?'}; generation ${r.generation}, observed ${r.observed_generation}; replicas ${r.replicas.desired} desired, ${r.replicas.updated} updated, ${r.replicas.ready} ready, ${r.replicas.available} available, ${r.replicas.total} total${r.waited_seconds > 0 ? `; waited ${r.waited_seconds} s` : ''}.`,
    next[r.state],
  ]
    .filter(Boolean)
    .join('\n');
}
