import { describe, expect, it } from 'vitest';
import {
  checkConfirmation,
  confirmationFor,
  PageApproveBodySchema,
} from '../../../server/ui/confirmation.ts';
import { approvalFixture, FIXTURES } from '../../helpers/approvals.ts';

describe('confirmationFor', () => {
  it('asks for the Deployment name before scaling to 0, stating that every Pod stops', () => {
    expect(confirmationFor(FIXTURES.scale_deployment)).toEqual({
      expected: 'checkout',
      effect:
        'Scaling Deployment shop/checkout to 0 replicas stops every Pod; the service is unavailable until it is scaled back up.',
    });
  });

  it('asks for it before every destructive call, with what the call does', () => {
    expect(confirmationFor(FIXTURES.rollback_deployment)).toEqual({
      expected: 'checkout',
      effect:
        'Roll back Deployment shop/checkout from revision 7 (checkout:2.4.1) to revision 6 (checkout:2.4.0).',
    });
    expect(confirmationFor(FIXTURES.restart_service)?.expected).toBe('checkout');
  });

  it('asks nothing for write tools (pause, resume)', () => {
    expect(confirmationFor(FIXTURES.pause_rollout)).toBeUndefined();
    expect(confirmationFor(FIXTURES.resume_rollout)).toBeUndefined();
  });

  it('falls back to the request id when the call names no object', () => {
    const request = approvalFixture({ tool: 'drain_everything', arguments: {}, preview: null });
    expect(confirmationFor(request)?.expected).toBe(request.id);
  });
});

describe('checkConfirmation', () => {
  it('refuses a dangerous approval without the typed name, or with another name, naming the field', () => {
    for (const presented of [undefined, '', 'payments', 'Checkout']) {
      expect(() => checkConfirmation(FIXTURES.scale_deployment, presented)).toThrow(
        expect.objectContaining({
          code: 'invalid_input',
          field: 'confirm',
          message: expect.stringMatching(
            /^confirm: type 'checkout' to approve apr_2222222222222222\. Scaling/,
          ),
        }),
      );
    }
  });

  it('accepts the exact name (surrounding spaces ignored) and anything for write tools', () => {
    expect(() => checkConfirmation(FIXTURES.scale_deployment, ' checkout ')).not.toThrow();
    expect(() => checkConfirmation(FIXTURES.pause_rollout, undefined)).not.toThrow();
  });
});

describe('PageApproveBodySchema', () => {
  it('is the approvals API body plus confirm, still strict', () => {
    expect(PageApproveBodySchema.parse({ validity: { window: '15m' }, confirm: 'checkout' })).toEqual({
      validity: { window: '15m' },
      confirm: 'checkout',
    });
    expect(PageApproveBodySchema.safeParse({ confirmed: 'checkout' }).success).toBe(false);
  });
});
