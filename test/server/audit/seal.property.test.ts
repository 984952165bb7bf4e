/**
 * Sealing an entry with one serialisation must give exactly what the reference path gives (read
 * the record back through the schema, hash it, serialise the record): the same hash and the same
 * stored text, byte for byte, for arbitrary entries — free-form fields with any string, own
 * `__proto__` keys, unknown keys the schema refuses, and a head hash that is not hex.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { asReadBack, canonicalJson, hashRecord, type AuditEntry } from '../../../server/audit/record.ts';
import { prepareEntry, sealRecord } from '../../../server/audit/seal.ts';
import { auditEntry } from '../../helpers/audit.ts';

/** The reference path the stores used before sealing (three serialisations and a schema parse). */
function reference(entry: AuditEntry, seq: number, prevHash: string) {
  const unsigned = asReadBack({ ...entry, seq, prev_hash: prevHash });
  const record = { ...unsigned, hash: hashRecord(unsigned) };
  return { hash: record.hash, json: canonicalJson(record) };
}

const text = fc.string({ unit: 'binary', maxLength: 20 });
const key = fc.oneof(text, fc.constantFrom('__proto__', 'namespace', 'name', 'hash', 'seq', 'constructor'));
const json = fc.jsonValue({ maxDepth: 3 });

const entries: fc.Arbitrary<AuditEntry> = fc
  .record({
    args: fc.dictionary(key, json, { maxKeys: 5 }),
    reason: fc.option(text, { nil: null }),
    message: text,
    tool: text,
    duration: fc.option(fc.double({ noNaN: true, noDefaultInfinity: true, min: 0 }), { nil: null }),
    extra: fc.option(fc.dictionary(key, json, { maxKeys: 2 }), { nil: undefined }),
    clientRef: fc.option(
      fc.record({ harness_url: text, session_id: text, turn_id: text, tool_call_id: text }),
      { nil: undefined },
    ),
  })
  .map(({ args, reason, message, tool, duration, extra, clientRef }) => ({
    ...auditEntry({
      tool,
      arguments: args,
      reason,
      duration_ms: duration,
      error: { code: 'failed', message },
      ...(clientRef && { client_ref: clientRef }),
    }),
    // Keys the strict schema refuses: the reference path then stores the record as it is.
    ...(extra as Partial<AuditEntry>),
  }));

describe('sealRecord', () => {
  it('gives the reference hash and stored text for arbitrary entries', () => {
    fc.assert(
      fc.property(
        entries,
        fc.integer({ min: 1, max: 2 ** 40 }),
        fc.oneof(fc.stringMatching(/^[0-9a-f]{64}$/), text),
        (entry, seq, prevHash) => {
          const sealed = sealRecord(prepareEntry(entry), seq, prevHash);
          const expected = reference(entry, seq, prevHash);
          expect(sealed.json).toBe(expected.json);
          expect(sealed.record.hash).toBe(expected.hash);
          expect(sealed.record).toMatchObject({ seq, prev_hash: prevHash });
        },
      ),
      { numRuns: 500 },
    );
  });

  it('takes the reference path for an own __proto__ key (which the schema drops on reading back)', () => {
    const args = JSON.parse('{"__proto__":{"x":1},"namespace":"shop"}') as Record<string, unknown>;
    const entry = auditEntry({ arguments: args });
    expect(prepareEntry(entry).runs).toBeUndefined();
    expect(sealRecord(prepareEntry(entry), 7, '0'.repeat(64)).json).toBe(
      reference(entry, 7, '0'.repeat(64)).json,
    );
  });

  it('refuses a value JSON cannot hold when preparing, before any record is sealed', () => {
    expect(() => prepareEntry(auditEntry({ arguments: { replicas: Number.NaN } }))).toThrow();
    expect(() => prepareEntry(auditEntry({ arguments: { n: 1n } }))).toThrow();
  });
});
