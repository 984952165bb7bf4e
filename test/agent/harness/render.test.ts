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

describe('defaultCallRenderer', () => {
  it("asks the dry run's own summary as the question", () => {
    const rendered = defaultCallRenderer.render(
      call('rollback_deployment', { namespace: 'shop', name: 'checkout' }),
      {
        text: 'DRY RUN — nothing was changed.',
        structured: {
          summary:
            'Roll back Deployment shop/checkout from revision 7 (checkout:2.4.1) to revision 6 (checkout:2.4.0)',
        },
      },
    );
    expect(rendered).toBe(
      'Roll back Deployment shop/checkout from revision 7 (checkout:2.4.1) to revision 6 (checkout:2.4.0)?',
    );
  });

  it.each([
    [
      'rollback_deployment',
      { namespace: 'shop', name: 'checkout' },
      'Roll back Deployment shop/checkout to its previous revision?',
    ],
    [
      'rollback_deployment',
      { namespace: 'shop', name: 'checkout', to_revision: 6 },
      'Roll back Deployment shop/checkout to revision 6?',
    ],
    [
      'restart_service',
      { namespace: 'shop', name: 'web' },
      'Restart shop/web (rolling restart, like `kubectl rollout restart`)?',
    ],
    [
      'scale_deployment',
      { namespace: 'shop', name: 'cart', replicas: 0 },
      'Scale Deployment shop/cart to 0 replicas?',
    ],
    ['pause_rollout', { namespace: 'shop', name: 'cart' }, 'Pause rollouts of Deployment shop/cart?'],
    ['resume_rollout', { namespace: 'shop', name: 'cart' }, 'Resume rollouts of Deployment shop/cart?'],
  ])('puts %s in words when there is no preview', (tool, args, expected) => {
    expect(defaultCallRenderer.render(call(tool, args), undefined)).toBe(expected);
  });

  it('shows any other call with its exact arguments', () => {
    expect(defaultCallRenderer.render(call('delete_namespace', { name: 'shop' }), undefined)).toBe(
      'Run delete_namespace with {"name":"shop"}?',
    );
    expect(
      defaultCallRenderer.render(call('rollback_deployment', undefined, '{"namespace":'), undefined),
    ).toBe('Run rollback_deployment with {"namespace":?');
  });
});
