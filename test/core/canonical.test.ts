import { createHash } from 'node:crypto';
import fc from 'fast-check';
import { stringify } from 'safe-stable-stringify';
import { describe, expect, it } from 'vitest';
import { canonicalJson, digest, sha256 } from '../../core/index.ts';
import { digest as effectDigest } from '../../tools/remediate/plan.ts';

/** The effect digest as tools/remediate/plan.ts computed it before core (non-strict stringify). */
const legacyEffectDigest = (value: unknown) =>
  createHash('sha256')
    .update(stringify(value) ?? 'null')
    .digest('hex')
    .slice(0, 16);

describe('canonicalJson and digest', () => {
  it('sorts keys at every depth with no whitespace, and writes undefined as null', () => {
    expect(canonicalJson({ b: [{ d: 1, c: 2 }], a: 'x', u: undefined })).toBe(
      '{"a":"x","b":[{"c":2,"d":1}]}',
    );
    expect(canonicalJson(undefined)).toBe('null');
    expect(canonicalJson({ at: new Date(0) })).toBe('{"at":"1970-01-01T00:00:00.000Z"}');
  });

  it('is strict: a value JSON cannot hold throws instead of being written as something else', () => {
    expect(() => canonicalJson({ replicas: Number.NaN })).toThrow();
    expect(() => canonicalJson({ f: () => 1 })).toThrow();
    const circular: Record<string, unknown> = {};
    circular.self = circular;
    expect(() => canonicalJson(circular)).toThrow();
  });

  it('writes every JSON value exactly as the non-strict stringify did, so stored digests still verify', () => {
    fc.assert(
      fc.property(fc.jsonValue(), (value) => {
        expect(canonicalJson(value)).toBe(stringify(value) ?? 'null');
        expect(effectDigest(value)).toBe(legacyEffectDigest(value));
      }),
      { numRuns: 300 },
    );
  });

  it('digests: the whole sha256 by default, the effects’ 16 characters on request', () => {
    expect(digest({ a: 1 })).toBe(sha256('{"a":1}'));
    expect(digest({ a: 1 })).toHaveLength(64);
    expect(digest({ a: 1 }, 16)).toBe(sha256('{"a":1}').slice(0, 16));
    expect(effectDigest({ b: 2, a: 1 })).toBe(digest({ a: 1, b: 2 }, 16));
  });
});
