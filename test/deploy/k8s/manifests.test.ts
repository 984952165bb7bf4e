/**
 * Every manifest in deploy/k8s/ is a valid Kubernetes object by the OpenAPI schemas that
 * `kubernetes-models` ships (its classes' `.validate()`, JSON Schema from the upstream OpenAPI), and
 * the pieces fit together: the Deployment's probes hit /readyz and /healthz, its Secret references
 * exist, it runs as the ServiceAccount the RoleBindings name, the Service, PodDisruptionBudget and
 * NetworkPolicy select its Pods, and the Pod runs non-root with a read-only root filesystem. The
 * kinds the simulator serves also pass `kubectl apply --dry-run=server` against it.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { parseAllDocuments } from 'yaml';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../deploy/sim/index.ts';
import { runKubectl } from '../../helpers/sim-kubectl.ts';
import { describeWithTool } from '../../helpers/system-tools.ts';

const DIR = fileURLToPath(new URL('../../../deploy/k8s/', import.meta.url));

interface Manifest {
  file: string;
  apiVersion: string;
  kind: string;
  metadata: { name: string; namespace?: string; labels?: Record<string, string> };
  [field: string]: unknown;
}

const files = readdirSync(DIR).filter((file) => /\.ya?ml$/.test(file));
const manifests: Manifest[] = files.flatMap((file) =>
  parseAllDocuments(readFileSync(join(DIR, file), 'utf8')).map((document): Manifest => {
    if (document.errors.length > 0) throw new Error(`${file}: ${document.errors[0]!.message}`);
    return { ...(document.toJS() as Omit<Manifest, 'file'>), file } as Manifest;
  }),
);

function only(kind: string, name?: string): Manifest {
  const found = manifests.filter((m) => m.kind === kind && (name === undefined || m.metadata.name === name));
  expect(found, `${kind} ${name ?? ''}`).toHaveLength(1);
  return found[0]!;
}

type ModelModule = Record<string, (new (data: unknown) => { validate(): void }) | undefined>;

/** The `kubernetes-models` module of each apiVersion the manifests use (core `v1` is its own). */
const MODEL_MODULES: Record<string, () => Promise<unknown>> = {
  v1: () => import('kubernetes-models/v1'),
  'apps/v1': () => import('kubernetes-models/apps/v1'),
  'policy/v1': () => import('kubernetes-models/policy/v1'),
  'networking.k8s.io/v1': () => import('kubernetes-models/networking.k8s.io/v1'),
  'rbac.authorization.k8s.io/v1': () => import('kubernetes-models/rbac.authorization.k8s.io/v1'),
};

/** The `kubernetes-models` class for an apiVersion and kind; throws for one it does not know. */
async function modelClass(apiVersion: string, kind: string) {
  const load = MODEL_MODULES[apiVersion];
  if (!load)
    throw new Error(`no kubernetes-models module for apiVersion ${apiVersion}; add it to MODEL_MODULES`);
  const model = ((await load()) as ModelModule)[kind];
  if (!model) throw new Error(`kubernetes-models has no ${apiVersion} ${kind}`);
  return model;
}

// Narrow views of the Deployment's pod template, for the assertions below.
interface Probe {
  httpGet?: { path?: string; port?: string | number };
}
interface Container {
  name: string;
  command?: string[];
  args?: string[];
  env?: { name: string; valueFrom?: { secretKeyRef?: { name: string; key: string } } }[];
  ports?: { name?: string; containerPort: number }[];
  readinessProbe?: Probe;
  livenessProbe?: Probe;
  resources?: { requests?: Record<string, string>; limits?: Record<string, string> };
  securityContext?: {
    runAsNonRoot?: boolean;
    readOnlyRootFilesystem?: boolean;
    allowPrivilegeEscalation?: boolean;
    capabilities?: { drop?: string[] };
  };
  volumeMounts?: { name: string; mountPath: string }[];
}
interface PodSpec {
  serviceAccountName?: string;
  securityContext?: { runAsNonRoot?: boolean };
  containers: Container[];
  volumes?: { name: string; emptyDir?: object; secret?: { secretName: string } }[];
}
interface DeploymentShape {
  spec: {
    replicas: number;
    selector: { matchLabels: Record<string, string> };
    template: { metadata: { labels: Record<string, string> }; spec: PodSpec };
  };
}

