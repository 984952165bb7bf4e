/**
 * The canonical form of a call, used to match a retry to its approval request: the parsed arguments
 * (defaults applied) without the arguments that are never matched — `reason` (free text, recorded
 * only), `idempotency_key`, `evidence` and `investigation` (owned by the gate; the last two are
 * shown to the approver) and `dry_run: false` (a real call is the same call
 * whether or not it spells out the default; `dry_run: true` stays, so a preview never matches a real call) —
 * serialised as core's canonical JSON (keys sorted, strict) and hashed.
 */
import { canonicalJson, sha256 } from '../../core/index.ts';

export { canonicalJson, sha256 };

/** Arguments recorded with a call but never part of its identity. */
export const UNMATCHED_ARGUMENTS: readonly string[] = [
  'reason',
  'idempotency_key',
  'evidence',
  'investigation',
];

/** The call's arguments without the unmatched ones, `dry_run: false` and undefined values. */
export function matchedArguments(args: Record<string, unknown>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(args)) {
    if (UNMATCHED_ARGUMENTS.includes(key) || value === undefined) continue;
    if (key === 'dry_run' && value === false) continue;
    out[key] = value;
  }
  return out;
}

/** sha256 hex of the canonical call `{tool, arguments}`. */
export function callKey(tool: string, args: Record<string, unknown>): string {
  return sha256(canonicalJson({ tool, arguments: matchedArguments(args) }));
}
