/**
 * `list_namespaces` (`kubectl get namespaces`): a read tool, sorted rows with status and age, the
 * "N more" bound — and on the simulator, the same namespaces kubectl lists from
 * GET /api/v1/namespaces.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../deploy/sim/index.ts';
import { listNamespaces } from '../../../tools/investigate/list-namespaces.ts';
import { connectKube } from '../../../tools/kube/connect.ts';
import { fakeKube } from '../../helpers/server.ts';
import { describeWithTool } from '../../helpers/system-tools.ts';

const run = promisify(execFile);

function context(
  items: { metadata: { name: string; creationTimestamp?: string }; status?: { phase: string } }[],
) {
  const kube = fakeKube({ listNamespaces: async () => items as never });
  return { kube: kube.reader, cluster: kube.cluster, signal: new AbortController().signal, dryRun: false };
}

describe('list_namespaces', () => {
  it('is a read tool whose only argument is an optional label selector', () => {
    expect(listNamespaces.risk).toBe('read');
    expect(listNamespaces.annotations.readOnlyHint).toBe(true);
    expect(() => listNamespaces.input.parse({ namespace: 'x' })).toThrow();
    expect(() => listNamespaces.input.parse({ label_selector: 'a in (' })).toThrow();
  });

  it('lists the namespaces sorted by name with their status', async () => {
    const output = await listNamespaces.handler(
      {},
      context([
        { metadata: { name: 'shop' }, status: { phase: 'Active' } },
        { metadata: { name: 'old' }, status: { phase: 'Terminating' } },
        { metadata: { name: 'default' } },
      ]),
    );
    const structured = listNamespaces.output!.parse(output.structured);
    expect(structured.namespaces.map((n) => [n.name, n.status])).toEqual([
      ['default', 'Active'],
      ['old', 'Terminating'],
      ['shop', 'Active'],
    ]);
    expect(structured).toMatchObject({ total: 3, omitted: 0, label_selector: null });
    expect(output.text).toMatch(/3 namespace\(s\)\n/);
    expect(output.text).toMatch(/old\s+Terminating/);
  });

  it('bounds the rows at 50 with an "N more" line', async () => {
    const items = Array.from({ length: 53 }, (_, i) => ({
      metadata: { name: `ns-${String(i).padStart(2, '0')}` },
    }));
    const output = await listNamespaces.handler({}, context(items));
    const structured = listNamespaces.output!.parse(output.structured);
    expect(structured.namespaces).toHaveLength(50);
    expect(structured.omitted).toBe(3);
    expect(output.text).toContain('3 more namespaces not shown');
  });
});

describeWithTool('kubectl', 'list_namespaces on the simulator', (kubectlPath) => {
  let sim: Simulator;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sentinel-list-namespaces-'));
    sim = await startSimulator({
      scenario: 'bad-image-rollout',
      timeScale: 0,
      kubeconfigPath: join(dir, 'kubeconfig'),
    });
  });
  afterAll(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('answers the namespaces kubectl lists from GET /api/v1/namespaces', async () => {
    const { stdout } = await run(
      kubectlPath,
      ['--kubeconfig', sim.kubeconfigPath!, 'get', 'namespaces', '-o', 'jsonpath={.items[*].metadata.name}'],
      { timeout: 120_000, env: { ...process.env, HOME: dir, KUBECACHEDIR: join(dir, 'cache') } },
    );
    const connection = connectKube({ kubeconfig: sim.kubeconfigPath! });
    if (!connection.configured) throw new Error(connection.reason);
    const output = await listNamespaces.handler(
      {},
      {
        kube: connection.reader,
        cluster: connection.cluster,
        signal: new AbortController().signal,
        dryRun: false,
      },
    );
    const names = listNamespaces.output!.parse(output.structured).namespaces.map((n) => n.name);
    expect(names).toContain('shop');
    expect(names).toEqual(stdout.trim().split(' ').sort());
  });
});
