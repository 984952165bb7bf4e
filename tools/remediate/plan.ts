/**
 * A remediation plan: what one call to a remediation tool will do to one Deployment, computed from
 * what was just read, by a pure `planXxx` function per tool. The same plan serves the dry run (the
 * preview a human approves) and the execution (which recomputes it from a fresh read and sends
 * exactly its request), so what runs is what was shown.
 */
import { digest as canonicalDigest } from '../../core/index.ts';
import { z } from 'zod';
import {
  revisionOf,
  templateWithoutHash,
  equalIgnoreHash,
  type Deployment,
  type KubeReader,
  type KubeWriter,
  type ObjectMeta,
  type PodTemplateSpec,
  type ReplicaSet,
} from '../kube/index.ts';
import { SentinelError } from '../errors.ts';
import { ClusterSchema } from '../investigate/common.ts';
import { ChangeSchema, type Change } from './changes.ts';
import { WarningSchema, type Warning } from './warnings.ts';

/** The object a plan acts on, as observed: reported as the output's `target`. */
export const TargetSchema = z.object({
  kind: z.enum(['Deployment', 'StatefulSet', 'DaemonSet', 'Pod']),
  namespace: z.string(),
  name: z.string(),
  /** Object UID: a Deployment deleted and recreated under the same name is another target. */
  uid: z.string(),
  /**
   * `metadata.generation` when read: moves on every spec change, `spec.replicas` included (an
   * autoscaler moves it). Reported, never part of an effect: the gate records it with an execution
   * as the pre-change generation crash reconciliation compares against (server/gate/reconcile.ts).
   */
  generation: z.number().int(),
});
export type Target = z.infer<typeof TargetSchema>;

/** The target as an effect binds it: which object (kind, namespace, name, uid), not its generation. */
export type EffectTarget = Omit<Target, 'generation'>;

/** The target of a plan, from the object just read (a Deployment unless `kind` says otherwise). */
export function targetOf(object: { metadata?: ObjectMeta }, kind: Target['kind'] = 'Deployment'): Target {
  return { ...effectTargetOf(object, kind), generation: object.metadata?.generation ?? 0 };
}

/**
 * The target as every effect carries it: kind, namespace, name and uid. Not `metadata.generation`:
 * it moves on every spec change, so an autoscaler scaling the Deployment between approval and
 * execution would make an approved rollback stale although nothing the approver saw changed. Each
 * tool's effect binds what its change depends on instead (revisions, template digests, replicas).
 */
export function effectTargetOf(
  object: { metadata?: ObjectMeta },
  kind: Target['kind'] = 'Deployment',
): EffectTarget {
  return {
    kind,
    namespace: object.metadata?.namespace ?? '',
    name: object.metadata?.name ?? '',
    uid: object.metadata?.uid ?? '',
  };
}

/**
 * A short, stable digest of a pod template: 16 hex characters of SHA-256 over its canonical JSON
 * without the `pod-template-hash` label. Equal templates (as `equalIgnoreHash` sees them) give equal
 * digests; used in effects instead of whole templates.
 */
export function podTemplateDigest(template: PodTemplateSpec | undefined): string {
  return digest(templateWithoutHash(template));
}

/** 16 hex characters of SHA-256 over the canonical JSON of `value` (core's strict `digest`). */
export function digest(value: unknown): string {
  return canonicalDigest(value, 16);
}

/**
 * The revision the Deployment controller gives the ReplicaSet that will run `template`: one more
 * than the highest revision among the other ReplicaSets, or the matching ReplicaSet's own revision
 * when that is already higher (`SetNewReplicaSetAnnotations` never moves a revision back). With
 * `template` undefined: a template no ReplicaSet has yet (a restart), so the highest plus one.
 */
export function nextRevision(template: PodTemplateSpec | undefined, owned: readonly ReplicaSet[]): number {
  const matching =
    template === undefined ? undefined : owned.find((rs) => equalIgnoreHash(rs.spec?.template, template));
  const others = owned.filter((rs) => rs !== matching).map((rs) => revisionOf(rs) ?? 0);
  return Math.max(revisionOf(matching ?? {}) ?? 0, Math.max(0, ...others) + 1);
}

/** Readers and writers an execution may use. */
export interface PlanClients {
  writer: KubeWriter;
  reader: KubeReader;
}

