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

/** The fields a log adds to an entry; an entry's own keys of these names are ignored. */
const CHAIN_KEYS = new Set(['seq', 'prev_hash', 'hash']);

/** An entry ready to be sealed into a record (see the module comment). */
export interface PreparedEntry {
  readonly entry: AuditEntry;
  /**
   * `"key":value` members of the entry's canonical JSON, sorted by key as canonical JSON sorts
   * them (UTF-16 code units); undefined when the entry takes the reference path (`__proto__`).
   */
  readonly members: readonly (readonly [key: string, text: string])[] | undefined;
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
  const members: [string, string][] = [];
  for (const key of Object.keys(entry).sort()) {
    if (CHAIN_KEYS.has(key)) continue;
    // One member as canonical JSON writes it inside an object (key escaping, skipped undefined).
    const text = canonicalJson({ [key]: (entry as Record<string, unknown>)[key] }).slice(1, -1);
    if (text === '') continue;
    if (text.includes('"__proto__"')) return { entry, members: undefined };
    members.push([key, text]);
  }
  return { entry, members };
}

/** `"key":value` for a chain field. */
const member = (key: string, value: string | number): readonly [string, string] => [
  key,
  `"${key}":${canonicalJson(value)}`,
];

/** `members` with `extra` merged in key order, as an object's canonical text. */
function objectText(
  members: readonly (readonly [string, string])[],
  extra: readonly (readonly [string, string])[],
): string {
  const merged = [...members];
  for (const add of extra) {
    let at = merged.findIndex(([key]) => key > add[0]);
    if (at < 0) at = merged.length;
    merged.splice(at, 0, add);
  }
  return `{${merged.map(([, text]) => text).join(',')}}`;
}

/**
 * The record `prepared` becomes at position `seq` after a record whose hash is `prevHash`, with
 * its hash and stored text (what `asReadBack`, `hashRecord` and `canonicalJson` give, computed
 * once). Never throws for a prepared entry.
 */
export function sealRecord(prepared: PreparedEntry, seq: number, prevHash: string): SealedRecord {
  const { entry, members } = prepared;
  if (members === undefined) {
    const unsigned = asReadBack({ ...entry, seq, prev_hash: prevHash });
    const record: AuditRecord = { ...unsigned, hash: hashRecord(unsigned) };
    return { record, json: canonicalJson(record) };
  }
  const chain = [member('prev_hash', prevHash), member('seq', seq)];
  const hash = sha256(objectText(members, chain));
  return {
    record: { ...entry, seq, prev_hash: prevHash, hash },
    json: objectText(members, [...chain, member('hash', hash)]),
  };
}
