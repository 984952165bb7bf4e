/**
 * The simulator's resource metrics API (metrics.k8s.io/v1beta1 PodMetrics, deploy/sim/api/metrics.ts)
 * through the real kubectl: discovery lists the group, `kubectl top pod` prints each Pod's usage
 * from its fate rule's `usage` (an OOM-looping container near its limit), a Pod by name and a label
 * selector work, an unknown Pod is a 404, and RBAC governs pods.metrics.k8s.io like any resource.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator } from '../../../deploy/sim/index.ts';
import type { Simulator } from '../../../deploy/sim/index.ts';
import { runKubectl } from '../../helpers/sim-kubectl.ts';
import { describeWithTool } from '../../helpers/system-tools.ts';

const VIEWER = 'viewer';

describeWithTool('kubectl', 'metrics.k8s.io PodMetrics via kubectl top', (kubectlPath) => {
  let sim: Simulator;
  let dir: string;
  const kubectl = (...args: string[]) => runKubectl(kubectlPath, sim.kubeconfigPath!, dir, args);

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sentinel-sim-top-'));
    sim = await startSimulator({
      scenario: 'oom-after-limit-change',
      timeScale: 0,
      kubeconfigPath: join(dir, 'kubeconfig'),
      identities: [{ name: VIEWER, token: 'viewer-token-0123456789abcdef' }],
    });
  });

  afterAll(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('discovery lists metrics.k8s.io/v1beta1 with pods (PodMetrics, get and list)', async () => {
    const versions = await kubectl('api-versions');
    expect(versions.stdout.split('\n')).toContain('metrics.k8s.io/v1beta1');
    const resources = await kubectl('api-resources', '--api-group', 'metrics.k8s.io', '-o', 'wide');
    expect(resources.code, resources.stderr).toBe(0);
    expect(resources.stdout).toMatch(/^pods\s+metrics\.k8s\.io\/v1beta1\s+true\s+PodMetrics\s+get,list/m);
  });

  it('kubectl top pod prints the OOM-looping Pods at their limit and the healthy ones below theirs', async () => {
    const top = await kubectl('top', 'pod', '-n', 'shop');
    expect(top.code, top.stderr).toBe(0);
    const rows = top.stdout.trim().split('\n').slice(1);
    expect(rows).toHaveLength(4);
    const usage = rows.map((row) => row.trim().split(/\s+/).slice(1).join(' ')).sort();
    expect(usage).toEqual(['180m 127Mi', '180m 127Mi', '40m 310Mi', '40m 310Mi']);
    const containers = await kubectl('top', 'pod', '-n', 'shop', '--containers', '-l', 'app=checkout');
    expect(containers.stdout).toMatch(/checkout-\S+\s+checkout\s+180m\s+127Mi/);
  });

  it('serves one Pod by name, 404 for an unknown one', async () => {
    const list = JSON.parse(
      (await kubectl('get', '--raw', '/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods')).stdout,
    ) as { kind: string; items: { metadata: { name: string } }[] };
    expect(list.kind).toBe('PodMetricsList');
    const name = list.items[0]!.metadata.name;
    const one = JSON.parse(
      (await kubectl('get', '--raw', `/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods/${name}`)).stdout,
    ) as Record<string, unknown>;
    expect(one).toMatchObject({ kind: 'PodMetrics', metadata: { name, namespace: 'shop' }, window: '15s' });
    const missing = await kubectl('get', '--raw', '/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods/nope');
    expect(missing.code).not.toBe(0);
    expect(missing.stderr).toMatch(/NotFound|not found/);
  });

  it('RBAC: a user without pods.metrics.k8s.io gets the apiserver 403', async () => {
    const top = await kubectl('--context', VIEWER, 'top', 'pod', '-n', 'shop');
    expect(top.code).not.toBe(0);
    expect(top.stderr).toContain(
      'pods.metrics.k8s.io is forbidden: User "viewer" cannot list resource "pods" in API group "metrics.k8s.io" in the namespace "shop"',
    );
  });
});
