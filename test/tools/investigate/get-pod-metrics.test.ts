/**
 * `get_pod_metrics` (`kubectl top pod --containers`): usage in millicores and MiB with each
 * container's limit beside it; a cluster without the metrics API (404 on metrics.k8s.io) answers
 * "metrics API not available on this cluster", not an error — and on the simulator, the usage
 * kubectl top prints for the OOM-looping Pods, against their 128Mi limit.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../deploy/sim/index.ts';
import { getPodMetrics } from '../../../tools/investigate/get-pod-metrics.ts';
import { SentinelError } from '../../../tools/errors.ts';
import { connectKube } from '../../../tools/kube/connect.ts';
import { mockApi, statusBody, useMockedCluster } from '../../helpers/kube.ts';
import { fakeKube } from '../../helpers/server.ts';
import { runKubectl } from '../../helpers/sim-kubectl.ts';
import { describeWithTool } from '../../helpers/system-tools.ts';

const POD = {
  metadata: { name: 'checkout-7d-abc', namespace: 'shop', labels: { app: 'checkout' } },
  spec: {
    containers: [
      { name: 'checkout', resources: { limits: { cpu: '500m', memory: '128Mi' } } },
      { name: 'proxy', resources: {} },
    ],
  },
};
const METRICS = {
  metadata: { name: 'checkout-7d-abc', namespace: 'shop' },
  timestamp: '2026-12-02T12:00:00Z',
  window: '15s',
  containers: [
    { name: 'checkout', usage: { cpu: '179500000n', memory: '130023424' } },
    { name: 'proxy', usage: { cpu: '2m', memory: '5Mi' } },
  ],
};

function context(reader: Parameters<typeof fakeKube>[0]) {
  const kube = fakeKube(reader);
  return { kube: kube.reader, cluster: kube.cluster, signal: new AbortController().signal, dryRun: false };
}

describe('get_pod_metrics', () => {
  it('is a read tool: namespace, optional pod and label_selector, nothing else', () => {
    expect(getPodMetrics.risk).toBe('read');
    expect(getPodMetrics.annotations.readOnlyHint).toBe(true);
    expect(() => getPodMetrics.input.parse({})).toThrow();
    expect(() => getPodMetrics.input.parse({ namespace: 'shop', name: 'x' })).toThrow();
    expect(() => getPodMetrics.input.parse({ namespace: 'shop', label_selector: 'a in (' })).toThrow();
    expect(getPodMetrics.input.parse({ namespace: 'shop', pod: 'p', label_selector: 'app=x' })).toBeTruthy();
  });

  it('reports CPU in millicores and memory in MiB with the limits beside them', async () => {
    const seen: unknown[] = [];
    const output = await getPodMetrics.handler(
      { namespace: 'shop', label_selector: 'app=checkout' },
      context({
        listPodMetrics: async (_ns, options) => (seen.push(options), [METRICS] as never),
        listPods: async (_ns, options) => (seen.push(options), [POD] as never),
      }),
    );
    expect(seen).toEqual([{ labelSelector: 'app=checkout' }, { labelSelector: 'app=checkout' }]);
    const structured = getPodMetrics.output!.parse(output.structured);
    expect(structured).toMatchObject({
      available: true,
      total: 1,
      omitted: 0,
      label_selector: 'app=checkout',
    });
    expect(structured.pods[0]!.containers).toEqual([
      {
        name: 'checkout',
        cpu_millicores: 180,
        memory_mib: 124,
        cpu_limit_millicores: 500,
        memory_limit_mib: 128,
        memory_limit: '128Mi',
      },
      {
        name: 'proxy',
        cpu_millicores: 2,
        memory_mib: 5,
        cpu_limit_millicores: null,
        memory_limit_mib: null,
        memory_limit: null,
      },
    ]);
    expect(output.text).toMatch(/checkout-7d-abc\s+checkout\s+180m\s+500m\s+124Mi\s+128Mi/);
    expect(output.text).toMatch(/checkout-7d-abc\s+proxy\s+2m\s+-\s+5Mi\s+-/);
  });

  it('picks a named Pod; a Pod that does not exist is not_found naming it', async () => {
    const other = { ...METRICS, metadata: { name: 'other', namespace: 'shop' } };
    const reader = {
      listPodMetrics: async () => [METRICS, other] as never,
      listPods: async () => [POD] as never,
    };
    const output = await getPodMetrics.handler(
      { namespace: 'shop', pod: 'checkout-7d-abc' },
      context(reader),
    );
    expect(getPodMetrics.output!.parse(output.structured).pods.map((p) => p.name)).toEqual([
      'checkout-7d-abc',
    ]);
    const error = await getPodMetrics
      .handler({ namespace: 'shop', pod: 'nope' }, context(reader))
      .catch((e) => e);
    expect(error).toBeInstanceOf(SentinelError);
    expect(error).toMatchObject({ code: 'not_found' });
    expect((error as Error).message).toContain("Pod 'nope' not found in namespace 'shop'");
  });

  it('other errors of the metrics API propagate (forbidden is not "not available")', async () => {
    const error = await getPodMetrics
      .handler(
        { namespace: 'shop' },
        context({
          listPodMetrics: async () => {
            throw new SentinelError('forbidden', 'may not list pods (API group "metrics.k8s.io")');
          },
          listPods: async () => [POD] as never,
        }),
      )
      .catch((e) => e);
    expect(error).toMatchObject({ code: 'forbidden' });
  });
});

describe('get_pod_metrics on a cluster without the metrics API', () => {
  const cluster = useMockedCluster();

  it('answers "metrics API not available on this cluster" for a 404 on metrics.k8s.io', async () => {
    mockApi()
      .get('/apis/metrics.k8s.io/v1beta1/namespaces/shop/pods')
      .query(true)
      .reply(404, statusBody(404, 'NotFound', 'the server could not find the requested resource'));
    mockApi()
      .get('/api/v1/namespaces/shop/pods')
      .query(true)
      .reply(200, { kind: 'PodList', metadata: {}, items: [POD] });
    const output = await getPodMetrics.handler({ namespace: 'shop' }, cluster.context());
    const structured = getPodMetrics.output!.parse(output.structured);
    expect(structured).toMatchObject({ available: false, total: 0, pods: [] });
    expect(output.text).toContain('metrics API not available on this cluster');
  });
});

describeWithTool('kubectl', 'get_pod_metrics on the simulator', (kubectlPath) => {
  let sim: Simulator;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sentinel-pod-metrics-'));
    sim = await startSimulator({
      scenario: 'oom-after-limit-change',
      timeScale: 0,
      kubeconfigPath: join(dir, 'kubeconfig'),
    });
  });
  afterAll(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('reports the usage kubectl top prints, with the 128Mi limit of the OOM-looping Pods', async () => {
    const top = await runKubectl(kubectlPath, sim.kubeconfigPath!, dir, [
      'top',
      'pod',
      '-n',
      'shop',
      '--containers',
      '--no-headers',
    ]);
    expect(top.code, top.stderr).toBe(0);
    const connection = connectKube({ kubeconfig: sim.kubeconfigPath! });
    if (!connection.configured) throw new Error(connection.reason);
    const output = await getPodMetrics.handler(
      { namespace: 'shop' },
      {
        kube: connection.reader,
        cluster: connection.cluster,
        signal: new AbortController().signal,
        dryRun: false,
      },
    );
    const structured = getPodMetrics.output!.parse(output.structured);
    expect(structured.available).toBe(true);
    const ours = structured.pods
      .flatMap((p) => p.containers.map((c) => `${p.name} ${c.name} ${c.cpu_millicores}m ${c.memory_mib}Mi`))
      .sort();
    const kubectls = top.stdout
      .trim()
      .split('\n')
      .map((row) => row.trim().split(/\s+/).join(' '))
      .sort();
    expect(ours).toEqual(kubectls);
    const oom = structured.pods.flatMap((p) => p.containers).filter((c) => c.memory_limit === '128Mi');
    expect(oom.length).toBeGreaterThan(0);
    expect(oom.every((c) => c.memory_mib === 127 && c.memory_limit_mib === 128)).toBe(true);
  });
});