describe('deploy/k8s manifests', () => {
  it('are all valid objects by the Kubernetes OpenAPI schemas', async () => {
    expect(manifests.length).toBeGreaterThan(0);
    for (const manifest of manifests) {
      const { file, ...object } = manifest;
      const Model = await modelClass(object.apiVersion, object.kind);
      expect(
        () => new Model(object).validate(),
        `${file}: ${object.kind} ${object.metadata.name}`,
      ).not.toThrow();
    }
  });

  it('the schema check catches a broken manifest (the validator is not a no-op)', async () => {
    const Model = await modelClass('apps/v1', 'Deployment');
    const deployment = only('Deployment', 'sentinel') as unknown as DeploymentShape;
    const broken = structuredClone(deployment);
    (broken.spec as { replicas: unknown }).replicas = 'two';
    expect(() => new Model(broken).validate()).toThrow(/replicas/);
  });

  it('includes the Deployment, Service, ServiceAccount, PodDisruptionBudget, NetworkPolicy and Secrets', () => {
    for (const kind of ['Deployment', 'Service', 'ServiceAccount', 'PodDisruptionBudget', 'NetworkPolicy']) {
      expect(manifests.filter((m) => m.kind === kind).map((m) => m.metadata.name)).toEqual(['sentinel']);
    }
    expect(
      manifests
        .filter((m) => m.kind === 'Secret')
        .map((m) => m.metadata.name)
        .sort(),
    ).toEqual(['sentinel-store', 'sentinel-tokens']);
  });

  describe('the Deployment', () => {
    const deployment = only('Deployment', 'sentinel') as unknown as Manifest & DeploymentShape;
    const pod = deployment.spec.template.spec;
    const container = pod.containers[0]!;

    it('runs two replicas of `sentinel serve` bound on every Pod address', () => {
      expect(deployment.spec.replicas).toBe(2);
      expect(pod.containers).toHaveLength(1);
      expect([...container.command!, ...container.args!]).toEqual(
        expect.arrayContaining(['node', 'bin/sentinel.js', 'serve', '--host=0.0.0.0', '--allow-remote']),
      );
      // The kubelet's probes send the Pod IP as Host: it must pass the Host check.
      expect(container.args).toContain('--allowed-host=$(POD_IP)');
      expect(container.env).toContainEqual({
        name: 'POD_IP',
        valueFrom: { fieldRef: { fieldPath: 'status.podIP' } },
      });
    });

    it('probes readiness on /readyz and liveness on /healthz, on the serving port', () => {
      expect(container.readinessProbe?.httpGet?.path).toBe('/readyz');
      expect(container.livenessProbe?.httpGet?.path).toBe('/healthz');
      const portName = container.ports![0]!.name;
      const portArg = container.args!.find((arg) => arg.startsWith('--port='));
      expect(portArg).toBe(`--port=${container.ports![0]!.containerPort}`);
      expect(container.readinessProbe?.httpGet?.port).toBe(portName);
      expect(container.livenessProbe?.httpGet?.port).toBe(portName);
    });

    it('reads the store URL from a Secret that exists, and mounts the tokens Secret', () => {
      const storeUrl = container.env!.find((entry) => entry.name === 'SENTINEL_STORE_URL');
      const ref = storeUrl?.valueFrom?.secretKeyRef;
      expect(ref).toBeDefined();
      const secret = only('Secret', ref!.name) as Manifest & { stringData: Record<string, string> };
      expect(secret.metadata.namespace).toBe(deployment.metadata.namespace);
      expect(secret.stringData[ref!.key]).toMatch(/^postgres(ql)?:\/\//);

      const tokensVolume = pod.volumes!.find((volume) => volume.secret !== undefined);
      const tokensSecret = only('Secret', tokensVolume!.secret!.secretName) as Manifest & {
        stringData: Record<string, string>;
      };
      const mount = container.volumeMounts!.find((m) => m.name === tokensVolume!.name)!;
      const fileArg = container.args!.find((arg) => arg.startsWith('--tokens-file='))!;
      const [key] = Object.keys(tokensSecret.stringData);
      expect(fileArg).toBe(`--tokens-file=${mount.mountPath}/${key}`);
    });

    it('runs as the ServiceAccount that every RoleBinding and ClusterRoleBinding names', () => {
      const account = only('ServiceAccount', pod.serviceAccountName);
      expect(account.metadata.namespace).toBe(deployment.metadata.namespace);
      const bindings = manifests.filter((m) => m.kind === 'RoleBinding' || m.kind === 'ClusterRoleBinding');
      expect(bindings.length).toBeGreaterThanOrEqual(3);
      for (const binding of bindings) {
        expect((binding as unknown as { subjects: unknown[] }).subjects, binding.file).toEqual([
          { kind: 'ServiceAccount', name: account.metadata.name, namespace: account.metadata.namespace },
        ]);
      }
    });

    it('runs non-root, read-only, without capabilities, the data dir on an emptyDir, with resources', () => {
      expect(pod.securityContext?.runAsNonRoot).toBe(true);
      expect(container.securityContext).toMatchObject({
        runAsNonRoot: true,
        readOnlyRootFilesystem: true,
        allowPrivilegeEscalation: false,
        capabilities: { drop: ['ALL'] },
      });
      const dataDir = container
        .args!.find((arg) => arg.startsWith('--data-dir='))!
        .slice('--data-dir='.length);
      const mount = container.volumeMounts!.find((m) => m.mountPath === dataDir);
      expect(pod.volumes!.find((volume) => volume.name === mount?.name)?.emptyDir).toBeDefined();
      for (const resource of ['cpu', 'memory']) {
        expect(container.resources?.requests?.[resource]).toBeDefined();
        expect(container.resources?.limits?.[resource]).toBeDefined();
      }
    });

    it('is selected by the Service, the PodDisruptionBudget (minAvailable 1) and the NetworkPolicy', () => {
      const labels = deployment.spec.template.metadata.labels;
      const selects = (selector: Record<string, string>) =>
        Object.entries(selector).every(([key, value]) => labels[key] === value);
      expect(selects(deployment.spec.selector.matchLabels)).toBe(true);

      const service = only('Service', 'sentinel') as unknown as {
        spec: { selector: Record<string, string>; ports: { targetPort: string }[] };
      };
      expect(selects(service.spec.selector)).toBe(true);
      expect(service.spec.ports[0]!.targetPort).toBe(container.ports![0]!.name);

      const budget = only('PodDisruptionBudget', 'sentinel') as unknown as {
        spec: { minAvailable: number; selector: { matchLabels: Record<string, string> } };
      };
      expect(budget.spec.minAvailable).toBe(1);
      expect(selects(budget.spec.selector.matchLabels)).toBe(true);

      const policy = only('NetworkPolicy', 'sentinel') as unknown as {
        spec: {
          podSelector: { matchLabels: Record<string, string> };
          policyTypes: string[];
          ingress: { from: { podSelector?: { matchLabels: Record<string, string> } }[] }[];
        };
      };
      expect(selects(policy.spec.podSelector.matchLabels)).toBe(true);
      expect(policy.spec.policyTypes).toEqual(['Ingress']);
      // Exactly the harness and the approvers, nobody else.
      const sources = policy.spec.ingress.flatMap((rule) =>
        rule.from.map((peer) => peer.podSelector?.matchLabels),
      );
      expect(sources).toEqual([{ 'sentinel.dev/access': 'harness' }, { 'sentinel.dev/access': 'approver' }]);
    });
  });
});

// The kinds the simulator serves (deploy/sim/README.md); Secrets, PodDisruptionBudgets and
// NetworkPolicies are not among them, so those manifests are checked by the schemas above only.
const SIMULATED_KINDS = new Set([
  'Namespace',
  'ServiceAccount',
  'Service',
  'Deployment',
  'Role',
  'RoleBinding',
  'ClusterRole',
  'ClusterRoleBinding',
]);

describeWithTool(
  'kubectl',
  'deploy/k8s against the simulator (kubectl apply --dry-run=server)',
  (kubectl) => {
    let sim: Simulator;
    let dir: string;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'sentinel-k8s-manifests-'));
      sim = await startSimulator({
        scenario: 'healthy',
        timeScale: 0,
        kubeconfigPath: join(dir, 'kubeconfig'),
      });
    });

    afterAll(async () => {
      await sim?.close();
      if (dir) rmSync(dir, { recursive: true, force: true });
    });

    it('accepts every manifest of a kind it serves, with strict field validation', async () => {
      const served = files.filter((file) =>
        manifests.filter((m) => m.file === file).every((m) => SIMULATED_KINDS.has(m.kind)),
      );
      expect(served).toEqual(
        expect.arrayContaining(['deployment.yaml', 'service.yaml', 'serviceaccount.yaml']),
      );
      // A dry run writes nothing, so the namespace the objects live in must exist first.
      const namespace = await runKubectl(kubectl, sim.kubeconfigPath!, dir, [
        'create',
        'namespace',
        'sentinel',
        '--save-config',
      ]);
      expect(namespace.stderr).toBe('');
      const args = ['apply', '--dry-run=server', ...served.flatMap((file) => ['-f', join(DIR, file)])];
      const result = await runKubectl(kubectl, sim.kubeconfigPath!, dir, args);
      expect(result.stderr).toBe('');
      expect(result.code).toBe(0);
      expect(result.stdout).toMatch(/deployment\.apps\/sentinel created \(server dry run\)/);
      expect(result.stdout).toMatch(/service\/sentinel created \(server dry run\)/);
    });
  },
);
