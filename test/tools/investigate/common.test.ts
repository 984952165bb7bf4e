/**
 * `isoTime` (issue 17): memoised for timestamp text, it still answers exactly what converting
 * the timestamp answers — for any text, on a repeat, and after the memo starts over.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { isoTime } from '../../../tools/investigate/common.ts';

const converted = (text: string): string | null => {
  const ms = Date.parse(text);
  return Number.isNaN(ms) || ms === 0 ? null : new Date(ms).toISOString();
};

describe('isoTime', () => {
  const timestamp = fc.oneof(
    fc
      .date({
        min: new Date('1970-01-02T00:00:00Z'),
        max: new Date('2100-01-01T00:00:00Z'),
        noInvalidDate: true,
      })
      .map((d) => d.toISOString().replace(/\.\d{3}Z$/, 'Z')),
    fc.date({ noInvalidDate: true }).map((d) => d.toISOString()),
    fc.string({ maxLength: 24 }),
  );

  it('gives what converting the text gives, first time and repeated', () => {
    fc.assert(
      fc.property(timestamp, (text) => {
        expect(isoTime(text)).toBe(converted(text));
        expect(isoTime(text)).toBe(converted(text));
      }),
      { numRuns: 3000 },
    );
  });

  it('still converts after more distinct timestamps than the memo keeps', () => {
    const base = Date.parse('2026-12-02T10:00:00Z');
    for (let i = 0; i < 5000; i++) {
      const text = new Date(base + i * 1000).toISOString().replace(/\.\d{3}Z$/, 'Z');
      expect(isoTime(text)).toBe(new Date(base + i * 1000).toISOString());
    }
    expect(isoTime('2026-12-02T10:00:00Z')).toBe('2026-12-02T10:00:00.000Z');
  });

  it('takes Dates, null and undefined as before', () => {
    expect(isoTime(new Date('2026-12-02T10:00:00Z'))).toBe('2026-12-02T10:00:00.000Z');
    expect(isoTime(null)).toBeNull();
    expect(isoTime(undefined)).toBeNull();
    expect(isoTime('not a time')).toBeNull();
  });
});
