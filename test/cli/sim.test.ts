/**
 * `sentinel sim` as a process: prints where it listens and the kubeconfig path, serves the scenario,
 * records requests with `--audit-log`, stops cleanly on SIGINT; bad options fail with a clear message before anything starts.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { CoreV1Api, KubeConfig } from '@kubernetes/client-node';
import { afterAll, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../bin/sentinel.js', import.meta.url));
const dir = mkdtempSync(join(tmpdir(), 'sentinel-sim-cli-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function sentinel(args: string[]) {
  const child = spawn(process.execPath, [BIN, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  const exited = new Promise<number | null>((resolve) => child.on('exit', (code) => resolve(code)));
  return { child, exited, output: () => ({ stdout, stderr }) };
}

describe('sentinel sim', () => {
  it('serves the scenario with the kubeconfig it writes and stops on SIGINT', async () => {
    const kubeconfig = join(dir, 'kc');
    const auditLog = join(dir, 'audit.log');
    const run = sentinel([
      'sim',
      '--scenario',
      'bad-image-rollout',
      '--kubeconfig-out',
      kubeconfig,
      '--time-scale',
      '10',
      '--audit-log',
      auditLog,
    ]);
    while (!run.output().stdout.includes('Ctrl-C')) {
      if (run.child.exitCode !== null) throw new Error(`sentinel sim exited: ${run.output().stderr}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const { stdout } = run.output();
    expect(stdout).toMatch(
      /listening on https:\/\/127\.0\.0\.1:\d+ \(scenario bad-image-rollout, time scale 10\)/,
    );
    expect(stdout).toContain(`kubeconfig: ${kubeconfig}`);

    const kc = new KubeConfig();
    kc.loadFromString(readFileSync(kubeconfig, 'utf8'));
    const pods = await kc.makeApiClient(CoreV1Api).listNamespacedPod({ namespace: 'shop' });
    expect(
      pods.items.some(
        (pod) => pod.status?.containerStatuses?.[0]?.state?.waiting?.reason === 'CrashLoopBackOff',
      ),
    ).toBe(true);
    // --audit-log: the list above is one line, with its verb, resource, user and status.
    const audited = readFileSync(auditLog, 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(audited).toMatchObject([
      {
        verb: 'list',
        requestURI: '/api/v1/namespaces/shop/pods',
        user: { username: 'sim-admin' },
        objectRef: { resource: 'pods', namespace: 'shop' },
        responseStatus: { code: 200 },
        dryRun: false,
      },
    ]);

    run.child.kill('SIGINT');
    expect(await run.exited).toBe(0);
    expect(run.output().stdout).toContain('simulator stopped');
  });

  it('rejects a bad time scale and an unknown scenario without starting', async () => {
    const badScale = sentinel(['sim', '--scenario', 'healthy', '--time-scale', '-1']);
    expect(await badScale.exited).not.toBe(0);
    expect(badScale.output().stderr).toContain("option '--time-scale <n>' argument '-1' is invalid");
    const unknown = sentinel(['sim', '--scenario', 'nope', '--kubeconfig-out', join(dir, 'never')]);
    expect(await unknown.exited).toBe(2);
    expect(unknown.output().stderr).toContain('sentinel: scenario "nope" is neither a bundled scenario');
  });
});
