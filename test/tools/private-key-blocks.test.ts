import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { replacePrivateKeyBlocks } from '../../tools/private-key-blocks.ts';

/** The expression the function replaces (quadratic when BEGIN lines have no END). */
const PRIVATE_KEY_BLOCK = /-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?-----END \1PRIVATE KEY-----/g;
const byExpression = (text: string) => {
  let count = 0;
  const value = text.replace(PRIVATE_KEY_BLOCK, () => {
    count += 1;
    return '<key>';
  });
  return { value, count };
};

describe('replacePrivateKeyBlocks', () => {
  it('replaces each block from its BEGIN line to the first END line of its label', () => {
    const rsa = '-----BEGIN RSA PRIVATE KEY-----\nMIIE\n-----END RSA PRIVATE KEY-----';
    const ec = '-----BEGIN EC PRIVATE KEY-----\nMHc\n-----END EC PRIVATE KEY-----';
    expect(replacePrivateKeyBlocks(`a ${rsa} b ${ec} c`, '<key>')).toEqual({
      value: 'a <key> b <key> c',
      count: 2,
    });
    // An END of another label does not close the block; an unclosed BEGIN stays.
    const mixed = '-----BEGIN RSA PRIVATE KEY-----\nx\n-----END EC PRIVATE KEY-----\ny';
    expect(replacePrivateKeyBlocks(mixed, '<key>')).toEqual({ value: mixed, count: 0 });
  });

  it('gives what the regular expression gives, for any text', () => {
    const pieces = [
      '-----BEGIN ',
      '-----END ',
      'PRIVATE KEY-----',
      'PRIVATE KEY',
      'RSA ',
      'EC ',
      '-----',
      '-',
      'A',
      '1',
      ' ',
      '\n',
      'x',
    ];
    const text = fc
      .array(fc.oneof(fc.constantFrom(...pieces), fc.string({ maxLength: 4 })), { maxLength: 24 })
      .map((parts) => parts.join(''));
    fc.assert(
      fc.property(text, (value) => {
        expect(replacePrivateKeyBlocks(value, '<key>')).toEqual(byExpression(value));
      }),
      { numRuns: 5000 },
    );
  });
});
