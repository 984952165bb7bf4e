/**
 * Server-side apply through the real kubectl: `apply --server-side` creates and merges with field
 * ownership in managedFields (FieldsV1, containers and env by name), other managers' fields conflict
 * (409 in the apiserver's wording) unless `--force-conflicts`, fields dropped from the manifest are
 * pruned, equal values are co-owned, and `diff --server-side` shows the merge without storing it.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator } from '../../../deploy/sim/index.ts';
import type { Simulator } from '../../../deploy/sim/index.ts';
import type { Deployment } from '../../../deploy/sim/types.ts';
import { runKubectl } from '../../helpers/sim-kubectl.ts';
import { describeWithTool } from '../../helpers/system-tools.ts';

const manifest = (options: { image?: string; env?: boolean; replicas?: number } = {}) => `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: ${options.replicas ?? 2}
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: ${options.image ?? 'nginx:1.27'}
${options.env === false ? '' : '          env: [{name: MODE, value: "fast"}]\n'}`;

describeWithTool('kubectl', 'server-side apply via kubectl', (kubectlPath) => {
  let sim: Simulator;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sentinel-sim-apply-'));
    sim = await startSimulator({
      scenario: 'healthy',
      timeScale: 0,
      kubeconfigPath: join(dir, 'kubeconfig'),
    });
  });

  afterAll(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const kubectl = (...args: string[]) =>
    runKubectl(kubectlPath, sim.kubeconfigPath!, dir, ['-n', 'shop', ...args]);
  let files = 0;
  function file(text: string): string {
    const path = join(dir, `m${files++}.yaml`);
    writeFileSync(path, text);
    return path;
  }
  const stored = () => sim.cluster.store.get<Deployment>('deployments', 'shop', 'web')!;

  it('creates with an Apply entry owning exactly the applied fields', async () => {
    expect(await kubectl('apply', '--server-side', '-f', file(manifest()))).toMatchObject({
      code: 0,
      stdout: 'deployment.apps/web serverside-applied\n',
    });
    expect(stored().metadata.managedFields).toEqual([
      {
        manager: 'kubectl',
        operation: 'Apply',
        apiVersion: 'apps/v1',
        time: expect.any(String),
        fieldsType: 'FieldsV1',
        fieldsV1: {
          'f:metadata': { 'f:labels': { 'f:app': {} } },
          'f:spec': {
            'f:replicas': {},
            'f:selector': {},
            'f:template': {
              'f:metadata': { 'f:labels': { 'f:app': {} } },
              'f:spec': {
                'f:containers': {
                  'k:{"name":"web"}': {
                    '.': {},
                    'f:env': { 'k:{"name":"MODE"}': { '.': {}, 'f:name': {}, 'f:value': {} } },
                    'f:image': {},
                    'f:name': {},
                  },
                },
              },
            },
          },
        },
      },
    ]);
    // Defaults are unowned and present.
    expect(stored().spec.template.spec.containers[0]!['imagePullPolicy']).toBe('IfNotPresent');
  });

  it("conflicts on other managers' fields; diff --server-side stores nothing; --force-conflicts takes them", async () => {
    expect((await kubectl('scale', 'deployment/web', '--replicas=4')).code).toBe(0);
    expect((await kubectl('set', 'image', 'deployment/web', 'web=nginx:1.28')).code).toBe(0);
    const conflict = await kubectl('apply', '--server-side', '-f', file(manifest()));
    expect(conflict.code).not.toBe(0);
    expect(conflict.stderr).toContain(
      'Apply failed with 2 conflicts: conflicts with "kubectl" with subresource "scale" using apps/v1:\n- .spec.replicas\nconflicts with "kubectl-set" using apps/v1:\n- .spec.template.spec.containers[name="web"].image\n',
    );

    const version = stored().metadata.resourceVersion;
    const diff = await kubectl('diff', '--server-side', '--force-conflicts', '-f', file(manifest()));
    expect(diff.code).toBe(1); // differences found
    expect(diff.stdout).toMatch(/- {2}replicas: 4\n\+ {2}replicas: 2/);
    expect(diff.stdout).toMatch(/- {8}image: nginx:1\.28\n\+ {8}image: nginx:1\.27/);
    expect(stored().metadata.resourceVersion).toBe(version);

    expect((await kubectl('apply', '--server-side', '--force-conflicts', '-f', file(manifest()))).code).toBe(
      0,
    );
    expect(stored().spec.replicas).toBe(2);
    expect(stored().spec.template.spec.containers[0]!.image).toBe('nginx:1.27');
    // The losers owned nothing else: their entries are gone.
    expect(stored().metadata.managedFields!.map((entry) => entry.manager)).toEqual(['kubectl']);
  });

  it('prunes fields dropped from the manifest; equal values are co-owned, different ones conflict', async () => {
    expect((await kubectl('apply', '--server-side', '-f', file(manifest({ env: false })))).code).toBe(0);
    expect(stored().spec.template.spec.containers[0]!.env).toBeUndefined();

    const same = await kubectl(
      'apply',
      '--server-side',
      '--field-manager=ci',
      '-f',
      file(manifest({ env: false })),
    );
    expect(same.code).toBe(0);
    expect(stored().metadata.managedFields!.map((entry) => `${entry.manager} ${entry.operation}`)).toEqual([
      'kubectl Apply',
      'ci Apply',
    ]);
    const different = await kubectl(
      'apply',
      '--server-side',
      '--field-manager=ci',
      '-f',
      file(manifest({ env: false, image: 'nginx:1.29' })),
    );
    expect(different.stderr).toContain(
      'Apply failed with 1 conflict: conflict with "kubectl": .spec.template.spec.containers[name="web"].image',
    );
  });

  it('diff --server-side of a new object shows it and creates nothing', async () => {
    const created = await kubectl(
      'diff',
      '--server-side',
      '-f',
      file(manifest().replace('name: web\n', 'name: fresh\n')),
    );
    expect(created.code).toBe(1);
    expect(created.stdout).toContain('+  name: fresh');
    expect(sim.cluster.store.get('deployments', 'shop', 'fresh')).toBeUndefined();
  });
});
