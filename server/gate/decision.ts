/**
 * What the gate decides about one call, as a value (`GateDecision`), and the pure functions that
 * decide it. The gate middleware (gate.ts) gathers the facts — the policy verdicts, the freeze, the
 * call's resolution through its dry run, the store's grants — carries the decision out (execute.ts)
 * and renders it as an MCP result at the edge (messages.ts). The decision is left in the call's
 * notes (`ToolCallNotes.decision`) for the audit log and the metrics.
 *
 * A call is decided in the order the facts become known, each stage pure:
 *   1. `screen`: the policy on the call as sent, the freeze and the idempotency key — before any
 *      dry run (a read the policy allows never touches the store);
 *   2. `decide`: on the resolved call (`ResolvedCall`), with what the store holds for it.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalRequest, FreezeState } from './approval-request.ts';
import type { Verdict } from './policy/evaluate.ts';
import { effectDifference, isNoOpPreview, type Resolution } from './preview.ts';
import type { StoredExecution } from './store/types.ts';

/** The gate's decision about one call. */
export type GateDecision =
  /** The policy denies it (as sent, or as resolved), or the tool is not the registered one. */
  | { kind: 'deny'; verdict: Verdict }
  /** The policy allows it: a read or a preview runs as it is; a change runs as resolved (`execute`). */
  | { kind: 'allow'; verdict: Verdict; execute: boolean }
  /** Changes are frozen. */
  | { kind: 'frozen'; verdict: Verdict; freeze: FreezeState }
  /** Its `idempotency_key` was used before: the earlier execution answers. */
  | { kind: 'replay_refused'; verdict: Verdict; earlier: StoredExecution }
  /** Its dry run fails (or breaks the preview contract): it cannot be judged or approved. */
  | { kind: 'unresolvable'; verdict: Verdict; failed: CallToolResult | Error }
  /** A preview the policy asks about that fails or shows nothing to do: the preview answers. */
  | { kind: 'preview'; verdict: Verdict; result: CallToolResult }
  /** A human denied this call; this is the first identical call since. */
  | { kind: 'denied_before'; verdict: Verdict; request: ApprovalRequest }
  /** Its approved request is executing now. */
  | { kind: 'in_progress'; verdict: Verdict; request: ApprovalRequest }
  /** Its grant's approver cannot be checked now (tokens.yaml does not load): nothing runs. */
  | { kind: 'standing_unknown'; verdict: Verdict; request: ApprovalRequest }
  /** An approved once grant for this call: consume it and execute the approved call. */
  | { kind: 'run_once_grant'; verdict: Verdict; request: ApprovalRequest; recheck: boolean }
  /** An approved grant, but the target changed since the approver saw it: consume, do not run. */
  | { kind: 'stale'; verdict: Verdict; request: ApprovalRequest; difference: string }
  /**
   * A window grant covers it: matched as the approved call itself (`via: 'call'`, executing the
   * approved arguments) or by the window's scope (`via: 'scope'`, executing this call).
   */
  | {
      kind: 'run_window_grant';
      verdict: Verdict;
      request: ApprovalRequest;
      via: 'call' | 'scope';
      recheck: boolean;
    }
  /** A trusted identity's call: runs on a verified harness approval, else is held. */
  | { kind: 'run_upstream'; verdict: Verdict }
  /** Held for a human: a pending request is created or reused. */
  | { kind: 'hold'; verdict: Verdict }
  /** Would be held, but its preview shows nothing to do: nobody needs to approve it. */
  | { kind: 'no_change'; verdict: Verdict; preview: CallToolResult };

export type GateDecisionKind = GateDecision['kind'];

/** What `screen` reads: the call as sent and the store's freeze and idempotency facts. */
export interface ScreenFacts {
  /** Whether the call's tool is the one the registry holds under its name. */
  registered: boolean;
  verdict: Verdict;
  /** Whether the call would change the cluster (a write/destructive tool, not a preview). */
  changes: boolean;
  /** Read only for a change. */
  freeze?: FreezeState;
  /** The execution that used the call's `idempotency_key`, if any. */
  earlier?: StoredExecution;
}

/** Stage 1. A decision before the dry run, or undefined: resolve the call and `decide`. */
export function screen(facts: ScreenFacts): GateDecision | undefined {
  const { verdict } = facts;
  if (!facts.registered || verdict.decision === 'deny') return { kind: 'deny', verdict };
  if (verdict.decision === 'allow' && !facts.changes) return { kind: 'allow', verdict, execute: false };
  if (facts.changes && facts.freeze?.frozen) return { kind: 'frozen', verdict, freeze: facts.freeze };
  if (facts.earlier) return { kind: 'replay_refused', verdict, earlier: facts.earlier };
  return undefined;
}

/** A call resolved through its dry run (once per call), judged again as resolved. */
export type ResolvedCall =
  | {
      /** The stricter of the verdicts on the call as sent and as resolved. */
      verdict: Verdict;
      resolution: Resolution;
      /** The dry run's result, when one ran. */
      preview?: CallToolResult;
      /** `callKey` of the resolved call. */
      resolvedKey: string;
    }
  | { verdict: Verdict; failed: CallToolResult | Error };

