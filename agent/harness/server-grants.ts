/**
 * What harness mode needs from the Sentinel server, as an interface: a dry-run preview of a pending
 * call, and a grant for that exact call created and approved by the human before the harness is told
 * "allow". The harness's approval alone never runs anything: the server enforces its own gate, and
 * this grant is what lets the harness's identical call through, once.
 */

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
}

export interface ServerGrantClient {
  /**
   * Makes sure the server will let this exact call from requester `trueforge` (the harness's
   * identity) through once: creates an approval request approved in the same step by the human's
   * approver token (`POST /approvals`), or reuses such a grant still unused. `preview` is the call's
   * dry run, when one was made. Throws `SentinelError` when the server refuses (policy denies, token
   * not an approver, unreachable).
   */
  preapprove(call: SentinelToolCall, preview?: PreviewLike): Promise<ServerGrant>;
  /**
   * The call's effect as a dry run, without changing anything; undefined when the tool has no dry
   * run. Throws `SentinelError` when the server cannot be reached.
   */
  preview(call: SentinelToolCall): Promise<PreviewLike | undefined>;
  /** Releases connections. */
  close(): Promise<void>;
}
