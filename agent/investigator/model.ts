/**
 * The investigation record of the local investigator: everything a run knows, saved in the data
 * directory after every step so another process can resume it (`sentinel investigate --resume
 * inv_...`). A record is the transcript (every call, its result and its approval request), the
 * evidence and decision drawn from it, the remediation and its verification.
 */
import { randomBytes } from 'node:crypto';
import { z } from 'zod';

/** `inv_` followed by 16 lowercase hex digits. */
export const InvestigationIdSchema = z
  .string()
  .regex(/^inv_[0-9a-f]{16}$/, 'must be an investigation id: inv_ followed by 16 hex digits');

/** A fresh investigation id (`inv_` + 64 random bits in hex). */
export function newInvestigationId(): string {
  return `inv_${randomBytes(8).toString('hex')}`;
}

/**
 * What became of one tool call:
 * - `not_run`: not sent (its step waits for an approval, or was abandoned);
 * - `held`: the gate holds it as a pending approval request (nothing ran);
 * - `approved`: its request was approved; the identical retry has not run yet;
 * - `succeeded` / `failed`: it ran (`failed`: the tool or the gate answered with an error);
 * - `declined`: a human denied its request, or the policy denied the call.
 * - `expired`: its request expired or went stale before it could run.
 */
export const CallStatusSchema = z.enum([
  'not_run',
  'held',
  'approved',
  'succeeded',
  'failed',
  'declined',
  'expired',
]);
export type CallStatus = z.infer<typeof CallStatusSchema>;
export const CALL_STATUSES = CallStatusSchema.options;

export const CallRecordSchema = z.object({
  tool: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  /** Whether the tool reads only (from its MCP annotations): read calls never wait for approval. */
  read_only: z.boolean(),
  status: CallStatusSchema,
  approval_request_id: z.string().nullable(),
  /** The result's text (what a model would see), for the transcript; null until answered. */
  text: z.string().nullable(),
  /** The result's `structuredContent`, the input of the playbook; null when there is none. */
  structured: z.record(z.string(), z.unknown()).nullable(),
  /** The error's code when the tool failed (`not_found`, `forbidden`, ...; from `_meta.error.code`). */
  error_code: z.string().nullable().default(null),
});
export type CallRecord = z.infer<typeof CallRecordSchema>;

/**
 * - `running`: calls are being made;
 * - `awaiting_approval`: held calls wait for a decision; no call of the step runs before;
 * - `done`: every call ran;
 * - `declined`: an approval was denied (or the policy denied a call): the step's calls did not run;
 * - `failed`: a call failed, or an approval expired.
 */
export const StepStatusSchema = z.enum(['running', 'awaiting_approval', 'done', 'declined', 'failed']);
export type StepStatus = z.infer<typeof StepStatusSchema>;

/** A batch of calls that runs all together or not at all (docs/DESIGN.md, "Local mode"). */
export const StepSchema = z.object({
  /** Stable name, e.g. `triage`, `evidence:checkout`, `remediate`. */
  name: z.string(),
  status: StepStatusSchema,
  calls: z.array(CallRecordSchema),
  started_at: z.iso.datetime(),
  finished_at: z.iso.datetime().nullable(),
});
export type Step = z.infer<typeof StepSchema>;

/** One supporting line, quoted exactly as the tool returned it, and where it came from. */
export const EvidenceSchema = z.object({
  /** The call that returned it, e.g. `list_pods namespace=shop deployment=checkout`. */
  source: z.string(),
  line: z.string(),
});
export type Evidence = z.infer<typeof EvidenceSchema>;

export const ObjectRefSchema = z.object({ kind: z.string(), namespace: z.string(), name: z.string() });
export type ObjectRef = z.infer<typeof ObjectRefSchema>;

/** A remediation call, exactly as it will be made (without `dry_run`). */
export const RemediationCallSchema = z.object({
  tool: z.string(),
  arguments: z.record(z.string(), z.unknown()),
});
export type RemediationCall = z.infer<typeof RemediationCallSchema>;

/**
 * What the playbook decided. `action`:
 * - `rollback` / `restart`: `remediation` holds the call to propose;
 * - `none`: nothing needs (or can usefully get) a remediation; `explanation` says why;
 * - `refused`: something is wrong but the tools must not or cannot fix it (`refusal` names why:
 *   e.g. `deployment-paused`, `unschedulable`, `oom-no-recent-change`);
 * - `not_found`: what the user asked about is not there (a Deployment the cluster does not have, a
 *   namespace with nothing in it); `evidence` holds the answers that show it.
 */
export const DecisionSchema = z.object({
  action: z.enum(['rollback', 'restart', 'none', 'refused', 'not_found']),
  refusal: z.string().nullable(),
  culprit: ObjectRefSchema.nullable(),
  /** The failure mode, e.g. `crash_loop`, `image_pull`, `oom_killed`, `probe_failure`; null when healthy. */
  cause: z.string().nullable(),
  /** One sentence: what is wrong and since when. */
  diagnosis: z.string(),
  /** Why this action (or why none). */
  explanation: z.string(),
  remediation: RemediationCallSchema.nullable(),
  evidence: z.array(EvidenceSchema),
  /**
   * Structured diagnosis facts (what `expected.facts` of a scenario checks), e.g. `failure:
   * liveness_probe`, `exit_code: 137`, `memory_limit: 128Mi`, `changed_field: requests.cpu`,
   * `pull_secret: regcred`, `affected: Deployment shop/checkout`.
   */
  facts: z.record(z.string(), z.union([z.string(), z.number(), z.boolean()])).default({}),
});
export type Decision = z.infer<typeof DecisionSchema>;

