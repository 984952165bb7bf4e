import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { cpuMillicores, memoryMiB, quantityValue } from '../../../tools/kube/quantity.ts';

describe('quantityValue', () => {
  it.each([
    ['128Mi', 134_217_728],
    ['250m', 0.25],
    ['1.5', 1.5],
    ['.5k', 500],
    ['1e3', 1000],
    ['-2Ki', -2048],
    [' 3 ', 3],
  ])('%s is %d', (quantity, value) => {
    expect(quantityValue(quantity)).toBe(value);
  });
  it.each(['', 'Mi', '1.2.3', '1Zi', '1e', '1 Mi'])('%j is unreadable', (quantity) => {
    expect(quantityValue(quantity)).toBeUndefined();
  });
  it('reads CPU in millicores and memory in MiB', () => {
    expect(cpuMillicores('1500u')).toBe(2);
    expect(memoryMiB('1536Ki')).toBe(1.5);
  });
});

describe('quantityValue on a hostile quantity from the cluster (metrics-server usage)', () => {
  // `\d+\.?\d*` split a run of digits between `\d+` and `\d*` in every way before failing: quadratic,
  // 32,000 digits and a `!` took 2.9 s, so 1,000,000 would take most of an hour. Linear now, it takes
  // milliseconds; the generous timeout is for a loaded machine.
  it.each([
    ['digits', `${'1'.repeat(1_000_000)}!`],
    ['digits around a dot', `${'1'.repeat(500_000)}.${'1'.repeat(500_000)}!`],
    ['digits and an exponent sign', `${'1'.repeat(1_000_000)}e!`],
  ])('%s, then a character no quantity has', { timeout: 120_000 }, (_case, quantity) => {
    expect(quantityValue(quantity)).toBeUndefined();
  });
});

describe('quantityValue: the same as with the expression it had', () => {
  /** The expression as it was (quadratic on a long run of digits that does not parse). */
  const QUANTITY = /^([+-]?(?:\d+\.?\d*|\.\d+))(?:([eE][+-]?\d+)|([a-zA-Z]*))$/;
  const DECIMAL: Record<string, number> = {
    n: -9,
    u: -6,
    m: -3,
    '': 0,
    k: 3,
    M: 6,
    G: 9,
    T: 12,
    P: 15,
    E: 18,
  };
  const BINARY: Record<string, number> = { Ki: 10, Mi: 20, Gi: 30, Ti: 40, Pi: 50, Ei: 60 };
  const before = (quantity: string): number | undefined => {
    const match = QUANTITY.exec(quantity.trim());
    if (!match) return undefined;
    const [, number, exponent, suffix = ''] = match;
    const base = Number(number);
    if (exponent) return base * 10 ** Number(exponent.slice(1));
    if (suffix in DECIMAL) return base * 10 ** DECIMAL[suffix]!;
    if (suffix in BINARY) return base * 2 ** BINARY[suffix]!;
    return undefined;
  };
  const quantity = fc
    .array(fc.constantFrom('1', '0', '9', '.', '+', '-', 'e', 'E', 'k', 'M', 'i', 'Ki', 'm', ' ', '!'), {
      maxLength: 14,
    })
    .map((parts) => parts.join(''));
  it('gives the same value for any text', () => {
    fc.assert(
      fc.property(quantity, (value) => {
        expect(quantityValue(value)).toBe(before(value));
      }),
      { numRuns: 10_000 },
    );
  });
});
