/**
 * The audit record and its hash chain. Every record carries `prev_hash`, the `hash` of the record
 * before it (64 zeros for the first), and its own `hash`: lowercase hex SHA-256 of the record's
 * canonical JSON without the `hash` field — object keys sorted at every depth, no whitespace
 * (safe-stable-stringify, deterministic and strict). Editing, removing or reordering any record
 * breaks the chain at that record; `verifyChain` finds the first break.
 */
import { canonicalJson, ClusterSchema, digest, zodIssueLines } from '../../core/index.ts';
import { z } from 'zod';

/** `prev_hash` of the first record. */
export const GENESIS_HASH = '0'.repeat(64);

const HashSchema = z.string().regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters (SHA-256)');

/** `cluster` of a record: the kubeconfig context and API server URL the call went to. */
/** Audit records are read strictly: an unknown key in a stored cluster fails verification. */
const StrictClusterSchema = z.strictObject(ClusterSchema.shape);

/** `error` of a record: the error code and its one-line, redacted message. */
const ErrorSchema = z.strictObject({ code: z.string(), message: z.string() });

/**
 * `execution` of a record: the gate's execution a call ran or a state change concerns, and the
 * evidence used to settle it. `settled_by` says who settled it outside a `tools/call` (`reconcile`:
 * the restart reconciler read the cluster; null on the `tool_call` that ran it); `evidence` is what
 * it read there (null when it could not read a target, and on a `tool_call`).
 */
const ExecutionSchema = z.strictObject({
  id: z.string(),
  /** How the execution was authorised: `policy`, `once`, `window` or `upstream`. */
  authorization: z.string(),
  status: z.string(),
  started_at: z.iso.datetime(),
  settled_by: z.string().nullable(),
  evidence: z
    .strictObject({
      namespace: z.string(),
      name: z.string(),
      /** `metadata.generation` observed by the preview before the call, and read back now. */
      generation_before: z.number().int().nullable(),
      generation_observed: z.number().int().nullable(),
      /** The approval request id the object carries (`sentinel.dev/approval-request-id`). */
      approval_request_annotation: z.string().nullable(),
    })
    .nullable(),
  /**
   * On a `tool_call` that executed: the arguments the handler ran with (redacted) — the approved
   * request's resolved call with the requester's `reason`, which may differ from the call's own
   * `arguments` (a retry spells `reason` or `idempotency_key` as it likes; an omitted `to_revision`
   * ran as a concrete one). Optional: absent from records written before it existed.
   */
  arguments: z.record(z.string(), z.unknown()).optional(),
});

/**
 * `unauthenticated` of a record: requests without a valid token from one source, aggregated (at
 * most one record per source per window). `routes` counts them by route (`POST /mcp`, ...).
 */
const UnauthenticatedSchema = z.strictObject({
  /** Remote address the requests came from. */
  source: z.string(),
  count: z.number().int().positive(),
  /** First and last request of the window (ISO 8601). */
  first: z.iso.datetime(),
  last: z.iso.datetime(),
  routes: z.record(z.string(), z.number().int().positive()),
});

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
 * - `execution`: an execution settled outside a `tools/call` — by the restart reconciler after a
 *   crash (`execution.settled_by: "reconcile"`). `outcome` is `succeeded` (the change reached the
 *   cluster) or `interrupted` (it did not, or cannot be told); `identity` is the requester whose call
 *   it was; `execution` carries its id and the evidence read from the cluster.
 * - `unauthenticated`: requests without a valid token from one source within one window (one record
 *   per source per minute at most), with their count in `unauthenticated`; `identity` is
 *   `(unauthenticated)`, `tool` `(unread)`, `outcome` `rejected`.
 *
 * The schema is strict at every depth (an unknown key anywhere fails verification). Fields added
 * after the first release are optional — absent from older records, which keep verifying — and
 * listed in the block marked "extension fields" below; add new ones there, never change old ones.
 */
