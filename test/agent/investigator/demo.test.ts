import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { PassThrough, Writable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { DEFAULT_DEMO_SCENARIO, DemoInterrupted, runDemo } from '../../../agent/investigator/demo.ts';
import { runCli } from '../../helpers/cli.ts';
import { terminalPrompter } from '../../../agent/harness/prompter.ts';

const SENTINEL = fileURLToPath(new URL('../../../bin/sentinel.js', import.meta.url));

/** Runs `action` with `process.stderr.isTTY` set to `terminal`, then restores it. */
async function withStderrTerminal<T>(terminal: boolean, action: () => Promise<T>): Promise<T> {
  const previous = Object.getOwnPropertyDescriptor(process.stderr, 'isTTY');
  Object.defineProperty(process.stderr, 'isTTY', { value: terminal, configurable: true });
  try {
    return await action();
  } finally {
    if (previous) Object.defineProperty(process.stderr, 'isTTY', previous);
    else delete (process.stderr as { isTTY?: boolean }).isTTY;
  }
}

describe('sentinel demo', { timeout: 240_000 }, () => {
  it('walks through the bad rollout non-interactively (--yes): evidence, approval, rollback, verified healthy', async () => {
    // stderr is a file or a pipe (`2>file`): the approvals page's token is not written to it.
    const { code, stdout, stderr } = await withStderrTerminal(false, () =>
      runCli(['demo', '--yes', '--time-scale', '60']),
    );
    expect(code, stderr).toBe(0);
    expect(stderr).toMatch(
      /approvals page: +http:\/\/127\.0\.0\.1:\d+\/ui\/approvals \(token in \S+\/local-server-\d+\.token, 0600, while the demo runs\)\n/,
    );
    expect(stderr).not.toContain('snt_');

    expect(stderr).toContain('Sentinel demo — scenario bad-image-rollout');
    expect(stderr).toContain('The pager says: "checkout returns 502');
    // The demo's cluster and data end with it: no resume hint.
    expect(stderr).not.toContain('--resume');
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

  it('on a terminal: the summary names a full report that is still there after the demo', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sentinel-demo-user-'));
    let text = '';
    const stdout = Object.assign(
      new Writable({
        write(chunk, _encoding, done) {
          text += String(chunk);
          done();
        },
      }),
      { isTTY: true },
    );
    const stderr = new Writable({ write: (_chunk, _encoding, done) => done() });
    try {
      const report = await runDemo(
        { scenario: DEFAULT_DEMO_SCENARIO, yes: true, timeScale: 60, dataDir },
        { stdout, stderr, interactive: false },
      );
      const file = join(dataDir, 'reports', `${report.id}.md`);
      // eslint-disable-next-line no-control-regex -- stripping terminal colour codes
      const plain = text.replace(/\u001b\[[0-9;]*m/g, '');
      expect(plain).toContain(`  Full report:   ${file} (`);
      // `demo` has no --format or --json: its summary must not name them (issue 18).
      expect(plain).not.toMatch(/--format|--json/);
      // The demo's own data directory is gone; the report the summary names is not.
      expect(readFileSync(file, 'utf8')).toMatch(/^# Investigation inv_\w+\n[\s\S]*## Evidence/);
      expect(statSync(file).mode & 0o777).toBe(0o600);
    } finally {
      rmSync(dataDir, { recursive: true, force: true });
    }
  });

  it('on a terminal, "y" does not approve the rollback: typing the Deployment name does (as `approvals approve`)', async () => {
    const input = new PassThrough();
    let text = '';
    const stderr = new Writable({
      write(chunk, _encoding, done) {
        text += String(chunk);
        done();
      },
    });
    // Typed ahead: the prompter buffers lines, so "y" answers the first question, "checkout" the next.
    input.write('y\ncheckout\n');
    const report = await runDemo(
      { scenario: DEFAULT_DEMO_SCENARIO, yes: false, timeScale: 60 },
      {
        stdout: new Writable({ write: (_chunk, _encoding, done) => done() }),
        stderr,
        interactive: true,
        prompter: terminalPrompter(input, stderr),
      },
    );
    expect(text).toContain("type the Deployment's name to approve it");
    expect(text).toContain("Type 'checkout' to approve apr_");
    expect(text).not.toContain('Approve this call? [y/N]');
    expect(text).toContain("'y' is not 'checkout': nothing was approved.");
    expect(report.action).toMatchObject({ kind: 'rollback', status: 'executed', decided_by: 'local' });
    expect(report.verification).toMatchObject({ healthy: true });
  });

  it('Ctrl-C while it waits for approval: removes everything, exits 130, offers no resume', async () => {
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !key.startsWith('SENTINEL_')),
    );
    const child = spawn(process.execPath, [SENTINEL, 'demo', '--wait', '--time-scale', '60'], {
      env,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    child.stdout.resume();
    const waiting = new Promise<void>((resolve) =>
      child.stderr.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (stderr.includes('Waiting for a decision')) resolve();
      }),
    );
    const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)));
    await Promise.race([waiting, exited]);
    const kubeconfig = /kubectl --kubeconfig (\S+) get pods/.exec(stderr)?.[1];
    expect(kubeconfig, stderr).toBeDefined();
    expect(existsSync(dirname(kubeconfig!))).toBe(true);
    child.kill('SIGINT');
    expect(await exited).toBe(130);
    expect(stderr).toContain('Demo stopped. Nothing is left behind');
    expect(stderr).not.toContain('--resume');
    expect(existsSync(dirname(kubeconfig!))).toBe(false);
  });

  it('without a terminal or --yes, declines the proposal at once and says how to approve (exit 1)', async () => {
    const { code, stdout, stderr } = await runCli(['demo', '--time-scale', '60']);
    expect(code, stderr).toBe(1);
    expect(stderr).toContain(
      'No terminal to ask at (stdin is not one): the proposed change will be declined, so nothing changes. `npx sentinel demo --yes` approves it; `--wait` waits for a decision on the approvals page.',
    );
    expect(stderr).toContain('Declined: no terminal to answer at.');
    // Nobody answered: no `[y/N] n` that reads as if someone had typed it.
    expect(stderr).not.toContain('[y/N]');
    expect(stderr).not.toContain('Waiting for a decision');
    expect(stdout).toContain('declined');
  });

  it('shows the approvals page token only when stderr is a terminal', async () => {
    const controller = new AbortController();
    let stderr = '';
    const terminal = new Writable({
      write(chunk: Buffer, _encoding, done) {
        stderr += chunk.toString();
        controller.abort(); // the banner is all this test needs
        done();
      },
    });
    const demo = runDemo(
      { scenario: DEFAULT_DEMO_SCENARIO, yes: true, timeScale: 60, signal: controller.signal },
      { stdout: new PassThrough(), stderr: terminal, terminal: true },
    );
    await expect(demo).rejects.toBeInstanceOf(DemoInterrupted);
    expect(stderr).toMatch(
      /approvals page: +http:\/\/127\.0\.0\.1:\d+\/ui\/approvals \(token: snt_[\w-]{43}\)\n/,
    );
  });

  it.each([
    ['daemonset-bad-rollout', 'DaemonSet shop/log-shipper', []],
    ['statefulset-bad-rollout', 'StatefulSet shop/postgres', ['Forced rollback: Pod shop/postgres-2']],
  ])('--scenario %s: rolls the %s back, approved, to healthy', async (scenario, workload, extra) => {
    const { code, stdout, stderr } = await runCli([
      'demo',
      '--scenario',
      scenario,
      '--yes',
      '--time-scale',
      '60',
    ]);
    expect(code, stderr).toBe(0);
    const order = [
      `Sentinel demo — scenario ${scenario}`,
      `Roll back ${workload} from revision`,
      'Approving (--yes).',
      ...extra,
      `Demo complete: ${workload} is healthy again.`,
    ].map((text) => stderr.indexOf(text));
    expect(order.every((index) => index >= 0)).toBe(true);
    expect([...order].sort((a, b) => a - b)).toEqual(order);
    expect(stdout).toContain('## Verification\n\nHealthy: rollout complete');
  });

  it('names an unknown scenario', async () => {
    const { code, stderr } = await runCli(['demo', '--scenario', 'no-such-scenario', '--yes']);
    expect(code).toBe(2);
    expect(stderr).toContain('scenario "no-such-scenario" is neither a bundled scenario');
  });

  it('names a bad --read-cache by the rule of serve --read-cache, before starting anything', async () => {
    const { code, stderr } = await runCli(['demo', '--read-cache', 'informer', '--yes']);
    expect(code).toBe(2);
    expect(stderr).toContain("--read-cache: must be 'off' or 'watch'.");
    expect(stderr).not.toContain('Sentinel demo');
  });
});
