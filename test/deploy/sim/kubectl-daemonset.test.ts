/**
 * DaemonSets and their ControllerRevisions on the simulator through the real kubectl: `get`,
 * `rollout history|status|undo|restart` with kubectl's own output, one Pod per node honouring
 * taints (a cordoned node keeps its daemon Pod, a tainted one loses it), and a surge rollout. The
 * clock is frozen and moved by the test; `rollout status` runs with `--watch=false`.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator } from '../../../deploy/sim/index.ts';
import type { Simulator } from '../../../deploy/sim/index.ts';
import type { ControllerRevision, DaemonSet, Pod } from '../../../deploy/sim/types.ts';
import { runKubectl } from '../../helpers/sim-kubectl.ts';
import { describeWithTool } from '../../helpers/system-tools.ts';
import { workloadScenario } from '../../helpers/workload-scenario.ts';

describeWithTool('kubectl', 'DaemonSets on the simulator via kubectl', (kubectlPath) => {
  let sim: Simulator;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sentinel-sim-ds-'));
    sim = await startSimulator({
      scenario: workloadScenario(),
      timeScale: 0,
      kubeconfigPath: join(dir, 'kubeconfig'),
    });
  });

  afterAll(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  async function kubectl(...args: string[]): Promise<string> {
    const result = await runKubectl(kubectlPath, sim.kubeconfigPath!, dir, ['-n', 'shop', ...args]);
    if (result.code !== 0) throw new Error(`kubectl ${args.join(' ')}: ${result.stderr}`);
    return result.stdout;
  }

  const store = () => sim.cluster.store;
  const ds = () => store().get<DaemonSet>('daemonsets', 'shop', 'agent')!;
  const revisions = () =>
    Object.fromEntries(
      store()
        .list<ControllerRevision>('controllerrevisions', 'shop')
        .filter((revision) => revision.metadata.ownerReferences?.[0]?.kind === 'DaemonSet')
        .map((revision) => [revision.metadata.labels!['controller-revision-hash']!, revision.revision]),
    );
  const livePods = () =>
    store()
      .list<Pod>('pods', 'shop')
      .filter((pod) => pod.metadata.labels?.['app'] === 'agent' && !pod.metadata.deletionTimestamp);
  const settle = (seconds: number) => {
    for (let step = 0; step < seconds / 5; step++) sim.clock.advance(5_000);
  };

  it('get shows the DaemonSet and its revisions as a cluster prints them', async () => {
    const out = await kubectl('get', 'daemonsets,controllerrevisions', '-l', 'app=agent');
    expect(out).toMatch(
      /NAME\s+DESIRED\s+CURRENT\s+READY\s+UP-TO-DATE\s+AVAILABLE\s+NODE SELECTOR\s+AGE\ndaemonset\.apps\/agent\s+3\s+3\s+2\s+1\s+2\s+<none>\s+60m/,
    );
    expect(out).toMatch(/controllerrevision\.apps\/agent-[a-z0-9]+\s+daemonset\.apps\/agent\s+1\s+60m/);
    expect(out).toMatch(/controllerrevision\.apps\/agent-[a-z0-9]+\s+daemonset\.apps\/agent\s+2\s+10m/);
  });

  it('runs one Pod per node, pinned by node affinity and labelled with the revision hash', () => {
    const pods = livePods();
    expect(pods.map((pod) => pod.spec.nodeName).sort()).toEqual(['sim-worker', 'sim-worker2', 'sim-worker3']);
    for (const pod of pods) {
      expect(pod.spec['affinity']).toEqual({
        nodeAffinity: {
          requiredDuringSchedulingIgnoredDuringExecution: {
            nodeSelectorTerms: [
              { matchFields: [{ key: 'metadata.name', operator: 'In', values: [pod.spec.nodeName] }] },
            ],
          },
        },
      });
      expect(Object.keys(revisions())).toContain(pod.metadata.labels!['controller-revision-hash']);
    }
    expect(ds().status).toEqual({
      currentNumberScheduled: 3,
      numberMisscheduled: 0,
      desiredNumberScheduled: 3,
      numberReady: 2,
      observedGeneration: 2,
      updatedNumberScheduled: 1,
      numberAvailable: 2,
      numberUnavailable: 1,
    });
  });

  it('rollout history and status', async () => {
    expect(await kubectl('rollout', 'history', 'daemonset/agent')).toMatch(
      /daemonset\.apps\/agent\s*\nREVISION\s+CHANGE-CAUSE\n1\s+agent 1\.0\n2\s+agent 1\.1\n/,
    );
    expect(await kubectl('rollout', 'history', 'daemonset/agent', '--revision=2')).toMatch(
      /Image:\s+registry\.example\.com\/agent:1\.1/,
    );
    // maxUnavailable 1 is spent on the crash-looping Pod: the rollout is stuck.
    settle(120);
    expect(await kubectl('rollout', 'status', 'daemonset/agent', '--watch=false')).toBe(
      'Waiting for daemon set "agent" rollout to finish: 1 out of 3 new pods have been updated...\n',
    );
  });

  it('rollout undo renumbers revision 1 to 3 and replaces the broken Pod', async () => {
    const [first, second] = Object.entries(revisions())
      .sort(([, a], [, b]) => a - b)
      .map(([hash]) => hash);
    expect(await kubectl('rollout', 'undo', 'daemonset/agent')).toBe('daemonset.apps/agent rolled back\n');
    expect(revisions()).toEqual({ [first!]: 3, [second!]: 2 });
    settle(60);
    expect(livePods().map((pod) => pod.metadata.labels!['controller-revision-hash'])).toEqual([
      first,
      first,
      first,
    ]);
    expect(await kubectl('rollout', 'status', 'daemonset/agent', '--watch=false')).toBe(
      'daemon set "agent" successfully rolled out\n',
    );
    expect(await kubectl('rollout', 'undo', 'daemonset/agent', '--to-revision=3')).toBe(
      'daemonset.apps/agent skipped rollback (current template already matches revision 3)\n',
    );
  });

  it('a cordoned node keeps its daemon Pod; a NoSchedule taint it does not tolerate removes it', async () => {
    await kubectl('cordon', 'sim-worker2');
    await kubectl('taint', 'nodes', 'sim-worker3', 'dedicated=db:NoSchedule');
    settle(10);
    expect(
      livePods()
        .map((pod) => pod.spec.nodeName)
        .sort(),
    ).toEqual(['sim-worker', 'sim-worker2']);
    expect(ds().status).toMatchObject({ desiredNumberScheduled: 2, currentNumberScheduled: 2 });
    await kubectl('taint', 'nodes', 'sim-worker3', 'dedicated=db:NoSchedule-');
    await kubectl('uncordon', 'sim-worker2');
    settle(30);
    expect(ds().status).toMatchObject({ desiredNumberScheduled: 3, numberAvailable: 3 });
  });

  it('rollout restart with maxSurge starts the new Pod next to the old one before removing it', async () => {
    await kubectl(
      'patch',
      'daemonset/agent',
      '-p',
      '{"spec":{"updateStrategy":{"rollingUpdate":{"maxSurge":1,"maxUnavailable":0}}}}',
    );
    expect(await kubectl('rollout', 'restart', 'daemonset/agent')).toBe('daemonset.apps/agent restarted\n');
    const nodes = livePods().map((pod) => pod.spec.nodeName ?? '(pending)');
    // Three old Pods and one surge Pod on one of their nodes.
    expect(nodes).toHaveLength(4);
    expect(new Set(nodes.filter((node) => node !== '(pending)')).size).toBeLessThanOrEqual(3);
    settle(120);
    expect(livePods()).toHaveLength(3);
    expect(Object.values(revisions()).sort()).toEqual([2, 3, 4]);
    expect(await kubectl('rollout', 'status', 'daemonset/agent', '--watch=false')).toBe(
      'daemon set "agent" successfully rolled out\n',
    );
  });
});
