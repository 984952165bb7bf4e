/**
 * The approval request as every consumer sees it: the approvals API (`GET /approvals/{id}`), the
 * approvals page and CLI, notifications, the local investigator and the harness client. This module
 * is the one definition of that JSON shape and of the approvals API bodies; nothing else redefines
 * them.
 *
 * Lifecycle of `status`:
 *   pending ──approve──▶ approved ──first matching retry──▶ executing ──▶ executed | failed
 *      │                    │                                   └──(target changed)──▶ stale
 *      ├──deny──▶ denied    └──grant ends unused──▶ expired
 *      ├──withdraw──▶ withdrawn           (approved, unused) ──revoke──▶ cancelled
 *      ├──expires_at passes──▶ expired
 *      ├──requester revoked or re-keyed──▶ cancelled   (also an approved, unused grant)
 *      └──re-requested with a different effect──▶ superseded (`superseded_by` names the new request)
 * A `window` grant stays `approved` while its window lasts; every call it lets through is listed in
 * `executions`.
 */
import { ClusterSchema } from '../../core/index.ts';
import ms from 'ms';
import { z } from 'zod';
import { APPROVAL_STATUSES } from './approval-status.ts';
import { sanitizeText } from '../../tools/light.ts';

/** An ISO 8601 UTC timestamp, e.g. `2025-01-31T02:10:00.000Z`. */
export const TimestampSchema = z.iso.datetime();

/**
 * A duration such as `90s`, `15m`, `1h`, `2d` (the `ms` package's syntax). Must be positive.
 */
export const DurationSchema = z
  .string()
  .min(1)
  .refine((value) => {
    const parsed = ms(value as ms.StringValue);
    return typeof parsed === 'number' && Number.isFinite(parsed) && parsed > 0;
  }, 'must be a positive duration such as "90s", "15m", "1h" or "2d"');

/** Milliseconds of a duration accepted by `DurationSchema`. */
export function durationMs(duration: string): number {
  return ms(duration as ms.StringValue);
}

export { APPROVAL_STATUSES };
export const ApprovalStatusSchema = z.enum(APPROVAL_STATUSES);
export type ApprovalStatus = z.infer<typeof ApprovalStatusSchema>;

/**
 * How long an approval lasts. `once` (the default): the exact resolved call, one execution.
 * `{ window: "15m" }`: any call of the same tool by the same requester on the same cluster that
 * matches the same policy rules, for that long after the decision.
 */
export const GrantValiditySchema = z.union([
  z.literal('once'),
  z.strictObject({ window: DurationSchema.describe('How long the grant lasts after approval, e.g. "15m".') }),
]);
export type GrantValidity = z.infer<typeof GrantValiditySchema>;

/** The cluster a call runs against (kubeconfig context and API server URL): core's one schema. */
export { ClusterSchema };

/** One line of the requester's evidence, and the call that returned it (the gate-owned `evidence` argument). */
export const ApprovalEvidenceSchema = z.object({ line: z.string(), call: z.string() });
export type ApprovalEvidence = z.infer<typeof ApprovalEvidenceSchema>;

/**
 * What the human is shown: the tool's dry-run preview, captured when the request was created, with
 * what the requester gave to justify the call (`evidence`, `investigation`: the gate-owned arguments,
 * never matched). `effect` is the JSON fingerprint of the observed target and the change (the
 * object's uid, template hashes, from/to revisions, images, replicas — not `metadata.generation`,
 * which an autoscaler moves); the gate recomputes it right before executing and refuses to execute
 * when it differs (stale approval). A request recorded before effects stopped binding the generation
 * (its effect's `target` has `generation`) is therefore refused as stale once at its retry, naming
 * `target.generation: N → absent` — conservative, never run on an outdated comparison; a pending one
 * is superseded by the next identical call and its check (`GET /approvals/{id}/check`) lists the same
 * field. Crash reconciliation still reads it from executions recorded then (`executionTarget`).
 */
