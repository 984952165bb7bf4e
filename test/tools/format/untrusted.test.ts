import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { capBytes } from '../../../tools/format/untrusted.ts';

describe('capBytes on hostile text from the cluster', () => {
  // Cutting the head stripped the U+FFFD of a split character with /\uFFFD+$/, which retries from
  // every U+FFFD of a run not at the end (quadratic: 32,000 of them took 0.9 s, so 500,000 would
  // take minutes). Linear now, it takes milliseconds; the generous timeout is for a loaded machine.
  it('keeps the head of a long run of U+FFFD followed by other text', { timeout: 120_000 }, () => {
    const run = '\uFFFD'.repeat(500_000);
    expect(capBytes(`${run}x and more`, 3 * 500_000 + 1)).toEqual({ text: `${run}x`, cutBytes: 9 });
  });
});

describe('capBytes: the head cut strips trailing U+FFFD as /\\uFFFD+$/ did', () => {
  /** The head cut as it was (its U+FFFD strip quadratic on a long run of U+FFFD not at the end). */
  const before = (text: string, maxBytes: number) => {
    const buffer = Buffer.from(text, 'utf8');
    if (buffer.length <= maxBytes) return { text, cutBytes: 0 };
    let kept = buffer
      .subarray(0, maxBytes)
      .toString('utf8')
      .replace(/\uFFFD+$/, '');
    const newline = kept.lastIndexOf('\n');
    if (newline > 0) kept = kept.slice(0, newline + 1);
    return { text: kept, cutBytes: buffer.length - Buffer.byteLength(kept, 'utf8') };
  };
  const text = fc
    .array(fc.constantFrom('\uFFFD', 'é', '€', '😀', 'a', '\n'), { maxLength: 30 })
    .map((parts) => parts.join(''));
  it('gives what the expression gave, for any text and cap', () => {
    fc.assert(
      fc.property(text, fc.integer({ min: 0, max: 80 }), (value, maxBytes) => {
        expect(capBytes(value, maxBytes)).toEqual(before(value, maxBytes));
      }),
      { numRuns: 5000 },
    );
  });
});
