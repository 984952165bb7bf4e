/**
 * What harness mode needs from the Sentinel server, as an interface: a dry-run preview of a pending
 * call, and a grant for that exact call created and approved by the human before the harness is told
 * "allow". The harness's approval alone never runs anything: the server enforces its own gate, and
 * this grant is what lets the harness's identical call through, once.
 */

import type { ClientRef, Confirmation } from '../../server/index.ts';
import type { Risk } from '../../tools/index.ts';

export type { ClientRef };

/** A Sentinel tool call exactly as the model asked for it. */
export interface SentinelToolCall {
  /** Tool name, e.g. `rollback_deployment`. */
  tool: string;
  /** Arguments exactly as the model sent them (the server canonicalises them). */
  arguments: Record<string, unknown>;
}

/** A dry-run preview as the tool returned it. */
export interface PreviewLike {
  /** The tool's text output for the preview. */
  text: string;
  /** The tool's `structuredContent`, when it has one. */
  structured?: Record<string, unknown> | undefined;
}

/** A decision the Sentinel server holds for one harness tool call (its approval request). */
export interface ServerAnswer {
  /** The approval request id. */
  id: string;
  decision: 'allow' | 'deny';
  /** The approver who decided. */
  by: string;
  /** ISO 8601 time of the decision. */
  at: string;
  /** The request's status now (approved, executed, denied, ...). */
  status: string;
  reason: string | null;
}

/** What the server did for one approved call. */
export interface ServerGrant {
  /**
   * Id of the approval request created and approved for the call (its grant lets the harness's
   * identical call through once); undefined when the policy lets the call run without approval.
   */
  id: string | undefined;
  /** The policy rule that allows the call without approval, when `id` is undefined. */
  allowedByRule?: string | undefined;
  /** True when an approved, unused grant for the same call already existed and is reused. */
  reused?: boolean | undefined;
  /**
   * Set when the harness tool call (`client_ref`) was already decided at the server: that first
   * decision stands — maybe a deny — and nothing new was granted.
   */
  existing?: ServerAnswer | undefined;
}

/** A harness tool call put up for a decision at the server (a pending approval request). */
export interface HeldCall {
  /** The approval request id. */
  id: string;
  /** `pending` while undecided; then `approved`, `denied`, `executed`, `expired`, `cancelled`, ... */
  status: string;
  /** The decision once one was made (on the page, with `approvals approve|deny`, or here). */
  answer?: ServerAnswer | undefined;
  /** Where approvers decide it: the server's approvals page. */
  pageUrl: string;
  /**
   * What approving it needs typed (a dangerous request: destructive, or a scale to 0), by the rule
   * the approvals page enforces (`confirmationFor` of the request as the server holds it);
   * undefined when y/N is enough.
   */
  confirmation?: Confirmation | undefined;
}

export interface ServerGrantClient {
  /**
   * Makes sure the server will let this exact call from requester `trueforge` (the harness's
   * identity) through once: creates an approval request approved in the same step by the human's
   * approver token (`POST /approvals`), or reuses such a grant still unused. `preview` is the call's
   * dry run, when one was made. Throws `SentinelError` when the server refuses (policy denies, token
   * not an approver, unreachable).
   */
  preapprove(call: SentinelToolCall, preview?: PreviewLike, ref?: ClientRef): Promise<ServerGrant>;
  /**
   * Records the human's "no" for this exact call and requester at the server (`POST /approvals` with
   * `decision: deny` and the reason), before the deny goes to the harness. Returns the request
   * recording it — or the first decision of `ref`, when it had one (`existing: true`) — or undefined
   * when the policy needs no approval for the call. Throws `SentinelError` when the server refuses.
   */
  recordDenial(
    call: SentinelToolCall,
    reason: string,
    ref: ClientRef,
  ): Promise<(ServerAnswer & { existing: boolean }) | undefined>;
  /**
   * Puts this exact call up for a decision at the server while the terminal asks (`POST /approvals`
   * with `decision: ask` and `ref`): a pending request of requester `trueforge` that any approver of
   * the call can decide on the page or with `approvals approve|deny`; `preapprove`/`recordDenial`
   * with the same `ref` then decide that request (the terminal's answer) unless someone decided it
   * first. Returns the request as it stands (the first one for `ref`, when there was one), or
   * undefined when the policy needs no approval for the call. Throws `SentinelError` when the server
   * refuses or cannot be reached.
   */
  hold(call: SentinelToolCall, ref: ClientRef): Promise<HeldCall | undefined>;
  /** Request `id` (from `hold`) as it stands now. Throws `SentinelError` when it cannot be read. */
  held(id: string): Promise<HeldCall>;
  /** The decision the server already holds for this harness tool call, if any. */
  answerFor(ref: ClientRef): Promise<ServerAnswer | undefined>;
  /**
   * The call's effect as a dry run, without changing anything; undefined when the tool has no dry
   * run. Throws `SentinelError` when the server cannot be reached.
   */
  preview(call: SentinelToolCall): Promise<PreviewLike | undefined>;
  /**
   * The tool's risk as the server publishes it in its tools/list annotations (`destructiveHint`
   * true: destructive; `readOnlyHint` true: read; `readOnlyHint` false: write); undefined for a tool
   * it does not list or lists without those hints. Throws `SentinelError` when the server cannot be
   * reached.
   */
  risk(tool: string): Promise<Risk | undefined>;
  /** Releases connections. */
  close(): Promise<void>;
}
