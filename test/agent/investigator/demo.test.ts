import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../helpers/cli.ts';

describe('sentinel demo', { timeout: 90_000 }, () => {
  it('walks through the bad rollout non-interactively (--yes): evidence, approval, rollback, verified healthy', async () => {
    const { code, stdout, stderr } = await runCli(['demo', '--yes', '--time-scale', '60']);
    expect(code, stderr).toBe(0);

    expect(stderr).toContain('Sentinel demo — scenario bad-image-rollout');
    expect(stderr).toContain('The pager says: "checkout returns 502');
    const kubeconfig = /kubectl --kubeconfig (\S+) get pods -n shop/.exec(stderr)?.[1];
    expect(kubeconfig).toBeDefined();
    expect(stderr).toMatch(/approvals page: +http:\/\/127\.0\.0\.1:\d+\/ui\/approvals/);
    // In order: evidence, the approval request, the approval, the verification.
    const order = [
      'Evidence:',
      'Roll back Deployment shop/checkout from revision 3',
      'Approving (--yes).',
      'Verification 1/8: complete',
      'Demo complete: Deployment shop/checkout is healthy again.',
    ].map((text) => stderr.indexOf(text));
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);

    expect(stdout).toMatch(/^# Investigation inv_[0-9a-f]{16}\n/);
    expect(stdout).toContain('## Verification\n\nHealthy: rollout complete');
    // Nothing is left behind: the simulator's kubeconfig went with its temporary data directory.
    expect(existsSync(kubeconfig!)).toBe(false);
  });

  it('names an unknown scenario', async () => {
    const { code, stderr } = await runCli(['demo', '--scenario', 'no-such-scenario', '--yes']);
    expect(code).toBe(2);
    expect(stderr).toContain('scenario "no-such-scenario" is neither a bundled scenario');
  });
});
