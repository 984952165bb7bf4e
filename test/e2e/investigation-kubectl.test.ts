/**
 * The investigation tools show what kubectl shows: on the simulator's scenarios, each tool's view is
 * compared with the real `kubectl` command it mirrors, run against the same simulator.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../deploy/sim/index.ts';
import type { Tool, ToolContext } from '../../tools/define-tool.ts';
import { getPodLogs } from '../../tools/investigate/get-pod-logs.ts';
import { getRolloutHistory } from '../../tools/investigate/get-rollout-history.ts';
import { getRolloutStatus } from '../../tools/investigate/get-rollout-status.ts';
import { listDeployments } from '../../tools/investigate/list-deployments.ts';
import { listPods } from '../../tools/investigate/list-pods.ts';
import { connectKube } from '../../tools/kube/connect.ts';
import { describeWithTool } from '../helpers/system-tools.ts';

const run = promisify(execFile);
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describeWithTool('kubectl', 'investigation tools show what kubectl shows', (kubectlPath) => {
  describe.each([
    'bad-image-rollout',
    'oom-after-limit-change',
    'paused-rollout',
    'stuck-config',
    'image-pull-error',
  ])('%s', (scenario) => {
    let dir: string;
    let sim: Simulator;
    let ctx: ToolContext;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'sentinel-investigate-kubectl-'));
      sim = await startSimulator({ scenario, timeScale: 0, kubeconfigPath: join(dir, 'kubeconfig') });
      const kube = connectKube({ kubeconfig: sim.kubeconfigPath });
      if (!kube.configured) throw new Error(kube.reason);
      ctx = { kube: kube.reader, cluster: kube.cluster, signal: new AbortController().signal, dryRun: false };
    });
    afterAll(async () => {
      await sim?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    async function kubectl(...args: string[]): Promise<{ stdout: string; stderr: string; code: number }> {
      try {
        const { stdout, stderr } = await run(
          kubectlPath,
          ['--kubeconfig', sim.kubeconfigPath!, '-n', 'shop', ...args],
          {
            timeout: 120_000,
            env: { ...process.env, HOME: dir, KUBECACHEDIR: join(dir, 'cache') },
          },
        );
        return { stdout, stderr, code: 0 };
      } catch (error) {
        const e = error as { stdout: string; stderr: string; code: number };
        return { stdout: e.stdout, stderr: e.stderr, code: e.code };
      }
    }

    async function tool(t: Tool, args: Record<string, unknown>): Promise<Json> {
      return (await t.handler(t.input.parse({ namespace: 'shop', ...args }), ctx)).structured as Json;
    }

    const rows = (text: string) =>
      text
        .trim()
        .split('\n')
        .map((line) => line.trim().split(/\s+/));

    it('list_deployments: READY, UP-TO-DATE, AVAILABLE like kubectl get deployments', async () => {
      const ours = (await tool(listDeployments, {})).deployments as Json[];
      const theirs = rows((await kubectl('get', 'deployments', '--no-headers')).stdout);
      expect(
        ours.map((d) => [d.name, `${d.ready}/${d.desired}`, String(d.updated), String(d.available)]),
      ).toEqual(theirs.map((r) => r.slice(0, 4)));
    });

    it('list_pods: READY, STATUS and RESTARTS like kubectl get pods', async () => {
      const ours = (await tool(listPods, {})).pods as Json[];
      const { stdout } = await kubectl(
        'get',
        'pods',
        '--no-headers',
        '-o',
        'custom-columns=NAME:.metadata.name',
      );
      const table = (await kubectl('get', 'pods', '--no-headers')).stdout.trim().split('\n');
      expect(ours.map((p) => p.name)).toEqual(stdout.trim().split('\n'));
      for (const [i, line] of table.entries()) {
        const [name, ready, status, restarts] = line.trim().split(/\s+/);
        expect([
          ours[i]!.name,
          `${ours[i]!.ready_containers}/${ours[i]!.total_containers}`,
          ours[i]!.status,
          String(ours[i]!.restarts),
        ]).toEqual([name, ready, status, restarts]);
      }
    });

    it('get_rollout_history: the revisions and change-causes of kubectl rollout history', async () => {
      const ours = (await tool(getRolloutHistory, { name: 'checkout' })).revisions as Json[];
      const lines = (await kubectl('rollout', 'history', 'deployment/checkout')).stdout
        .trim()
        .split('\n')
        .slice(2);
      const theirs = lines.map((line) => {
        const [, revision, cause] = /^(\d+)\s+(.*)$/.exec(line.trim())!;
        return [Number(revision), cause === '<none>' ? null : cause];
      });
      expect([...ours].reverse().map((r) => [r.revision, r.change_cause])).toEqual(theirs);
    });

    it('get_rollout_status: the verdict of kubectl rollout status', async () => {
      const ours = await tool(getRolloutStatus, { name: 'checkout' });
      const theirs = await kubectl('rollout', 'status', 'deployment/checkout', '--watch=false');
      if (ours.state === 'failed') {
        expect(theirs.code).not.toBe(0);
        expect(theirs.stderr).toContain('deployment "checkout" exceeded its progress deadline');
        expect(ours.message).toMatch(/^deployment "checkout" exceeded its progress deadline/);
      } else if (ours.state === 'paused') {
        // kubectl does not know "paused": it reports the unfinished rollout it would wait on.
        expect(theirs.stdout).toContain('Waiting for deployment "checkout" rollout to finish');
        expect(ours.message).toContain(
          theirs.stdout
            .trim()
            .replace(/^Waiting for deployment "checkout" rollout to finish: /, '')
            .replace(/\.\.\.$/, ''),
        );
      } else {
        expect(theirs.stdout.trim()).toBe(ours.message);
      }
    });

    it('get_pod_logs: the same lines as kubectl logs (previous instance when there is one)', async () => {
      const pods = (await tool(listPods, { deployment: 'checkout' })).pods as Json[];
      const target =
        pods.find((p) => p.containers.some((c: Json) => c.last_termination)) ??
        pods.find((p) => p.status === 'Running');
      if (!target) return;
      const previous = target.containers.some((c: Json) => c.last_termination);
      const ours = await tool(getPodLogs, {
        pod: target.name,
        container: 'checkout',
        previous,
        tail_lines: 50,
      });
      const theirs = await kubectl(
        'logs',
        target.name,
        '-c',
        'checkout',
        '--tail=50',
        ...(previous ? ['--previous'] : []),
      );
      expect(ours.log).toBe(theirs.stdout);
    });
  });
});
