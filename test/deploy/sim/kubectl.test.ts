/**
 * The simulator through the real `kubectl` binary (an independent client) with the kubeconfig the
 * simulator writes: get with server-side Tables, describe, logs --previous, and the rollout
 * commands end to end. The clock runs 20x wall time so `rollout status` finishes in a second or two.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator } from '../../../deploy/sim/index.ts';
import type { Simulator } from '../../../deploy/sim/index.ts';
import { describeWithTool } from '../../helpers/system-tools.ts';

const run = promisify(execFile);

describeWithTool('kubectl', 'simulator via kubectl', (kubectlPath) => {
  let sim: Simulator;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sentinel-sim-kubectl-'));
    sim = await startSimulator({
      scenario: 'bad-image-rollout',
      timeScale: 20,
      kubeconfigPath: join(dir, 'kubeconfig'),
    });
  });

  afterAll(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function kubectl(...args: string[]): Promise<string> {
    const { stdout } = await run(kubectlPath, ['--kubeconfig', sim.kubeconfigPath!, '-n', 'shop', ...args], {
      timeout: 120_000,
      env: { ...process.env, HOME: dir, KUBECACHEDIR: join(dir, 'cache') },
    });
    return stdout;
  }

  it('get shows the Table columns and CrashLoopBackOff', async () => {
    const out = await kubectl('get', 'deployments,replicasets,pods,events');
    expect(out).toMatch(
      /NAME\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+AGE\ndeployment\.apps\/checkout\s+2\/3\s+2\s+2\s+3d/,
    );
    expect(out).toMatch(/NAME\s+DESIRED\s+CURRENT\s+READY\s+AGE/);
    expect(out).toMatch(/NAME\s+READY\s+STATUS\s+RESTARTS\s+AGE/);
    expect(out).toMatch(/pod\/checkout-\S+\s+0\/1\s+CrashLoopBackOff\s+\d+ \(\S+ ago\)\s+14m/);
    expect(out).toMatch(/LAST SEEN\s+TYPE\s+REASON\s+OBJECT\s+MESSAGE/);
    expect(out).toMatch(
      /Warning\s+BackOff\s+pod\/checkout-\S+\s+Back-off restarting failed container checkout/,
    );
  });

  it('describe deployment and logs --previous', async () => {
    const described = await kubectl('describe', 'deployment', 'checkout');
    expect(described).toMatch(
      /Replicas:\s+3 desired \| 2 updated \| 4 total \| 2 available \| 2 unavailable/,
    );
    expect(described).toMatch(/Progressing\s+False\s+ProgressDeadlineExceeded/);
    expect(described).toMatch(/NewReplicaSet:\s+checkout-\S+ \(2\/2 replicas created\)/);
    expect(described).toMatch(
      /ScalingReplicaSet\s+\S+\s+deployment-controller\s+Scaled up replica set checkout-\S+ from 0 to 1/,
    );

    const pods = await kubectl(
      'get',
      'pods',
      '-o',
      'jsonpath={range .items[*]}{.metadata.name} {.spec.containers[0].image}{"\\n"}{end}',
    );
    const crashing = pods
      .split('\n')
      .find((line) => line.endsWith(':2.4.1'))!
      .split(' ')[0]!;
    expect(await kubectl('logs', crashing, '--previous')).toContain('"level":"fatal"');
  });

  it('rollout history, undo, status, restart, pause, resume', async () => {
    expect(await kubectl('rollout', 'history', 'deployment/checkout')).toMatch(
      /1\s+deploy checkout 2\.3\.9\n2\s+deploy checkout 2\.4\.0\n3\s+deploy checkout 2\.4\.1/,
    );
    expect(await kubectl('rollout', 'undo', 'deployment/checkout')).toContain(
      'deployment.apps/checkout rolled back',
    );
    expect(await kubectl('rollout', 'status', 'deployment/checkout', '--timeout=30s')).toContain(
      'deployment "checkout" successfully rolled out',
    );
    expect(await kubectl('rollout', 'history', 'deployment/checkout')).toMatch(
      /3\s+deploy checkout 2\.4\.1\n4\s+deploy checkout 2\.4\.0/,
    );

    expect(await kubectl('rollout', 'restart', 'deployment/checkout')).toContain('restarted');
    expect(await kubectl('rollout', 'pause', 'deployment/checkout')).toContain('paused');
    expect(await kubectl('rollout', 'resume', 'deployment/checkout')).toContain('resumed');
    expect(await kubectl('rollout', 'status', 'deployment/checkout', '--timeout=30s')).toContain(
      'successfully rolled out',
    );
    expect(
      sim.mutationLog
        .filter((entry) => entry.code === 200)
        .map((entry) => `${entry.verb} ${entry.contentType}`),
    ).toEqual([
      'patch application/json-patch+json',
      'patch application/strategic-merge-patch+json',
      'patch application/strategic-merge-patch+json',
      'patch application/strategic-merge-patch+json',
    ]);
  });
});
