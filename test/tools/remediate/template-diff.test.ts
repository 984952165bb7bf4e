import { createTwoFilesPatch } from 'diff';
import fc from 'fast-check';
import { stringify } from 'yaml';
import { describe, expect, it } from 'vitest';
import { templateWithoutHash, type PodTemplateSpec } from '../../../tools/kube/index.ts';
import { normalize } from '../../../tools/remediate/changes.ts';
import { redactValue } from '../../../tools/redact.ts';
import { MAX_DIFF_EDITS, MAX_DIFF_LINES, templateDiff } from '../../../tools/remediate/template-diff.ts';

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
    const diff = templateDiff(template('a', { env: env(450, 'x') }), template('a', { env: env(450, 'y') }));
    const lines = diff.split('\n');
    expect(lines).toHaveLength(MAX_DIFF_LINES + 1);
    expect(lines.at(-1)).toMatch(/^… \d+ more lines$/);
  });
});

describe('templateDiff of two very different templates of many lines (hostile env lists)', () => {
  const env = (n: number, v: string) =>
    Array.from({ length: n }, (_, i) => ({ name: `VAR_${i}`, value: `${v}${i}` }));

  // Myers' diff takes time proportional to the lines times the lines changed: 2,000 lines took
  // 0.8 s, 8,000 took 13.5 s, so these 120,000 would take a quarter of an hour. Given up beyond
  // MAX_DIFF_EDITS changed lines, it takes well under a second; the generous timeout is for a
  // loaded machine.
  it(
    `says so, instead of a diff, when more than ${MAX_DIFF_EDITS} lines change`,
    { timeout: 120_000 },
    () => {
      expect(
        templateDiff(template('a', { env: env(30_000, 'x') }), template('a', { env: env(30_000, 'y') })),
      ).toBe(
        [
          '--- current pod template',
          '+++ proposed pod template',
          `… more than ${MAX_DIFF_EDITS} lines change: too many to show; the itemised changes say what differs`,
        ].join('\n'),
      );
    },
  );

  /** The function as it was (its diff unbounded in cost). */
  const before = (from: PodTemplateSpec, to: PodTemplateSpec): string => {
    const yaml = (t: PodTemplateSpec) =>
      stringify(redactValue(normalize(templateWithoutHash(t)) ?? {}).value, {
        sortMapEntries: true,
        lineWidth: 0,
      });
    if (yaml(from) === yaml(to)) return '';
    const lines = createTwoFilesPatch(
      'current pod template',
      'proposed pod template',
      yaml(from),
      yaml(to),
      undefined,
      undefined,
      {
        context: 3,
      },
    ).split('\n');
    const start = lines.findIndex((line) => line.startsWith('--- '));
    const body = lines
      .slice(Math.max(0, start))
      .filter((line, index, all) => line !== '' || index < all.length - 1);
    if (body.length <= MAX_DIFF_LINES) return body.join('\n');
    return [...body.slice(0, MAX_DIFF_LINES), `… ${body.length - MAX_DIFF_LINES} more lines`].join('\n');
  };
  // At most 200 entries of 2 lines a side: at most 802 lines change, image included.
  const envList = fc.array(
    fc.record({ name: fc.constantFrom('A', 'B', 'C', 'D'), value: fc.constantFrom('1', '2', 'x') }),
    { maxLength: 200 },
  );
  it(`is the full diff it was when at most ${MAX_DIFF_EDITS} lines change`, () => {
    fc.assert(
      fc.property(envList, envList, fc.constantFrom('a', 'b'), (from, to, image) => {
        const [current, proposed] = [template('a', { env: from }), template(image, { env: to })];
        expect(templateDiff(current, proposed)).toBe(before(current, proposed));
      }),
      { numRuns: 300 },
    );
  });
});
