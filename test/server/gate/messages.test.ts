import { describe, expect, it } from 'vitest';
import { firstLine } from '../../../server/gate/messages.ts';

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
