import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { firstLine, isClusterBanner } from '../../../server/gate/messages.ts';

describe('execution outcome line', () => {
  it('records the change, not the "Cluster …" banner every tool text starts with', () => {
    const text =
      "Cluster 'kind-sentinel' (https://127.0.0.1:6443)\nDone: Scale Deployment shop/web from 3 to 5 replicas.";
    expect(firstLine({ content: [{ type: 'text', text }] })).toBe(
      'Done: Scale Deployment shop/web from 3 to 5 replicas.',
    );
    expect(firstLine({ content: [{ type: 'text', text }], isError: true })).toBe(
      'error: Done: Scale Deployment shop/web from 3 to 5 replicas.',
    );
  });

  it("prefers the tool's structured status and summary", () => {
    expect(
      firstLine({
        content: [{ type: 'text', text: "Cluster 'kind' (https://x)\nDone: …" }],
        structuredContent: { status: 'applied', summary: 'Roll back Deployment shop/checkout to revision 6' },
      }),
    ).toBe('applied: Roll back Deployment shop/checkout to revision 6');
  });
});

describe('the cluster banner test on hostile text', () => {
  // `^Cluster '.*' \(.*\)$` rescanned the rest of the line from each `' (` in it: quadratic, a line
  // of 32,000 characters took 0.28 s, so 1.5 MB would take about ten minutes. Linear now, it takes
  // milliseconds; the generous timeout is for a loaded machine.
  it('reads past a first line of many "\' (" with no ")" at its end', { timeout: 120_000 }, () => {
    const line = `Cluster '${"' (".repeat(500_000)}`;
    expect(firstLine({ content: [{ type: 'text', text: `${line}\nDone.` }] })).toBe(
      `${line.slice(0, 297)}...`,
    );
  });

  /** The expression it replaces (quadratic on a line of many `' (`). */
  const CLUSTER_BANNER = /^Cluster '.*' \(.*\)$/;
  const line = fc
    .array(fc.constantFrom("Cluster '", "'", ' ', '(', ')', "' (", 'x', '\r', '\u2028', '\n'), {
      maxLength: 10,
    })
    .map((parts) => parts.join(''));
  it('gives what the expression gave, for any line', () => {
    fc.assert(
      fc.property(line, (value) => {
        expect(isClusterBanner(value)).toBe(CLUSTER_BANNER.test(value));
      }),
      { numRuns: 10_000 },
    );
  });
});