export const ApprovalPreviewSchema = z.object({
  /** One sentence, e.g. "Roll back Deployment shop/checkout from revision 7 (checkout:2.4.1) to revision 6 (checkout:2.4.0)". */
  summary: z.string(),
  /** Itemised changes (images, env, resources, replicas), as the tool reports them. */
  changes: z.array(z.unknown()),
  /** Warnings such as GitOps or HPA ownership. */
  warnings: z.array(z.unknown()),
  effect: z.unknown(),
  /** The dry run's text output, as the model saw it. */
  text: z.string(),
  /** The pod template change as a unified diff (current → proposed), for changes that rewrite it. */
  template_diff: z.string().optional(),
  /** The requester's evidence lines, each with the call that returned it (absent when none was given). */
  evidence: z.array(ApprovalEvidenceSchema).optional(),
  /** The investigation or harness session the call comes from, as the requester named it. */
  investigation: z.string().optional(),
});
export type ApprovalPreview = z.infer<typeof ApprovalPreviewSchema>;

/**
 * What a window grant of this request would cover, beyond the call in front of the approver (issue
 * 13, finding 7). Recorded when the request is created, for requests whose rule offers a window.
 */
export const WindowCoverageSchema = z.object({
  /**
   * The matching conditions of every rule a covered call must match, as written in the policy
   * (`rule` plus any of `tool`, `risk`, `cluster`, `requester`, `dry_run`, `args`). A covered call
   * matches exactly this set of rules (no other, no stricter one).
   */
  conditions: z.array(z.object({ rule: z.string() }).catchall(z.unknown())),
  /** Arguments of the tool no rule constrains: a covered call may give them any value. */
  free_arguments: z.array(z.string()),
  /**
   * A call the window would let through that differs from this request's call (checked against the
   * policy when recorded); null when none was found (the window then repeats this call only).
   */
  example: z
    .object({ arguments: z.record(z.string(), z.unknown()), differs_in: z.array(z.string()) })
    .nullable(),
});
export type WindowCoverage = z.infer<typeof WindowCoverageSchema>;

/** The policy verdict that held the call. */
export const ApprovalPolicySchema = z.object({
  /** Name of the matched rule (the first matching rule with the winning decision), or `default:<risk>`. */
  rule: z.string(),
  /** Names of every rule with the winning decision, in file order. */
  rules: z.array(z.string()),
  /** Why a human must look, shown to the approver. */
  reason: z.string(),
  /** The longest validity an approver may grant (the most restrictive among the matched rules). */
  validity: GrantValiditySchema,
  /** Who may decide: identity names and `role:<role>` entries. Admins may decide as a fallback. */
  approvers: z.array(z.string()),
  /** When `validity` offers a window: what such a window would cover (absent on older records). */
  window: WindowCoverageSchema.optional(),
});
export type ApprovalPolicy = z.infer<typeof ApprovalPolicySchema>;

export const ApprovalDecisionSchema = z.object({
  decision: z.enum(['allow', 'deny']),
  /** Identity name of the approver. */
  by: z.string(),
  at: TimestampSchema,
  /** Required for `deny`; optional for `allow`. */
  reason: z.string().nullable(),
  /** True when the approver decided through the admin fallback, not as a listed approver. */
  admin_fallback: z.boolean(),
});
export type ApprovalDecision = z.infer<typeof ApprovalDecisionSchema>;

/** What a grant lets through, shown to the approver (API, CLI, page) so a window is never a surprise. */
export const GrantScopeSchema = z.object({
  /** `call`: exactly the resolved call, once. `rules`: any call of `tool` the same `rules` match. */
  kind: z.enum(['call', 'rules']),
  requester: z.string(),
  tool: z.string(),
  /** The cluster calls must run against (context name and API server URL); null when none is configured. */
  cluster: ClusterSchema.nullable(),
  /** For `rules`: the policy rules a call must match (exactly this set) to be covered. */
  rules: z.array(z.string()),
  /** One sentence, e.g. "any scale_deployment call by agent on context kind (https://…) that matches policy rule staging-window, until 2025-01-31T03:10:00.000Z". */
  description: z.string(),
});
export type GrantScope = z.infer<typeof GrantScopeSchema>;

export const ApprovalGrantSchema = z.object({
  validity: GrantValiditySchema,
  /** When the grant stops letting calls through. */
  expires_at: TimestampSchema,
  /** What the grant covers (absent on grants recorded before it existed). */
  scope: GrantScopeSchema.optional(),
});
export type ApprovalGrant = z.infer<typeof ApprovalGrantSchema>;

