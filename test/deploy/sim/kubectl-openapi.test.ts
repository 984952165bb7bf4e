/**
 * OpenAPI through the real kubectl: `kubectl explain` reads the v3 documents, `kubectl apply -f`
 * validates without `--validate=false` (kubectl finds `fieldValidation` on the kind's PATCH operation
 * and leaves validation to the server), and unknown fields are rejected (Strict) or warned about.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator } from '../../../deploy/sim/index.ts';
import type { Simulator } from '../../../deploy/sim/index.ts';
import type { Deployment } from '../../../deploy/sim/types.ts';
import { rawRequest } from '../../helpers/sim.ts';
import { runKubectl } from '../../helpers/sim-kubectl.ts';
import { describeWithTool } from '../../helpers/system-tools.ts';

const WEB = `apiVersion: apps/v1
kind: Deployment
metadata:
  name: web
  labels: {app: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
        - name: web
          image: nginx:1.27
          env: [{name: MODE, value: "fast"}]
          resources: {requests: {cpu: 100m}}
`;

describeWithTool('kubectl', 'OpenAPI via kubectl', (kubectlPath) => {
  let sim: Simulator;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sentinel-sim-openapi-'));
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

  function file(name: string, text: string): string {
    const path = join(dir, name);
    writeFileSync(path, text);
    return path;
  }

  it('explain deployment.spec lists the fields with types and descriptions', async () => {
    const result = await kubectl('explain', 'deployment.spec');
    expect(result.stderr).toBe('');
    expect(result.stdout).toMatch(/GROUP:\s+apps\nKIND:\s+Deployment\nVERSION:\s+v1/);
    expect(result.stdout).toMatch(/FIELD: spec <DeploymentSpec>/);
    expect(result.stdout).toMatch(/replicas\t<integer>\n\s+Number of desired pods/);
    expect(result.stdout).toMatch(/selector\t<LabelSelector> -required-/);
    expect(result.stdout).toMatch(/strategy\t<DeploymentStrategy>/);
    const nested = await kubectl('explain', 'deployment.spec.strategy.rollingUpdate.maxSurge');
    expect(nested.stdout).toMatch(/FIELD: maxSurge <IntOrString>/);
    const containers = await kubectl('explain', 'pods.spec.containers.env');
    expect(containers.stdout).toMatch(/FIELD: env <\[\]EnvVar>/);
    expect((await kubectl('explain', 'services.spec.ports')).stdout).toMatch(/targetPort\t<IntOrString>/);
    expect((await kubectl('explain', 'deployment.spec.nope')).stderr).toMatch(/field "nope" does not exist/);
  });

  it('apply -f validates without --validate=false; unknown fields: Strict error, Warn warning', async () => {
    const created = await kubectl('apply', '-f', file('web.yaml', WEB));
    expect(created).toMatchObject({ code: 0, stdout: 'deployment.apps/web created\n' });
    const mutation = sim.mutationLog.at(-1)!;
    expect(mutation.path).toMatch(/fieldValidation=Strict/);

    const typo = WEB.replace('replicas: 2', 'replica: 2').replace(
      'image: nginx',
      'imagee: x\n          image: nginx',
    );
    const rejected = await kubectl('apply', '-f', file('typo.yaml', typo));
    expect(rejected.code).not.toBe(0);
    expect(rejected.stderr).toContain(
      'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field',
    );
    expect(rejected.stderr).toContain('unknown field "spec.replica"');
    expect(rejected.stderr).toContain('unknown field "spec.template.spec.containers[0].imagee"');
    const other = await kubectl(
      'create',
      '-f',
      file('other.yaml', typo.replace('name: web\n  labels', 'name: other\n  labels')),
    );
    expect(other.stderr).toContain('strict decoding error: unknown field "spec.replica"');

    const warned = await kubectl(
      'create',
      '--validate=warn',
      '-f',
      file('warn.yaml', typo.replace('name: web\n  labels', 'name: warned\n  labels')),
    );
    expect(warned.code).toBe(0);
    expect(warned.stderr).toContain('Warning: unknown field "spec.replica"');
    expect(warned.stderr).toContain('Warning: unknown field "spec.template.spec.containers[0].imagee"');
  });

  it('serves /openapi/v2 as JSON and refuses protobuf-only requests with 406', async () => {
    const json = await kubectl('get', '--raw', '/openapi/v2');
    const document = JSON.parse(json.stdout) as { swagger: string; definitions: Record<string, unknown> };
    expect(document.swagger).toBe('2.0');
    expect(Object.keys(document.definitions)).toEqual(
      expect.arrayContaining([
        'io.k8s.api.apps.v1.Deployment',
        'io.k8s.api.core.v1.Pod',
        'io.k8s.api.rbac.v1.Role',
      ]),
    );
    const root = JSON.parse((await kubectl('get', '--raw', '/openapi/v3')).stdout) as {
      paths: Record<string, { serverRelativeURL: string }>;
    };
    expect(root.paths['apis/apps/v1']!.serverRelativeURL).toMatch(
      /^\/openapi\/v3\/apis\/apps\/v1\?hash=[0-9A-F]{128}$/,
    );
    const apps = JSON.parse((await kubectl('get', '--raw', '/openapi/v3/apis/apps/v1')).stdout) as {
      paths: Record<string, Record<string, { parameters: { name: string }[] }>>;
    };
    const patch = apps.paths['/apis/apps/v1/namespaces/{namespace}/deployments/{name}']!['patch']!;
    expect(patch.parameters.map((parameter) => parameter.name)).toEqual(
      expect.arrayContaining(['fieldValidation', 'fieldManager', 'force', 'dryRun']),
    );
    const protobuf = await rawRequest(sim, 'GET', '/openapi/v2', {
      headers: { Accept: 'application/com.github.proto-openapi.spec.v2@v1.0+protobuf' },
    });
    expect(protobuf.status).toBe(406);
    expect(protobuf.json).toMatchObject({ kind: 'Status', reason: 'NotAcceptable', code: 406 });
  });
});

describeWithTool('kubectl', 'kubectl autoscale on the simulator', (kubectlPath) => {
  let sim: Simulator;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sentinel-sim-autoscale-'));
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

  const kubectl = (...args: string[]) =>
    runKubectl(kubectlPath, sim.kubeconfigPath!, dir, ['-n', 'shop', ...args]);

  it('creates an autoscaling/v1 HPA (a protobuf body) stored as autoscaling/v2, no controller', async () => {
    const created = await kubectl(
      'autoscale',
      'deployment/checkout',
      '--min=2',
      '--max=6',
      '--cpu-percent=70',
    );
    expect(created).toMatchObject({
      code: 0,
      stdout: 'horizontalpodautoscaler.autoscaling/checkout autoscaled\n',
    });
    expect(sim.mutationLog.at(-1)).toMatchObject({
      contentType: 'application/vnd.kubernetes.protobuf',
      path: '/apis/autoscaling/v1/namespaces/shop/horizontalpodautoscalers?fieldManager=kubectl-autoscale',
      code: 201,
    });
    const v2 = JSON.parse((await kubectl('get', 'hpa.v2.autoscaling', 'checkout', '-o', 'json')).stdout) as {
      spec: Record<string, unknown>;
    };
    expect(v2.spec).toEqual({
      scaleTargetRef: { apiVersion: 'apps/v1', kind: 'Deployment', name: 'checkout' },
      minReplicas: 2,
      maxReplicas: 6,
      metrics: [
        {
          type: 'Resource',
          resource: { name: 'cpu', target: { type: 'Utilization', averageUtilization: 70 } },
        },
      ],
    });
    const v1 = JSON.parse(
      (
        await kubectl(
          'get',
          '--raw',
          '/apis/autoscaling/v1/namespaces/shop/horizontalpodautoscalers/checkout',
        )
      ).stdout,
    ) as { apiVersion: string; spec: Record<string, unknown> };
    expect(v1).toMatchObject({
      apiVersion: 'autoscaling/v1',
      spec: { minReplicas: 2, maxReplicas: 6, targetCPUUtilizationPercentage: 70 },
    });
    expect((await kubectl('get', 'hpa')).stdout).toMatch(
      /checkout\s+Deployment\/checkout\s+cpu: <unknown>\/70%\s+2\s+6/,
    );
    // Stored only: nothing scales the Deployment.
    expect(sim.cluster.store.get<Deployment>('deployments', 'shop', 'checkout')!.spec.replicas).toBe(3);
  });
});
