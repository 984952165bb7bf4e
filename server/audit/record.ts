/**
 * The audit record and its hash chain. Every record carries `prev_hash`, the `hash` of the record
 * before it (64 zeros for the first), and its own `hash`: lowercase hex SHA-256 of the record's
 * canonical JSON without the `hash` field — object keys sorted at every depth, no whitespace
 * (safe-stable-stringify, deterministic and strict). Editing, removing or reordering any record
 * breaks the chain at that record; `verifyChain` finds the first break.
 */
import { createHash } from 'node:crypto';
import { configure } from 'safe-stable-stringify';
import { z } from 'zod';

/** `prev_hash` of the first record. */
export const GENESIS_HASH = '0'.repeat(64);

const HashSchema = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters (SHA-256)');

/**
 * What happened, by `kind`:
 * - `tool_call`: one `tools/call` that reached the middlewares (one record per call). `outcome` is
 *   `succeeded`, `failed`, `held` (pending approval), `denied` (by policy or a human's earlier
 *   denial), `stale`, `frozen`, `replayed` or `in_progress` (the gate's `approval_status`).
 * - `approval`: a change of an approval request. `outcome` is `created`, `approved`, `denied`,
 *   `withdrawn`, `expired` (pending, unanswered), `grant_expired` (approved, never used),
 *   `cancelled` (requester revoked or re-keyed, or an unused grant revoked; `reason` says which) or
 *   `superseded` (re-requested with a different effect);
 *   `identity` is who acted (the requester, the approver, or `sentinel` for an expiry).
 */
export const AuditEntrySchema = z.strictObject({
  kind: z.enum(['tool_call', 'approval']),
  /** ISO 8601: when the call arrived, or when the approval event happened. */
  time: z.iso.datetime(),
  /** The HTTP (or stdio) request id of the call; null for approval events. */
  request_id: z.string().nullable(),
  /** Identity that made the call, or that acted on the approval request. */
  identity: z.string(),
  cluster: z.object({ context: z.string(), server: z.string() }).nullable(),
  tool: z.string(),
  /** Parsed (or resolved) arguments, redacted. */
  arguments: z.record(z.string(), z.unknown()),
  /** Matched policy rule; null when the server runs without a gate. */
  rule: z.string().nullable(),
  /**
   * The policy decision for a call (`allow`, `ask`, `deny`; `upstream`: an `ask` that ran on a
   * verified harness approval, `trust_upstream_approval`), or the human's for an approval.
   */
  decision: z.enum(['allow', 'ask', 'deny', 'upstream']).nullable(),
  approval_request_id: z.string().nullable(),
  /** Who decided the approval request involved, and when (ISO 8601); null while undecided. */
  approver: z.string().nullable(),
  decision_time: z.iso.datetime().nullable(),
  /** The approver's reason for an approval event (a denial's reason); null otherwise. */
  reason: z.string().nullable(),
  outcome: z.string(),
  /** Wall time of the call in milliseconds; null for approval events. */
  duration_ms: z.number().nonnegative().nullable(),
  /** The error of a failed or refused call (redacted, one line), or a denial's reason. */
  error: z.object({ code: z.string(), message: z.string() }).nullable(),
  /**
   * The harness tool call the approval request answers (harness mode) or an upstream execution
   * used; present only then.
   */
  client_ref: z
    .strictObject({
      harness_url: z.string(),
      session_id: z.string(),
      turn_id: z.string(),
      tool_call_id: z.string(),
    })
    .optional(),
});
export type AuditEntry = z.infer<typeof AuditEntrySchema>;

/** A stored record: the entry, its 1-based position, and the chain hashes. */
export const AuditRecordSchema = AuditEntrySchema.extend({
  seq: z.number().int().positive(),
  prev_hash: HashSchema,
  hash: HashSchema,
});
export type AuditRecord = z.infer<typeof AuditRecordSchema>;

const canonicalStringify = configure({ deterministic: true, strict: true, bigint: false });

/** Canonical JSON text of a JSON value (sorted keys at every depth, no whitespace). */
export function canonicalJson(value: unknown): string {
  return canonicalStringify(value) ?? 'null';
}

/** The hash of a record: SHA-256 (hex) of the canonical JSON of everything but `hash`. */
export function hashRecord(record: Omit<AuditRecord, 'hash'> | AuditRecord): string {
  const { hash: _ignored, ...rest } = record as AuditRecord;
  return createHash('sha256').update(canonicalJson(rest)).digest('hex');
}

/** The first record that breaks the chain, and why. */
export interface ChainBreak {
  seq: number;
  reason: string;
}

/** Result of checking a whole chain. */
export interface ChainReport {
  /** Records checked. */
  records: number;
  /** Hash of the last record (anchor it elsewhere to detect truncation), or `GENESIS_HASH`. */
  head: string;
  /** Undefined when the chain is intact. */
  broken?: ChainBreak;
}

/**
 * Walks records in order and stops at the first one whose position, fields, `prev_hash` or `hash`
 * do not hold: a record that fails the schema, a gap or reordering of `seq`, a `prev_hash` that is
 * not the previous record's hash (a record removed or inserted), or a `hash` that does not match its
 * content (a record edited). `raw` records are the stored JSON texts, parsed here.
 */
export function verifyChain(raw: Iterable<{ seq: number; json: string }>): ChainReport {
  let previous = GENESIS_HASH;
  let expectedSeq = 1;
  let count = 0;
  for (const row of raw) {
    count++;
    const fail = (reason: string): ChainReport => ({
      records: count,
      head: previous,
      broken: { seq: row.seq, reason },
    });
    let parsed: AuditRecord;
    try {
      const result = AuditRecordSchema.safeParse(JSON.parse(row.json));
      if (!result.success) {
        const issue = result.error.issues[0]!;
        return fail(`its field ${issue.path.join('.') || '(record)'} is invalid: ${issue.message}`);
      }
      parsed = result.data;
    } catch {
      return fail('it is not valid JSON');
    }
    if (parsed.seq !== row.seq || row.seq !== expectedSeq) {
      return fail(
        `it is at position ${row.seq} but should be record ${expectedSeq}; a record was removed or moved`,
      );
    }
    if (parsed.prev_hash !== previous) {
      return fail(
        `its prev_hash ${parsed.prev_hash.slice(0, 12)}… is not the hash of record ${expectedSeq - 1} (${previous.slice(0, 12)}…); a record before it was removed, inserted or edited`,
      );
    }
    const computed = hashRecord(parsed);
    if (computed !== parsed.hash) {
      return fail(
        `its content does not match its hash (stored ${parsed.hash.slice(0, 12)}…, computed ${computed.slice(0, 12)}…); the record was edited`,
      );
    }
    previous = parsed.hash;
    expectedSeq++;
  }
  return { records: count, head: previous };
}