export const EXECUTION_STATUSES = ['executing', 'succeeded', 'failed', 'stale', 'interrupted'] as const;
export const ExecutionStatusSchema = z.enum(EXECUTION_STATUSES);
export type ExecutionStatus = z.infer<typeof ExecutionStatusSchema>;

/** One execution of a call let through by this request's grant. */
export const ApprovalExecutionSchema = z.object({
  id: z.string(),
  status: ExecutionStatusSchema,
  /** The arguments that were (or are being) executed. */
  arguments: z.record(z.string(), z.unknown()),
  started_at: TimestampSchema,
  finished_at: TimestampSchema.nullable(),
  /** One line: what happened (the result's first line, the stale difference, or the reconciliation). */
  outcome: z.string().nullable(),
});
export type ApprovalExecution = z.infer<typeof ApprovalExecutionSchema>;

/**
 * The harness tool call an approval answers (`POST /approvals` from the CLI in harness mode), or the
 * harness approval an upstream execution used. One harness tool call — one model call — gets one
 * decision: a second `POST /approvals` with a `client_ref` naming the same harness, session and
 * tool call returns the first request (200) instead of making a second grant. The turn id is
 * recorded (it says which paused turn was answered) but not part of that identity: a harness replay
 * re-sends the call from another turn.
 */
export const ClientRefSchema = z.strictObject({
  /** The harness base URL, e.g. `http://127.0.0.1:8000` (compared without a trailing `/` or `/api/v1`). */
  harness_url: z.url({ protocol: /^https?$/ }).max(500),
  session_id: z.string().min(1).max(200),
  /** The paused turn whose pending call this answers. */
  turn_id: z.string().min(1).max(200),
  tool_call_id: z.string().min(1).max(200),
});
export type ClientRef = z.infer<typeof ClientRefSchema>;

/** The key two `client_ref`s are the same by: harness URL (normalised), session and tool call. */
export function clientRefKey(ref: ClientRef): string {
  const url = ref.harness_url.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
  return JSON.stringify([url, ref.session_id, ref.tool_call_id]);
}

/** "TrueForge session s1, turn t2, tool call call_7 (http://127.0.0.1:8000)": how people see a ref. */
export function describeClientRef(ref: ClientRef): string {
  return `TrueForge session ${ref.session_id}, turn ${ref.turn_id}, tool call ${ref.tool_call_id} (${ref.harness_url})`;
}

/**
 * For a request made by an upstream execution (`trust_upstream_approval`): what the harness showed
 * and which identity's trust let it run.
 */
export const UpstreamApprovalSchema = z.object({
  /** The trusted identity whose call ran on the harness's approval. */
  identity: z.string(),
  /** The identity setting that allowed it: always `trust_upstream_approval`. */
  trusted_by: z.literal('trust_upstream_approval'),
  /** When the harness recorded the allow (the answering turn's `created_at`). */
  approved_at: TimestampSchema,
});
export type UpstreamApproval = z.infer<typeof UpstreamApprovalSchema>;

/** An approval request, as returned by `GET /approvals/{id}`. */
export const ApprovalRequestSchema = z.object({
  /** `apr_` followed by 16 hex digits. */
  id: z.string(),
  status: ApprovalStatusSchema,
  /** Identity that made the call (for `POST /approvals`, the identity named by the approver). */
  requester: z.string(),
  /** Identity that created the record: the requester, or the approver for `POST /approvals`. */
  created_by: z.string(),
  cluster: ClusterSchema.nullable(),
  tool: z.string(),
  risk: z.enum(['read', 'write', 'destructive']),
  /** The resolved call: exactly what executes on approval (e.g. a rollback with `to_revision` filled in). */
  arguments: z.record(z.string(), z.unknown()),
  /** The call as the requester made it (parsed, defaults applied; without `reason` and `idempotency_key`). */
  requested_arguments: z.record(z.string(), z.unknown()),
  /** The requester's free-text `reason` argument, recorded but never matched. */
  reason: z.string().nullable(),
  policy: ApprovalPolicySchema,
  /** Dry-run preview; null for tools without dry-run support. */
  preview: ApprovalPreviewSchema.nullable(),
  created_at: TimestampSchema,
  /** After this a pending request can no longer be approved and is never executed. */
  expires_at: TimestampSchema,
  decision: ApprovalDecisionSchema.nullable(),
  grant: ApprovalGrantSchema.nullable(),
  executions: z.array(ApprovalExecutionSchema),
  /**
   * Why the request ended without a human's decision: set for `cancelled` (e.g. "identity 'agent'
   * was revoked") and `superseded`. Absent or null otherwise.
   */
  status_reason: z.string().nullable().optional(),
  /** For `superseded`: the id of the request that replaced this one. */
  superseded_by: z.string().nullable().optional(),
  /** The harness tool call this request answers (harness mode), or that an upstream execution used. */
  client_ref: ClientRefSchema.nullable().optional(),
  /** Set when the request records an execution on a harness approval (`trust_upstream_approval`). */
  upstream: UpstreamApprovalSchema.nullable().optional(),
});
export type ApprovalRequest = z.infer<typeof ApprovalRequestSchema>;