/** What one call will do. Built by a tool's pure `planXxx` function. */
export interface RemediationPlan {
  tool: string;
  /** The Deployment as read; the request is computed from it. */
  deployment: Deployment;
  /**
   * One sentence a tired human can judge, e.g. "Roll back Deployment shop/checkout from revision 7
   * (checkout:2.4.1) to revision 6 (checkout:2.4.0)". For a no-op, says why nothing is done.
   */
  summary: string;
  /** The concrete call (defaults resolved; no `dry_run`, `reason`): executing it does exactly this plan. */
  resolvedArguments: Record<string, unknown>;
  /**
   * JSON fingerprint of the observed target (`effectTargetOf`) and the change: stable while nothing
   * changes (no resourceVersion, no timestamps, no `metadata.generation`), different as soon as
   * something the human saw, or the change depends on, would be different. The gate refuses to run an
   * approved call whose effect moved (stale approval).
   */
  effect: Record<string, unknown>;
  changes: Change[];
  warnings: Warning[];
  /**
   * The pod template before and after, when the change rewrites it (a rollback): the output's
   * `template_diff` is computed from them (`templateDiff`). Absent for changes that do not.
   */
  templates?: { from: PodTemplateSpec | undefined; to: PodTemplateSpec | undefined };
  /** The revision the change creates (as the controller will number it), when one results. */
  newRevision?: number;
  /**
   * For a rollback: the revision whose template it restores, and the applied result's summary. The
   * controller renumbers that template as `newRevision` (as after `kubectl rollout undo`), so the
   * result says "to revision 6's template, now revision 8".
   */
  restored?: { revision: number; summary: string };
  /** What the change-cause records, e.g. `roll back to revision 6`. */
  action: string;
  /** Whether the change makes a new revision (then the change-cause describes it). */
  makesRevision: boolean;
  /**
   * Sends the change with Sentinel's attribution annotations (`stamps`) and returns the Deployment
   * as it is right after. Absent when the plan is a no-op: nothing is sent.
   */
  apply?: (clients: PlanClients, stamps: Record<string, string>) => Promise<Deployment>;
}

/**
 * A plan acting on a StatefulSet, a DaemonSet or a Pod (issue 15): the same contract as
 * `RemediationPlan`, with the object read and its kind in place of `deployment`, and how to judge
 * the rollout right after the change (absent: no rollout, e.g. a Pod deletion).
 */
export interface ObjectPlan extends Omit<RemediationPlan, 'deployment' | 'apply'> {
  kind: 'StatefulSet' | 'DaemonSet' | 'Pod';
  object: { metadata?: ObjectMeta };
  /** The rollout status of the object the write answered with. */
  verdict?: (written: never) => { state: string; message: string; reason?: string };
  apply?: (clients: PlanClients, stamps: Record<string, string>) => Promise<unknown>;
}

export const REMEDIATION_STATUSES = ['preview', 'applied', 'no_op'] as const;

export const RolloutStatusSchema = z.object({
  /** `unsupported`: kubectl cannot wait for this rollout (a StatefulSet or DaemonSet with strategy OnDelete). */
  state: z.enum(['complete', 'progressing', 'failed', 'paused', 'unsupported']),
  message: z.string(),
  reason: z.string().optional(),
});

/** At most this many changes are returned in `changes`; the rest are counted in `changes_omitted`. */
export const MAX_CHANGES = 200;

/** The `structuredContent` of every remediation tool, for a dry run and for an execution alike. */
export const RemediationOutputSchema = z.object({
  tool: z.string(),
  /** `preview`: dry run of a change; `applied`: the change was sent; `no_op`: nothing to do, nothing sent. */
  status: z.enum(REMEDIATION_STATUSES),
  dry_run: z.boolean(),
  summary: z.string(),
  cluster: ClusterSchema,
  target: TargetSchema,
  resolved_arguments: z.record(z.string(), z.unknown()),
  effect: z.record(z.string(), z.unknown()),
  changes: z.array(ChangeSchema),
  /** Changes left out of `changes` (beyond the first 200). */
  changes_omitted: z.number().int().optional(),
  warnings: z.array(WarningSchema),
  /**
   * The pod template change as a unified diff (current → proposed; YAML, keys sorted, redacted), for
   * changes that rewrite the template (a rollback). Absent otherwise; `""` never appears.
   */
  template_diff: z.string().optional(),
  /** The revision the change creates, numbered as the Deployment controller does. */
  new_revision: z.number().int().optional(),
  /** `kubectl rollout status` verdict right after the change (execution only). */
  rollout_status: RolloutStatusSchema.optional(),
  /** What was recorded on the Deployment (execution only). */
  recorded: z.object({ field_manager: z.string(), annotations: z.record(z.string(), z.string()) }).optional(),
});
export type RemediationOutput = z.infer<typeof RemediationOutputSchema>;

/**
 * The refusal for a paused Deployment, as kubectl refuses `rollout undo` and `rollout restart` of
 * one: `SentinelError('refused')` saying nothing was sent and how to resume first.
 */
export function pausedRefusal(deployment: Deployment, action: string, kubectlSays: string): SentinelError {
  const namespace = deployment.metadata?.namespace ?? '';
  const name = deployment.metadata?.name ?? '';
  return new SentinelError(
    'refused',
    `Deployment ${namespace}/${name} is paused, and a paused Deployment cannot be ${action} (${kubectlSays}); nothing was sent. Resume it first with resume_rollout ${JSON.stringify({ namespace, name })} (kubectl rollout resume deployment/${name} -n ${namespace}), then try again.`,
    { kind: 'Deployment', namespace, name },
  );
}