/** How a grant's approver stands now (`approverStanding`): `void` grants are not used. */
export type Standing = 'stands' | 'void' | 'unknown';

/** What the store holds for an `ask` (read only when `needsStore` says so). */
export interface AskFacts {
  /** For a preview the policy asks about: its result (run before the store is consulted). */
  previewOnly?: CallToolResult;
  /** A human's denial of this call, not yet delivered (claimed now). */
  denial?: ApprovalRequest;
  /** The approved (or executing) request for this call, with its approver's standing. */
  approved?: { request: ApprovalRequest; standing: Standing };
  /** A window grant whose scope covers the call, with its approver's standing. */
  window?: { request: ApprovalRequest; standing: Standing };
  /** Whether the identity trusts its harness's approval for this tool (and the call is no preview). */
  upstream: boolean;
}

/** Whether a preview-only ask answers by its own preview (it fails, or shows nothing to do). */
export function previewAnswers(result: CallToolResult | undefined): result is CallToolResult {
  return result !== undefined && (result.isError === true || isNoOpPreview(result));
}

/**
 * The stale check of an approved request about to run: compared on this call's own resolution
 * when it resolved to the approved call (`same`), else left to a fresh preview (`recheck`).
 */
function approvedRun(
  resolved: Extract<ResolvedCall, { resolution: unknown }>,
  request: ApprovalRequest,
  approvedKey: string,
  supportsDryRun: boolean,
): { recheck: boolean; difference?: string } {
  const window = request.grant !== null && request.grant.validity !== 'once';
  const preview = window && request.executions.length > 0 ? null : request.preview;
  if (!preview || !supportsDryRun || request.arguments.dry_run === true) return { recheck: false };
  if (!resolved.preview || resolved.resolvedKey !== approvedKey) return { recheck: true };
  const difference = effectDifference(preview.effect ?? null, resolved.resolution.preview?.effect ?? null);
  return difference === undefined ? { recheck: false } : { recheck: false, difference };
}

/** The decision an approved request (matched by the call) makes. */
function fromApproved(
  resolved: Extract<ResolvedCall, { resolution: unknown }>,
  request: ApprovalRequest,
  approvedKey: string,
  supportsDryRun: boolean,
): GateDecision {
  const { verdict } = resolved;
  if (request.status === 'executing') return { kind: 'in_progress', verdict, request };
  const run = approvedRun(resolved, request, approvedKey, supportsDryRun);
  if (run.difference !== undefined) return { kind: 'stale', verdict, request, difference: run.difference };
  if (request.grant !== null && request.grant.validity !== 'once') {
    return { kind: 'run_window_grant', verdict, request, via: 'call', recheck: run.recheck };
  }
  return { kind: 'run_once_grant', verdict, request, recheck: run.recheck };
}

/** Whether `decide` needs the store's facts (`AskFacts`) for this resolved call. */
export function needsStore(resolved: ResolvedCall): boolean {
  return !('failed' in resolved) && resolved.verdict.decision === 'ask';
}

/**
 * Stage 2, pure: the decision on the resolved call. `facts` must be given when `needsStore`;
 * `approvedKey` is the `callKey` of `facts.approved.request.arguments`; `supportsDryRun` the tool's.
 */
export function decide(
  resolved: ResolvedCall,
  facts: AskFacts | undefined,
  tool: { supportsDryRun: boolean; approvedKey?: string },
): GateDecision {
  const { verdict } = resolved;
  if ('failed' in resolved) return { kind: 'unresolvable', verdict, failed: resolved.failed };
  if (verdict.decision === 'deny') return { kind: 'deny', verdict };
  if (verdict.decision === 'allow') return { kind: 'allow', verdict, execute: true };
  if (!facts) throw new Error('decide: an ask needs the store facts');
  if (previewAnswers(facts.previewOnly)) return { kind: 'preview', verdict, result: facts.previewOnly };
  if (facts.denial) return { kind: 'denied_before', verdict, request: facts.denial };
  const approved = facts.approved;
  if (approved?.request.status === 'executing') return fromApproved(resolved, approved.request, '', false);
  if (approved?.standing === 'unknown')
    return { kind: 'standing_unknown', verdict, request: approved.request };
  if (approved?.standing === 'stands') {
    return fromApproved(resolved, approved.request, tool.approvedKey ?? '', tool.supportsDryRun);
  }
  const window = facts.window;
  if (window?.standing === 'unknown') return { kind: 'standing_unknown', verdict, request: window.request };
  if (window?.standing === 'stands') {
    return { kind: 'run_window_grant', verdict, request: window.request, via: 'scope', recheck: false };
  }
  if (facts.upstream) return { kind: 'run_upstream', verdict };
  if (resolved.preview && isNoOpPreview(resolved.preview)) {
    return { kind: 'no_change', verdict, preview: resolved.preview };
  }
  return { kind: 'hold', verdict };
}