/** `GET /approvals` response. Newest first. */
export const ApprovalListSchema = z.object({ approvals: z.array(ApprovalRequestSchema) });
export type ApprovalList = z.infer<typeof ApprovalListSchema>;

/** `GET /approvals` query: every filter optional. */
export const ApprovalListQuerySchema = z.strictObject({
  status: ApprovalStatusSchema.optional(),
  tool: z.string().min(1).optional(),
  requester: z.string().min(1).optional(),
  /** Only requests answering this harness tool call: `clientRefKey` of the ref (a JSON array). */
  client_ref: z.string().min(1).max(1000).optional(),
});
export type ApprovalListQuery = z.infer<typeof ApprovalListQuerySchema>;

/**
 * `GET /approvals/{id}/check`: the request's target re-read now (a read-only dry run of its resolved
 * call) against the preview it was made with, and the freeze. Shown to approvers before they decide;
 * approving stays possible — the gate re-checks at execution and never runs a stale call.
 */
export const ApprovalCheckSchema = z.object({
  id: z.string(),
  checked_at: TimestampSchema,
  /** True when the call would now do something other than its preview showed (or its preview fails). */
  stale: z.boolean(),
  /** One sentence each, e.g. "The target changed since the preview: replicas.from now 4, the preview said 3. …". */
  warnings: z.array(z.string()),
});
export type ApprovalCheck = z.infer<typeof ApprovalCheckSchema>;

/** `POST /approvals/{id}/approve` body (optional). Validity defaults to `once`. */
export const ApproveBodySchema = z.strictObject({ validity: GrantValiditySchema.optional() });
export type ApproveBody = z.infer<typeof ApproveBodySchema>;

/** Longest deny or revoke reason, in characters. */
export const MAX_DECISION_REASON_LENGTH = 1000;

/**
 * A reason a person typed (requester, approver, admin), as every reader gets it: one line, with
 * control, escape, bidi and invisible code points made visible (`\x1b`, `\u202e`, a newline as
 * `\x0a`). Done on the way in, so the API's JSON, the model's tool text, terminals and the page all
 * receive the same clean string and none of them can be made to hide or forge a line.
 */
export function visibleReason(text: string): string {
  return sanitizeText(text);
}

/** A human's reason for a deny or a revoke: required, shown to the requester. */
const DecisionReasonSchema = z
  .string()
  .trim()
  .min(1, 'must not be empty')
  .max(MAX_DECISION_REASON_LENGTH, `must be at most ${MAX_DECISION_REASON_LENGTH} characters`)
  .transform(visibleReason);

/** `POST /approvals/{id}/deny` body: the reason is required and shown to the requester. */
export const DenyBodySchema = z.strictObject({ reason: DecisionReasonSchema });
export type DenyBody = z.infer<typeof DenyBodySchema>;

/**
 * `POST /approvals` body: an approver creates, for a named requester and an exact call, a request
 * approved in the same step (what the CLI does in harness mode before answering the harness).
 */