/**
 * The proposed remediation's life: `previewed` (dry run shown), `awaiting_approval`, `executed`,
 * `declined` (a human or the policy said no), `failed` (it ran and failed, went stale, or its
 * approval expired).
 */
export const ActionStatusSchema = z.enum([
  'previewed',
  'awaiting_approval',
  'executed',
  'declined',
  'failed',
]);
export type ActionStatus = z.infer<typeof ActionStatusSchema>;

export const ActionSchema = RemediationCallSchema.extend({
  status: ActionStatusSchema,
  /** The dry run's one-sentence summary, e.g. "Roll back Deployment shop/checkout from revision 3 ...". */
  preview: z.string().nullable(),
  approval_request_id: z.string().nullable(),
  /** Who decided, and their reason (a denial's reason is required). */
  decided_by: z.string().nullable(),
  /**
   * Who made the call, so who executed it once approved (the request's `requester`, the identity
   * the audit records for the execution); null in records older than issue 18.
   */
  requested_by: z.string().nullable().default(null),
  decision_reason: z.string().nullable(),
  /** First line of the execution's (or the refusal's) result. */
  outcome: z.string().nullable(),
  /** The preview's warnings (GitOps, HPA, target revision health), carried into the report. */
  warnings: z.array(z.object({ kind: z.string(), message: z.string() })).default([]),
});
export type Action = z.infer<typeof ActionSchema>;

/**
 * A second change the remediation needs, proposed after it ran, with its own preview, approval
 * request and evidence: `forced_rollback` — deleting the Pod an OrderedReady StatefulSet is stuck
 * on after a rollback (./playbook/forced-rollback.ts).
 */
export const FollowUpSchema = ActionSchema.extend({
  purpose: z.enum(['forced_rollback']),
  /** Why it is proposed: the lines the check saw, with the call that returned each. */
  evidence: z.array(EvidenceSchema),
});
export type FollowUp = z.infer<typeof FollowUpSchema>;

/**
 * `get_rollout_status` after the remediation, polled until settled or out of attempts, then the
 * settle window: `state` `reverted` (not healthy) when another field manager changed the template.
 */
export const VerificationSchema = z.object({
  healthy: z.boolean(),
  state: z.string(),
  message: z.string(),
  attempts: z.number().int(),
  /** Set when another field manager changed the approved template during the settle window. */
  reverted_by: z.string().optional(),
  reverted_at: z.string().nullable().optional(),
  /** Seconds (cluster time) the approved template was watched after the rollout completed. */
  settle_seconds: z.number().optional(),
});
export type Verification = z.infer<typeof VerificationSchema>;

export const INVESTIGATION_STATUSES = ['running', 'awaiting_approval', 'done', 'failed'] as const;
export const InvestigationStatusSchema = z.enum(INVESTIGATION_STATUSES);
export type InvestigationStatus = z.infer<typeof InvestigationStatusSchema>;

/** Where the investigation's MCP server is: a URL, or an in-process server on this cluster. */
export const ServerTargetSchema = z.union([
  z.object({ kind: z.literal('url'), url: z.string() }),
  z.object({
    kind: z.literal('in-process'),
    kubeconfig: z.string().nullable(),
    context: z.string().nullable(),
  }),
]);
export type ServerTarget = z.infer<typeof ServerTargetSchema>;

export const InvestigationSchema = z.object({
  version: z.literal(1),
  id: InvestigationIdSchema,
  symptom: z.string(),
  namespace: z.string(),
  /** The Deployment the user pointed at, if any. */
  deployment: z.string().nullable(),
  server: ServerTargetSchema,
  status: InvestigationStatusSchema,
  created_at: z.iso.datetime(),
  updated_at: z.iso.datetime(),
  steps: z.array(StepSchema),
  /** Approval requests the investigation waits for (ids `apr_...`). */
  pending_approval_ids: z.array(z.string()),
  decision: DecisionSchema.nullable(),
  action: ActionSchema.nullable(),
  /** Changes proposed after the remediation ran (absent from records older than issue 15). */
  follow_ups: z.array(FollowUpSchema).default([]),
  verification: VerificationSchema.nullable(),
  /** Why the investigation failed, when it did. */
  error: z.string().nullable(),
});
export type Investigation = z.infer<typeof InvestigationSchema>;

/** A new investigation record, not yet saved. */
export function newInvestigation(input: {
  symptom: string;
  namespace: string;
  deployment?: string | undefined;
  server: ServerTarget;
  now?: Date;
}): Investigation {
  const now = (input.now ?? new Date()).toISOString();
  return {
    version: 1,
    id: newInvestigationId(),
    symptom: input.symptom,
    namespace: input.namespace,
    deployment: input.deployment ?? null,
    server: input.server,
    status: 'running',
    created_at: now,
    updated_at: now,
    steps: [],
    pending_approval_ids: [],
    decision: null,
    action: null,
    follow_ups: [],
    verification: null,
    error: null,
  };
}
