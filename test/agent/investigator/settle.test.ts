/** The settle window's comparison: an unchanged template holds; a change names its field manager and time. */
import { describe, expect, it } from 'vitest';
import {
  approvedTemplate,
  findRevert,
  findRevertOfApproved,
  revertLine,
  type TemplateView,
} from '../../../agent/investigator/settle.ts';

const view = (image: string, managers: TemplateView['template_managers'] = []): TemplateView => ({
  containers: [{ name: 'checkout', image }],
  init_containers: [],
  template_managers: managers,
});

describe('findRevert', () => {
  it('finds nothing while the template is the approved one', () => {
    expect(findRevert(view('checkout:2.4.0'), view('checkout:2.4.0'))).toBeUndefined();
  });

  it('names the newest writer other than sentinel, its time and the change', () => {
    const revert = findRevert(
      view('checkout:2.4.0'),
      view('checkout:2.4.1', [
        { manager: 'sentinel', operation: 'Update', time: '2026-12-02T01:41:00.000Z' },
        { manager: 'flux-client-side-apply', operation: 'Update', time: '2026-12-02T01:40:00.000Z' },
      ]),
    );
    expect(revert).toEqual({
      manager: 'flux-client-side-apply',
      time: '2026-12-02T01:40:00.000Z',
      change: 'container checkout image checkout:2.4.0 → checkout:2.4.1',
    });
    expect(revertLine(revert!)).toBe(
      'reverted by flux-client-side-apply at 2026-12-02T01:40:00.000Z (container checkout image checkout:2.4.0 → checkout:2.4.1)',
    );
  });

  it('says unknown when managedFields name no other writer', () => {
    expect(findRevert(view('a:1'), view('a:2'))?.manager).toBe('unknown');
  });
});

describe('the approved template from the effect', () => {
  const live = (image: string, digest: string, managers: TemplateView['template_managers'] = []) => ({
    ...view(image, managers),
    template_digest: digest,
  });
  const argo = [
    { manager: 'argocd-application-controller', operation: 'Update', time: '2026-12-02T01:40:00.000Z' },
  ];

  it('is a rollback’s to_template and to_images, or a restart’s images, or nothing', () => {
    expect(
      approvedTemplate({
        to_template: 'aaaa',
        to_images: ['checkout=checkout:2.4.0'],
        from_template: 'bbbb',
      }),
    ).toEqual({ digest: 'aaaa', images: ['checkout=checkout:2.4.0'] });
    expect(approvedTemplate({ template: 'cccc', images: ['checkout=checkout:2.4.0'] })).toEqual({
      images: ['checkout=checkout:2.4.0'],
    });
    expect(approvedTemplate({ replicas: 3 })).toBeUndefined();
    expect(approvedTemplate(null)).toBeUndefined();
  });

  it('holds while the live digest is the approved one', () => {
    const approved = { digest: 'aaaa', images: ['checkout=checkout:2.4.0'] };
    expect(findRevertOfApproved(approved, live('checkout:2.4.0', 'aaaa'))).toBeUndefined();
  });

  it('is reverted when the template differs from the effect’s, even if it already did at the first look', () => {
    const approved = { digest: 'aaaa', images: ['checkout=checkout:2.4.0'] };
    expect(findRevertOfApproved(approved, live('checkout:2.4.1', 'bbbb', argo))).toEqual({
      manager: 'argocd-application-controller',
      time: '2026-12-02T01:40:00.000Z',
      change: 'container checkout image checkout:2.4.0 → checkout:2.4.1',
    });
    expect(findRevertOfApproved(approved, live('checkout:2.4.0', 'cccc', argo))?.change).toBe(
      'pod template differs from the approved one (template digest aaaa → cccc)',
    );
  });

  it('compares images alone when the effect has no digest (a restart)', () => {
    const approved = { images: ['checkout=checkout:2.4.0'] };
    expect(findRevertOfApproved(approved, live('checkout:2.4.0', 'dddd'))).toBeUndefined();
    expect(findRevertOfApproved(approved, live('checkout:2.4.1', 'dddd'))?.manager).toBe('unknown');
  });
});