export const CreateApprovalBodySchema = z
  .strictObject({
    requester: z.string().min(1),
    tool: z.string().min(1),
    arguments: z.record(z.string(), z.unknown()).default({}),
    validity: GrantValiditySchema.optional(),
    /**
     * The preview's `effect` the human was shown (e.g. from the harness's own dry run). When given,
     * the server's dry run must produce the same effect, or the request is refused (409, field
     * `effect`) instead of approving something the human did not see.
     */
    effect: z.unknown().optional(),
    /**
     * The harness tool call this answers. Given, one decision per harness tool call: a later POST with
     * the same ref returns the first request (200) — approved, denied or executed — and makes nothing.
     */
    client_ref: ClientRefSchema.optional(),
    /**
     * `allow` (default): the request is created approved (a grant). `deny`: it is created denied, with
     * `reason` required — the human's "no" recorded where it is enforced: the first identical call of
     * the requester is answered "a human declined this" (`isError`), as after a denial on the page.
     * `ask`: it is created pending (by the requester, or by an approver of the call), for anyone
     * entitled to decide it on the page or with `approvals approve|deny` — what the CLI does while
     * its harness-mode prompt is up; a later `allow`/`deny` POST with the same `client_ref` decides
     * that pending request (the terminal's answer) unless someone decided it first.
     */
    decision: z.enum(['allow', 'deny', 'ask']).optional(),
    /** The human's reason, required for `decision: deny`. */
    reason: z.string().trim().min(1).max(MAX_DECISION_REASON_LENGTH).transform(visibleReason).optional(),
  })
  .refine((body) => body.decision !== 'deny' || body.reason !== undefined, {
    message: 'is required when decision is deny',
    path: ['reason'],
  });
export type CreateApprovalBody = z.infer<typeof CreateApprovalBodySchema>;

/**
 * `POST /approvals` response when the policy lets the call run without approval (e.g. a dry run):
 * status 200 with this body; otherwise 201 with the approved `ApprovalRequest`.
 */
export const ApprovalNotRequiredSchema = z.object({
  approval_required: z.literal(false),
  decision: z.literal('allow'),
  rule: z.string(),
});
export type ApprovalNotRequired = z.infer<typeof ApprovalNotRequiredSchema>;

/** Error body of every 4xx/5xx from the approvals API. */
export const ApiErrorSchema = z.object({
  error: z.object({ code: z.string(), message: z.string(), field: z.string().optional() }),
});
export type ApiError = z.infer<typeof ApiErrorSchema>;

/**
 * `_meta` of a held call's (successful) tool result. Clients key on `approval_status`.
 */
export const PendingResultMetaSchema = z.object({
  approval_status: z.literal('pending'),
  approval_request_id: z.string(),
  expires_at: TimestampSchema,
});
export type PendingResultMeta = z.infer<typeof PendingResultMetaSchema>;

/** `_meta.approval_status` values the gate puts on tool results. */
export const RESULT_APPROVAL_STATUSES = [
  'pending',
  'denied',
  'stale',
  'executed',
  'in_progress',
  'replayed',
  'frozen',
  /** The call needed no approval after all: its preview shows nothing to do (nothing ran). */
  'not_required',
] as const;
export type ResultApprovalStatus = (typeof RESULT_APPROVAL_STATUSES)[number];

/** Freeze state: `GET /freeze`; `POST /freeze {reason}` turns it on, `DELETE /freeze` off (admin). */
export const FreezeStateSchema = z.object({
  frozen: z.boolean(),
  reason: z.string().nullable(),
  by: z.string().nullable(),
  since: TimestampSchema.nullable(),
  /**
   * Where the freeze is kept: the SQLite store's path, or `postgresql`. Every server on that store
   * (one data directory, or one database) shares the one freeze, whichever server was asked.
   */
  store: z.string().optional(),
  /** On `POST /freeze` that found changes frozen already: that freeze (it keeps its `by` and `since`). */
  previous: z
    .object({ reason: z.string().nullable(), by: z.string().nullable(), since: TimestampSchema.nullable() })
    .optional(),
});
export type FreezeState = z.infer<typeof FreezeStateSchema>;

export const FreezeBodySchema = z.strictObject({
  reason: z.string().trim().min(1).max(MAX_DECISION_REASON_LENGTH).transform(visibleReason),
});

/** `POST /approvals/{id}/revoke` body: why an unused grant is taken back. */
export const RevokeBodySchema = z.strictObject({ reason: DecisionReasonSchema });
export type RevokeBody = z.infer<typeof RevokeBodySchema>;
export type FreezeBody = z.infer<typeof FreezeBodySchema>;
