/** The settle window's comparison: an unchanged template holds; a change names its field manager and time. */
import { describe, expect, it } from 'vitest';
import { findRevert, revertLine, type TemplateView } from '../../../agent/investigator/settle.ts';

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
