import { describe, expect, it } from 'vitest';
import type { PendingCall } from '../../../agent/harness/pending.ts';
import { defaultCallRenderer } from '../../../agent/harness/render.ts';

const call = (
  toolName: string,
  args: Record<string, unknown> | undefined,
  raw = JSON.stringify(args),
): PendingCall => ({
  threadId: 'main',
  toolCallId: 'c1',
  sourceEventId: 'm1',
  toolName,
  serverName: 'sentinel',
  rawArguments: raw,
  arguments: args,
});

/** structuredContent of a rollback dry run, as the remediation tools return it. */
const rollbackPreview = {
  text: 'DRY RUN — nothing was changed.',
  structured: {
    tool: 'rollback_deployment',
    status: 'preview',
    summary:
      'Roll back Deployment shop/checkout from revision 7 (checkout:2.4.1) to revision 6 (checkout:2.4.0)',
    cluster: { context: 'kind-shop', server: 'https://127.0.0.1:6443' },
    changes: [
      { kind: 'image', container: 'checkout', from: 'checkout:2.4.1', to: 'checkout:2.4.0', text: 'image' },
      {
        kind: 'env',
        container: 'checkout',
        key: 'DB_PASSWORD',
        from: 'hunter2',
        to: 'swordfish',
        text: 'env',
      },
    ],
    warnings: [{ kind: 'gitops', message: 'Argo CD manages this Deployment and may undo the change.' }],
  },
};

describe('defaultCallRenderer (on the shared approval renderer)', () => {
  it("asks the dry run's own summary, then shows cluster, changes and warnings, redacted", () => {
    const rendered = defaultCallRenderer.render(
      call('rollback_deployment', { namespace: 'shop', name: 'checkout' }),
      rollbackPreview,
    );
    expect(rendered.question).toBe(
      'Roll back Deployment shop/checkout from revision 7 (checkout:2.4.1) to revision 6 (checkout:2.4.0)?',
    );
    expect(rendered.details[0]).toBe('Cluster: context kind-shop, API server https://127.0.0.1:6443');
    expect(rendered.details[1]).toBe('Changes:');
    expect(rendered.details[2]).toMatch(/^ {2}- .*checkout:2\.4\.1 → checkout:2\.4\.0$/);
    expect(rendered.details.join('\n')).not.toMatch(/hunter2|swordfish/);
    expect(rendered.details.slice(-2)).toEqual([
      'Warnings:',
      '  - gitops: Argo CD manages this Deployment and may undo the change.',
    ]);
  });

  it('shows the text of a preview without the structured fields, bounded and redacted', () => {
    const text = [
      'line 0 token=abcdefgh12345678',
      ...Array.from({ length: 40 }, (_, i) => `line ${i + 1}`),
    ].join('\n');
    const { details } = defaultCallRenderer.render(
      call('scale_deployment', { namespace: 'a', name: 'b', replicas: 1 }),
      { text },
    );
    expect(details).toHaveLength(31);
    expect(details[0]).not.toContain('abcdefgh12345678');
    expect(details[30]).toBe('… 11 more lines not shown.');
  });

  it('puts the call in words when there is no preview', () => {
    const rendered = defaultCallRenderer.render(
      call('rollback_deployment', { namespace: 'shop', name: 'checkout', to_revision: 6 }),
      undefined,
    );
    expect(rendered).toEqual({ question: 'Roll back Deployment shop/checkout to revision 6?', details: [] });
    expect(defaultCallRenderer.render(call('delete_namespace', { name: 'shop' }), undefined).question).toBe(
      'Call delete_namespace with name=shop?',
    );
  });

  it('says plainly when the arguments are not a JSON object', () => {
    expect(
      defaultCallRenderer.render(call('rollback_deployment', undefined, '{"namespace":'), undefined).question,
    ).toBe('Run rollback_deployment with arguments that are not a JSON object ({"namespace":)?');
  });
});
