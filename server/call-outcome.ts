/**
 * What became of one `tools/call`: shared by the audit log and the metrics so both count the same
 * thing. The gate leaves it in the call's notes (`ToolCallNotes.outcome`, server/gate/outcome.ts);
 * a call no gate saw is classified from its result.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ToolCallNotes } from './pipeline.ts';

/**
 * `succeeded` / `failed`: the handler ran (or an error stopped the call); otherwise the gate's
 * answer: `held` (pending approval), `denied`, `stale`, `frozen`, `replayed`, `in_progress`.
 */
export type CallOutcome =
  'succeeded' | 'failed' | 'held' | 'denied' | 'stale' | 'frozen' | 'replayed' | 'in_progress';

const GATE_OUTCOMES: Record<string, CallOutcome> = {
  pending: 'held',
  denied: 'denied',
  stale: 'stale',
  frozen: 'frozen',
  replayed: 'replayed',
  in_progress: 'in_progress',
};

/** The `approval_status` the gate put on a result's `_meta`, if any. */
export function approvalStatusOf(result: CallToolResult): string | undefined {
  const status = result._meta?.approval_status;
  return typeof status === 'string' ? status : undefined;
}

/** Classifies a result by the status the gate rendered on it (for the gate's own use, at its edge). */
export function resultOutcome(result: CallToolResult): CallOutcome {
  const gate = GATE_OUTCOMES[approvalStatusOf(result) ?? ''];
  if (gate) return gate;
  return result.isError ? 'failed' : 'succeeded';
}

/** The outcome of a call (see `CallOutcome`): the gate's note when it saw the call, else the result's. */
export function callOutcome(result: CallToolResult, notes?: ToolCallNotes): CallOutcome {
  return notes?.outcome ?? resultOutcome(result);
}

/** `{ code, message }` of an error result: the code from `_meta.error` (else the outcome), the first text line. */
export function resultError(
  result: CallToolResult,
  outcome: CallOutcome,
): { code: string; message: string } | null {
  if (!result.isError) return null;
  const meta = result._meta?.error as { code?: unknown } | undefined;
  const text = result.content.find((item) => item.type === 'text');
  return {
    code: typeof meta?.code === 'string' ? meta.code : outcome,
    message: text && text.type === 'text' ? (text.text.split('\n')[0] ?? '') : '',
  };
}
