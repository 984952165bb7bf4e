/**
 * Turning an audit entry into its stored record with the entry serialised once: `prepareEntry`
 * writes the entry's canonical JSON member by member (before any transaction, so a value JSON
 * cannot hold fails that one append alone), and `sealRecord` adds `seq` and `prev_hash` in their
 * sorted places, hashes that text, and adds `hash` to get the stored text. The result is byte for
 * byte what the reference path gives — `asReadBack`, then `hashRecord`, then `canonicalJson` of the
 * record (three serialisations and a schema parse) — which `test/server/audit/seal.property.test.ts`
 * checks on arbitrary entries.
 *
 * Why the read-back can be skipped: `verify` rebuilds a record as `canonicalJson(schema(JSON.parse(
 * stored)))`. For canonical text that round trip is the identity — JSON values survive parsing and
 * re-serialising, and the strict schema has no transforms or defaults (it either fails, and the
 * reference path then stores the record as it is, or returns the same values) — except for an own
 * `__proto__` key, which an object the schema rebuilds drops. An entry whose text holds
 * `"__proto__"` (canonical JSON writes that key only so) takes the reference path.
 */
import { canonicalJson, sha256 } from '../../core/index.ts';
import { asReadBack, hashRecord, type AuditEntry, type AuditRecord } from './record.ts';

/** The fields a log adds to an entry, in key order; an entry's own keys of these names are ignored. */
const CHAIN_KEYS = ['hash', 'prev_hash', 'seq'] as const;

/** An entry ready to be sealed into a record (see the module comment). */
export interface PreparedEntry {
  readonly entry: AuditEntry;
  /**
   * The entry's canonical JSON members (`"key":value,…`, without braces) in four runs split by the
   * chain keys: keys before `hash`, between `hash` and `prev_hash`, between `prev_hash` and `seq`,
   * after `seq` (canonical JSON sorts keys by UTF-16 code units, as `<` compares strings).
   * Undefined when the entry takes the reference path (`__proto__`).
   */
  readonly runs: readonly [string, string, string, string] | undefined;
}

/** The record to store and its canonical text (the `json` column). */
export interface SealedRecord {
  record: AuditRecord;
  json: string;
}

/**
 * Serialises `entry` once (see the module comment). Throws what `canonicalJson` throws for a value
 * JSON cannot hold (NaN, Infinity, a bigint, a function, a circular value).
 */
export function prepareEntry(entry: AuditEntry): PreparedEntry {
  const groups: [
    Record<string, unknown>,
    Record<string, unknown>,
    Record<string, unknown>,
    Record<string, unknown>,
  ] = [{}, {}, {}, {}];
  for (const [key, value] of Object.entries(entry)) {
    if ((CHAIN_KEYS as readonly string[]).includes(key)) continue;
    const group = CHAIN_KEYS.findIndex((chain) => key < chain);
    const target = groups[group < 0 ? 3 : group]!;
    // An own `__proto__` key stays an own property (the entry then takes the reference path).
    if (key === '__proto__') Object.defineProperty(target, key, { value, enumerable: true });
    else target[key] = value;
  }
  const runs = groups.map((group) => canonicalJson(group).slice(1, -1)) as [string, string, string, string];
  if (runs.some((run) => run.includes('"__proto__"'))) return { entry, runs: undefined };
  return { entry, runs };
}

/** Joins the non-empty parts of an object's members with commas, in braces. */
const objectText = (parts: readonly string[]): string => `{${parts.filter(Boolean).join(',')}}`;

/**
 * The record `prepared` becomes at position `seq` after a record whose hash is `prevHash`, with
 * its hash and stored text (what `asReadBack`, `hashRecord` and `canonicalJson` give, computed
 * once). Never throws for a prepared entry.
 */
export function sealRecord(prepared: PreparedEntry, seq: number, prevHash: string): SealedRecord {
  const { entry, runs } = prepared;
  if (runs === undefined) {
    const unsigned = asReadBack({ ...entry, seq, prev_hash: prevHash });
    const record: AuditRecord = { ...unsigned, hash: hashRecord(unsigned) };
    return { record, json: canonicalJson(record) };
  }
  const [beforeHash, beforePrev, beforeSeq, afterSeq] = runs;
  const prev = `"prev_hash":${canonicalJson(prevHash)}`;
  const position = `"seq":${canonicalJson(seq)}`;
  const hash = sha256(objectText([beforeHash, beforePrev, prev, beforeSeq, position, afterSeq]));
  return {
    record: { ...entry, seq, prev_hash: prevHash, hash },
    json: objectText([beforeHash, `"hash":"${hash}"`, beforePrev, prev, beforeSeq, position, afterSeq]),
  };
}
