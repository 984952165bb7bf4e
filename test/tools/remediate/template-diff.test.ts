import { describe, expect, it } from 'vitest';
import { MAX_DIFF_LINES, templateDiff } from '../../../tools/remediate/template-diff.ts';

const template = (image: string, extra: Record<string, unknown> = {}) => ({
  metadata: { labels: { app: 'checkout', 'pod-template-hash': image.length.toString() } },
  spec: {
    containers: [
      { name: 'checkout', image, env: [{ name: 'DB_PASSWORD', value: `secret-${image}` }], ...extra },
    ],
  },
});

describe('templateDiff', () => {
  it('is a unified diff of the templates as YAML, current → proposed, with context', () => {
    expect(templateDiff(template('checkout:2.4.1'), template('checkout:2.4.0'))).toBe(
      [
        '--- current pod template',
        '+++ proposed pod template',
        '@@ -6,5 +6,5 @@',
        '     - env:',
        '         - name: DB_PASSWORD',
        '           value: "[REDACTED]"',
        '-      image: checkout:2.4.1',
        '+      image: checkout:2.4.0',
        '       name: checkout',
      ].join('\n'),
    );
  });

  it('ignores pod-template-hash, unset values and key order; empty when nothing else differs', () => {
    expect(templateDiff(template('a'), { ...template('a'), metadata: { labels: { app: 'checkout' } } })).toBe(
      '',
    );
    expect(templateDiff(template('a', { args: [] }), template('a'))).toBe('');
  });

  it('never shows a secret env value, even when it is all that changed', () => {
    const diff = templateDiff(template('a'), {
      ...template('a'),
      spec: {
        containers: [
          {
            ...template('a').spec.containers[0]!,
            command: ['run', '--token=ghp_abcdefghijklmnopqrstuvwxyz0123456789'],
          },
        ],
      },
    });
    expect(diff).toContain('+    - command:');
    expect(diff).toContain('+        - --token=[REDACTED]');
    expect(diff).not.toMatch(/secret-a|ghp_abcdefghijklmnopqrstuvwxyz0123456789/);
  });

  it(`stops at ${MAX_DIFF_LINES} lines and says how many more`, () => {
    const env = (n: number, v: string) =>
      Array.from({ length: n }, (_, i) => ({ name: `VAR_${i}`, value: `${v}${i}` }));
    const diff = templateDiff(template('a', { env: env(600, 'x') }), template('a', { env: env(600, 'y') }));
    const lines = diff.split('\n');
    expect(lines).toHaveLength(MAX_DIFF_LINES + 1);
    expect(lines.at(-1)).toMatch(/^… \d+ more lines$/);
  });
});
