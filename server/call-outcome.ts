/**
 * What became of one `tools/call`, read from its result: shared by the audit log and the metrics so
 * both count the same thing.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';

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

/** Classifies a result (see `CallOutcome`). */
export function callOutcome(result: CallToolResult): CallOutcome {
  const gate = GATE_OUTCOMES[approvalStatusOf(result) ?? ''];
  if (gate) return gate;
  return result.isError ? 'failed' : 'succeeded';
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