export const AuditEntrySchema = z.strictObject({
  kind: z.enum(['tool_call', 'approval', 'execution', 'unauthenticated']),
  /** ISO 8601: when the call arrived, or when the approval event happened. */
  time: z.iso.datetime(),
  /** The HTTP (or stdio) request id of the call; null for approval events. */
  request_id: z.string().nullable(),
  /** Identity that made the call, or that acted on the approval request. */
  identity: z.string(),
  cluster: StrictClusterSchema.nullable(),
  tool: z.string(),
  /**
   * Redacted. A `tool_call`'s: parsed as it arrived, defaults applied (what ran, when it differs, is
   * in `execution.arguments`); an approval's: the request's resolved call with the requester's
   * `reason`; an `execution`'s: what ran.
   */
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
  error: ErrorSchema.nullable(),
  // --- extension fields: optional, absent from records written before they existed ---
  /** The execution a record concerns (kind `execution`; a `tool_call` that started one). */
  execution: ExecutionSchema.optional(),
  /** Aggregated unauthenticated requests (kind `unauthenticated`). */
  unauthenticated: UnauthenticatedSchema.optional(),
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

/** Canonical JSON text (core's one canonical JSON: sorted keys at every depth, no whitespace, strict). */
export { canonicalJson };

/**
 * `record` (hash not yet set) as a reader of its stored text will see it: serialized, parsed and read
 * through the strict schema, so what is hashed and stored is exactly what `verify` rebuilds. JSON
 * keeps an own `__proto__` key that an object read back drops, and such a record would otherwise
 * fail verification untouched. A record the schema refuses is returned as it is (verify then
 * flags it: a record is never lost for being malformed).
 */
export function asReadBack(unsigned: Omit<AuditRecord, 'hash'>): Omit<AuditRecord, 'hash'> {
  const result = AuditRecordSchema.safeParse({ ...JSON.parse(canonicalJson(unsigned)), hash: GENESIS_HASH });
  if (!result.success) return unsigned;
  const { hash: _hash, ...rest } = result.data;
  return rest;
}

/** The hash of a record: SHA-256 (hex) of the canonical JSON of everything but `hash`. */
export function hashRecord(record: Omit<AuditRecord, 'hash'> | AuditRecord): string {
  const { hash: _ignored, ...rest } = record as AuditRecord;
  return digest(rest);
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
 * A head recorded elsewhere: `hash` of record `seq` (see checkpoint.ts). Without `seq` (a bare hash),
 * some record of the log must have that hash.
 */
export interface CheckpointRef {
  seq?: number;
  hash: string;
  /** When the checkpoint was taken (ISO 8601), for messages. */
  created_at?: string;
}

/** One stored row: the record's text and the columns duplicated from it (absent: not checked). */
export interface StoredRow {
  seq: number;
  json: string;
  time?: string;
  hash?: string;
}

const short = (hash: string) => `${hash.slice(0, 12)}…`;

/** Offset of the first character where `a` and `b` differ. */
function firstDifference(a: string, b: string): number {
  let i = 0;
  while (i < a.length && i < b.length && a[i] === b[i]) i++;
  return i;
}

/**
 * Checks one stored row on its own: valid JSON, the strict schema at every depth, stored text equal
 * byte for byte to the canonical serialization of what the schema read (so a duplicate key, an
 * unknown key, whitespace, another escape or number spelling, or another key order fails), and the
 * `time`/`hash` columns equal to the record's fields. Returns the parsed record or why it fails.
 */
function checkRow(row: StoredRow): { record: AuditRecord } | { reason: string } {
  let value: unknown;
  try {
    value = JSON.parse(row.json);
  } catch {
    return { reason: 'it is not valid JSON' };
  }
  const result = AuditRecordSchema.safeParse(value);
  if (!result.success) {
    const [first] = zodIssueLines(result.error, [], { root: '(record)' });
    const keys = first?.issue.code === 'unrecognized_keys' ? ` (${first.issue.keys.join(', ')})` : '';
    return { reason: `its field ${first?.field} is invalid: ${first?.rule}${keys}` };
  }
  const canonical = canonicalJson(result.data);
  if (canonical !== row.json) {
    const at = firstDifference(canonical, row.json);
    return {
      reason: `its stored text is not the canonical serialization of its record (differs at character ${at}: a duplicate or unknown key, whitespace, an escape, a number's spelling or key order was changed)`,
    };
  }
  const record = result.data;
  if (row.time !== undefined && row.time !== record.time) {
    return {
      reason: `its time column (${row.time}) is not the record's time (${record.time}); export --since reads that column`,
    };
  }
  if (row.hash !== undefined && row.hash !== record.hash) {
    return {
      reason: `its hash column (${short(row.hash)}) is not the record's hash (${short(record.hash)})`,
    };
  }
  return { record };
}

/**
 * Walks stored rows in order and stops at the first one that does not hold: a row whose stored
 * text or columns fail `checkRow`, a gap or reordering of `seq`, a `prev_hash` that is not the
 * previous record's hash (a record removed or inserted), or a `hash` that does not match its
 * content (a record edited). Then, with `checkpoints`, checks that each one's record is still there
 * with the same hash: a truncated or emptied log, or a chain rewritten from any record up to a
 * checkpoint's, fails (reported at the first missing record, or at the checkpointed record that
 * differs). What the chain alone cannot show — a consistent rewrite after the last checkpoint — is
 * not detected.
 */
export function verifyChain(
  raw: Iterable<StoredRow>,
  options: { checkpoints?: readonly CheckpointRef[] } = {},
): ChainReport {
  const checkpoints = [...(options.checkpoints ?? [])];
  const watchedSeqs = new Set(checkpoints.flatMap((c) => (c.seq === undefined ? [] : [c.seq])));
  const watchedHashes = new Set(checkpoints.flatMap((c) => (c.seq === undefined ? [c.hash] : [])));
  const hashAt = new Map<number, string>();
  const foundHashes = new Set<string>();
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
    const checked = checkRow(row);
    if ('reason' in checked) return fail(checked.reason);
    const parsed = checked.record;
    if (parsed.seq === row.seq && row.seq > expectedSeq) {
      // A gap: the break is the first missing record, not the one stored after it.
      const missing =
        row.seq - expectedSeq === 1
          ? `it is missing (the record after record ${expectedSeq - 1} is record ${row.seq}); a record was removed`
          : `records ${expectedSeq}-${row.seq - 1} are missing (the record after record ${expectedSeq - 1} is record ${row.seq}); records were removed`;
      return { records: count, head: previous, broken: { seq: expectedSeq, reason: missing } };
    }
    if (parsed.seq !== row.seq || row.seq !== expectedSeq) {
      return fail(
        `it is at position ${row.seq} but should be record ${expectedSeq}; a record was removed or moved`,
      );
    }
    if (parsed.prev_hash !== previous) {
      return fail(
        `its prev_hash ${short(parsed.prev_hash)} is not the hash of record ${expectedSeq - 1} (${short(previous)}); a record before it was removed, inserted or edited`,
      );
    }
    const computed = hashRecord(parsed);
    if (computed !== parsed.hash) {
      return fail(
        `its content does not match its hash (stored ${short(parsed.hash)}, computed ${short(computed)}); the record was edited`,
      );
    }
    if (watchedSeqs.has(parsed.seq)) hashAt.set(parsed.seq, parsed.hash);
    if (watchedHashes.has(parsed.hash)) foundHashes.add(parsed.hash);
    previous = parsed.hash;
    expectedSeq++;
  }
  const report: ChainReport = { records: count, head: previous };
  const broken = checkpointBreak(count, hashAt, foundHashes, checkpoints);
  return broken ? { ...report, broken } : report;
}

/** The first checkpoint the verified chain does not contain (see `verifyChain`), as a break. */
function checkpointBreak(
  records: number,
  hashAt: ReadonlyMap<number, string>,
  foundHashes: ReadonlySet<string>,
  checkpoints: readonly CheckpointRef[],
): ChainBreak | undefined {
  const taken = (c: CheckpointRef) => (c.created_at ? ` taken ${c.created_at}` : '');
  const bySeq = checkpoints
    .filter((c): c is CheckpointRef & { seq: number } => c.seq !== undefined)
    .sort((a, b) => a.seq - b.seq);
  let lastGood = 0;
  for (const checkpoint of bySeq) {
    if (checkpoint.seq === 0) continue; // an empty log's checkpoint: anything extends it
    if (checkpoint.seq > records) {
      // Name the whole loss: up to the newest checkpoint, not just the first one past the end.
      const newest = bySeq[bySeq.length - 1]!;
      return {
        seq: records + 1,
        reason:
          records === 0
            ? `the log has 0 records but the checkpoint${taken(newest)} names record ${newest.seq} (${short(newest.hash)}); the log was emptied`
            : `the log has ${records} records but the checkpoint${taken(newest)} names record ${newest.seq} (${short(newest.hash)}); records ${records + 1}-${newest.seq} are missing: the log was truncated`,
      };
    }
    const hash = hashAt.get(checkpoint.seq)!;
    if (hash !== checkpoint.hash) {
      return {
        seq: checkpoint.seq,
        reason: `its hash ${short(hash)} is not the checkpoint's ${short(checkpoint.hash)}${taken(checkpoint)}; the chain was rewritten at or before record ${checkpoint.seq} (after record ${lastGood}, the last checkpointed record that matches)`,
      };
    }
    lastGood = checkpoint.seq;
  }
  for (const checkpoint of checkpoints) {
    if (checkpoint.seq !== undefined || checkpoint.hash === GENESIS_HASH) continue;
    if (!foundHashes.has(checkpoint.hash)) {
      return {
        seq: Math.max(records, 1),
        reason: `no record has the checkpoint's hash ${short(checkpoint.hash)}${taken(checkpoint)} (the log has ${records} records); it was truncated, emptied or rewritten`,
      };
    }
  }
  return undefined;
}
