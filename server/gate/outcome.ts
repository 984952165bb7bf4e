/**
 * What became of a call the gate saw (`CallOutcome`), worked out where the gate renders its result,
 * and left in `call.notes.outcome` so the audit log and the metrics read it instead of parsing
 * `_meta` text.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { resultOutcome, type CallOutcome } from '../call-outcome.ts';
import type { GateDecision } from './decision.ts';

/** Decisions whose outcome is known before anything runs. */
const DECIDED: Partial<Record<GateDecision['kind'], CallOutcome>> = {
  deny: 'denied',
  denied_before: 'denied',
  frozen: 'frozen',
  in_progress: 'in_progress',
};

/**
 * The outcome of carrying out `decision` with `result`: fixed by the decision, or read from the
 * status the gate's own rendering gave the result (held, stale, replayed, …; else the handler's
 * success or failure).
 */
export function gateOutcome(decision: GateDecision, result: CallToolResult): CallOutcome {
  return DECIDED[decision.kind] ?? resultOutcome(result);
}
