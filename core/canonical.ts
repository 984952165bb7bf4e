/**
 * The one canonical JSON of Sentinel and the digests built on it: object keys sorted at every depth,
 * no whitespace, strict (safe-stable-stringify with `strict: true`: NaN, Infinity, functions,
 * bigints and circular values throw instead of being written as something else). Call keys, the
 * effects a human approves, the gate's stale check, audit records and their hashes, and the
 * simulator's pod-template-hash all use it, so a value is hashed the same wherever it is compared.
 *
 * For every JSON value (and Dates, through `toJSON`) the text is byte-for-byte what the non-strict
 * `stringify` of the same library wrote before it was one function (`test/core/canonical.test.ts`
 * checks it on arbitrary JSON), so digests stored earlier (approval requests, audit logs) verify
 * unchanged.
 */
import { createHash } from 'node:crypto';
import { configure } from 'safe-stable-stringify';

const stableStringify = configure({ deterministic: true, strict: true, bigint: false });

/**
 * Canonical JSON text of a JSON value: object keys sorted at every depth, no whitespace; `null` for
 * `undefined`. Throws `TypeError`-like errors from safe-stable-stringify for values JSON cannot hold.
 */
export function canonicalJson(value: unknown): string {
  return stableStringify(value) ?? 'null';
}

/** sha256 hex (64 characters) of a string. */
export function sha256(text: string): string {
  return createHash('sha256').update(text).digest('hex');
}

/**
 * sha256 hex of `canonicalJson(value)`, cut to `hexChars` characters (default the whole 64; effects
 * use 16, a short, stable name for a template or annotations).
 */
export function digest(value: unknown, hexChars = 64): string {
  return sha256(canonicalJson(value)).slice(0, hexChars);
}
