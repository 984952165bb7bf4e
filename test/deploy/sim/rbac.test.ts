/**
 * RBAC on the simulator, through the real kubectl and through Sentinel's own tools: deploy/k8s/'s
 * manifests are applied with kubectl; Sentinel's service account then gets exactly what its roles
 * grant — `auth whoami`, `auth can-i` and `auth can-i --list` answer from the bindings, a write the
 * read-only role lacks is a 403 in the apiserver's wording, every investigation tool works under the
 * read-only role, a remediation attempt fails with Sentinel's `forbidden` naming the missing verb,
 * and with the remediation role bound every remediation tool works.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { SCENARIOS_DIR, startSimulator } from '../../../deploy/sim/index.ts';
import type { Simulator } from '../../../deploy/sim/index.ts';
import { allTools } from '../../../tools/index.ts';
import type { Tool } from '../../../tools/define-tool.ts';
import { SentinelError } from '../../../tools/errors.ts';
import { type KubeConnection } from '../../../tools/kube/index.ts';
import { connectKube } from '../../../tools/kube/connect.ts';
import { runKubectl } from '../../helpers/sim-kubectl.ts';
import { describeWithTool } from '../../helpers/system-tools.ts';

const SA = 'system:serviceaccount:sentinel:sentinel';
/** A second service account that gets only the remediation role. */
const REMEDIATOR = 'system:serviceaccount:sentinel:remediator';
const K8S = new URL('../../../deploy/k8s/', import.meta.url).pathname;

/** Arguments that make each tool do its full job on the bad-image-rollout scenario. */
function argsFor(tool: Tool, pod: string): Record<string, unknown> {
  const target = { namespace: 'shop', name: 'checkout' };
  switch (tool.name) {
    case 'get_cluster_version':
    case 'list_namespaces':
      return {};
    case 'triage_namespace':
    case 'list_deployments':
    case 'list_events':
      return { namespace: 'shop' };
    case 'list_pods':
      return { namespace: 'shop', deployment: 'checkout' };
    case 'get_pod_logs':
      return { namespace: 'shop', pod, previous: true };
    case 'get_pod_metrics':
      return { namespace: 'shop', pod };
    case 'scale_deployment':
      return { ...target, replicas: 4 };
    case 'delete_pod':
      return { namespace: 'shop', name: pod };
    default:
      return target;
  }
}

describeWithTool('kubectl', 'RBAC on the simulator', (kubectlPath) => {
  let sim: Simulator;
  let dir: string;
  let connection: Extract<KubeConnection, { configured: true }>;
  let crashingPod: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sentinel-sim-rbac-'));
    sim = await startSimulator({
      scenario: 'bad-image-rollout',
      timeScale: 0,
      kubeconfigPath: join(dir, 'kubeconfig'),
      identities: [
        { name: SA, token: 'sentinel-sa-token-0123456789' },
        { name: REMEDIATOR, token: 'remediator-sa-token-0123456789' },
      ],
    });
    const connected = connectKube({ kubeconfig: sim.kubeconfigPath!, context: SA });
    if (!connected.configured) throw new Error(connected.reason);
    connection = connected;
    crashingPod = sim.cluster.store
      .list('pods', 'shop')
      .find((pod) => JSON.stringify(pod).includes(':2.4.1'))!.metadata.name;
  });

  afterAll(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const admin = (...args: string[]) => runKubectl(kubectlPath, sim.kubeconfigPath!, dir, args);
  const asSentinel = (...args: string[]) =>
    runKubectl(kubectlPath, sim.kubeconfigPath!, dir, ['--context', SA, ...args]);

  async function call(
    tool: Tool,
    dryRun: boolean,
    as: Extract<KubeConnection, { configured: true }> = connection,
  ) {
    // delete_pod acts on a Pod that exists now (an earlier call may have deleted the crashing one).
    const pod =
      tool.name === 'delete_pod'
        ? sim.cluster.store.list('pods', 'shop').find((p) => !p.metadata.deletionTimestamp)!.metadata.name
        : crashingPod;
    const args = argsFor(tool, pod);
    const parsed = tool.input.parse(tool.risk === 'read' ? args : { ...args, dry_run: dryRun });
    return tool.handler(parsed, {
      kube: as.reader,
      cluster: as.cluster,
      signal: new AbortController().signal,
      dryRun,
      ...(!dryRun && tool.risk !== 'read' && { writer: as.writer, approvalRequestId: 'apr-rbac-1' }),
    });
  }

  describe('kubectl', () => {
    it('the default identity is cluster-admin; an unbound service account may do nothing but discovery', async () => {
      expect((await admin('auth', 'can-i', '*', '*', '--all-namespaces')).stdout).toBe('yes\n');
      const whoami = await asSentinel('auth', 'whoami', '-o', 'json');
      expect(JSON.parse(whoami.stdout)).toMatchObject({
        kind: 'SelfSubjectReview',
        status: {
          userInfo: {
            username: SA,
            groups: ['system:serviceaccounts', 'system:serviceaccounts:sentinel', 'system:authenticated'],
          },
        },
      });
      const denied = await asSentinel('get', 'pods', '-n', 'shop');
      expect(denied.stderr).toContain(
        `Error from server (Forbidden): pods is forbidden: User "${SA}" cannot list resource "pods" in API group "" in the namespace "shop"`,
      );
    });

    it('deploy/k8s/ applies with kubectl; can-i and can-i --list follow the read-only role', async () => {
      const applied = await admin(
        'apply',
        '-f',
        join(K8S, 'serviceaccount.yaml'),
        '-f',
        join(K8S, 'read-only-role.yaml'),
        '-f',
        join(K8S, 'namespace-reader-clusterrole.yaml'),
      );
      expect(applied.stderr).toBe('');
      expect(applied.stdout).toContain('role.rbac.authorization.k8s.io/sentinel-read-only created');
      expect(applied.stdout).toContain('rolebinding.rbac.authorization.k8s.io/sentinel-read-only created');
      expect(applied.stdout).toContain('serviceaccount/sentinel created');
      expect(applied.stdout).toContain(
        'clusterrole.rbac.authorization.k8s.io/sentinel-namespace-reader created',
      );
      expect((await asSentinel('get', 'namespaces', '-o', 'name')).stdout).toContain('namespace/shop\n');
      expect((await asSentinel('auth', 'can-i', 'get', 'namespaces')).stdout).toBe('no\n');

      expect((await asSentinel('auth', 'can-i', 'list', 'pods', '-n', 'shop')).stdout).toBe('yes\n');
      expect(
        (await asSentinel('auth', 'can-i', 'get', 'pods', '--subresource=log', '-n', 'shop')).stdout,
      ).toBe('yes\n');
      const no = await asSentinel('auth', 'can-i', 'patch', 'deployments.apps', '-n', 'shop');
      expect(no.stdout).toBe('no\n');
      expect((await asSentinel('auth', 'can-i', 'list', 'pods', '-n', 'default')).stdout).toBe('no\n');

      const list = await asSentinel('auth', 'can-i', '--list', '-n', 'shop');
      expect(list.stdout).toMatch(/Resources\s+Non-Resource URLs\s+Resource Names\s+Verbs/);
      // watch: the read cache (`serve --read-cache watch`, the default) lists and watches these kinds.
      expect(list.stdout).toMatch(/pods\s+\[\]\s+\[\]\s+\[get list watch\]/);
      expect(list.stdout).toMatch(/deployments\.apps\s+\[\]\s+\[\]\s+\[get list watch\]/);
      expect(list.stdout).toMatch(/replicasets\.apps\s+\[\]\s+\[\]\s+\[list watch\]/);
      expect(list.stdout).toMatch(/horizontalpodautoscalers\.autoscaling\s+\[\]\s+\[\]\s+\[list watch\]/);
      expect((await asSentinel('auth', 'can-i', 'watch', 'pods', '-n', 'shop')).stdout).toBe('yes\n');
      expect((await asSentinel('auth', 'can-i', 'watch', 'services', '-n', 'shop')).stdout).toBe('no\n');
      expect(list.stdout).toMatch(/pods\/log\s+\[\]\s+\[\]\s+\[get\]/);
      expect(list.stdout).toMatch(
        /selfsubjectaccessreviews\.authorization\.k8s\.io\s+\[\]\s+\[\]\s+\[create\]/,
      );
      expect(list.stdout).toMatch(/\s+\[\/version\]\s+\[\]\s+\[get\]/);

      expect((await asSentinel('get', 'pods', '-n', 'shop')).stdout).toMatch(/CrashLoopBackOff/);
      const scale = await asSentinel('scale', 'deployment/checkout', '--replicas=1', '-n', 'shop');
      expect(scale.stderr).toContain(
        `deployments.apps "checkout" is forbidden: User "${SA}" cannot patch resource "deployments/scale" in API group "apps" in the namespace "shop"`,
      );
      const patch = await asSentinel('annotate', 'deployment/checkout', 'x=y', '-n', 'shop');
      expect(patch.stderr).toContain(
        `deployments.apps "checkout" is forbidden: User "${SA}" cannot patch resource "deployments" in API group "apps" in the namespace "shop"`,
      );
    });
  });

  describe("Sentinel's tools under the roles they document", () => {
    it('every investigation tool and every remediation preview works under the read-only role', async () => {
      const reads = allTools.filter((tool) => tool.risk === 'read');
      expect(reads.length).toBeGreaterThanOrEqual(9);
      for (const tool of reads) {
        await expect(call(tool, false), tool.name).resolves.toBeDefined();
      }
      // A remediation preview (dry_run) only reads.
      for (const tool of allTools.filter((candidate) => candidate.risk !== 'read')) {
        await expect(call(tool, true), `${tool.name} preview`).resolves.toBeDefined();
      }
    });

    it("a remediation under the read-only role fails with Sentinel's forbidden error naming the verb", async () => {
      const rollback = allTools.find((tool) => tool.name === 'rollback_deployment')!;
      const error = await call(rollback, false).then(
        () => undefined,
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(SentinelError);
      expect((error as SentinelError).code).toBe('forbidden');
      expect((error as SentinelError).details).toMatchObject({
        verb: 'patch',
        resource: 'deployments',
        group: 'apps',
      });
      expect((error as Error).message).toMatch(/may not patch/);
    });

    it('with the remediation role bound, every remediation tool works', async () => {
      const before = sim.mutationLog.length;
      const applied = await admin('apply', '-f', join(K8S, 'remediation-role.yaml'));
      expect(applied.stdout).toContain('role.rbac.authorization.k8s.io/sentinel-remediation created');
      const writes = allTools.filter((tool) => tool.risk !== 'read');
      expect(writes.map((tool) => tool.name).sort()).toEqual([
        'delete_pod',
        'pause_rollout',
        'restart_service',
        'resume_rollout',
        'rollback_deployment',
        'scale_deployment',
      ]);
      // Previews first, then the real calls, in an on-call engineer's order.
      for (const tool of writes)
        await expect(call(tool, true), `${tool.name} preview`).resolves.toBeDefined();
      for (const name of [
        'rollback_deployment',
        'scale_deployment',
        'restart_service',
        'pause_rollout',
        'resume_rollout',
        'delete_pod',
      ]) {
        const tool = writes.find((candidate) => candidate.name === name)!;
        await expect(call(tool, false), name).resolves.toBeDefined();
      }
      const writesBySentinel = sim.mutationLog.slice(before).filter((entry) => entry.identity === SA);
      // rollback, scale (attribution annotations, then deployments/scale), restart, pause, resume, delete pod
      expect(
        writesBySentinel.map((entry) => `${entry.verb} ${entry.subresource ?? '-'} ${entry.code}`),
      ).toEqual([
        'patch - 200',
        'patch - 200',
        'patch scale 200',
        'patch - 200',
        'patch - 200',
        'patch - 200',
        'delete - 200',
      ]);
    });

    it('the remediation role alone is enough for every remediation tool (kubectl create rolebinding, --as)', async () => {
      const bound = await admin(
        'create',
        'rolebinding',
        'remediator',
        '-n',
        'shop',
        '--role=sentinel-remediation',
        '--serviceaccount=sentinel:remediator',
      );
      expect(bound.stdout).toBe('rolebinding.rbac.authorization.k8s.io/remediator created\n');
      expect(
        (await admin('auth', 'can-i', 'patch', 'deployments/scale', '-n', 'shop', `--as=${REMEDIATOR}`))
          .stdout,
      ).toBe('yes\n');
      expect((await admin('auth', 'can-i', 'list', 'pods', '-n', 'shop', `--as=${REMEDIATOR}`)).stdout).toBe(
        'no\n',
      );
      expect(
        (await admin('auth', 'can-i', 'delete', 'pods', '-n', 'shop', `--as=${REMEDIATOR}`)).stdout,
      ).toBe('yes\n');
      const connected = connectKube({ kubeconfig: sim.kubeconfigPath!, context: REMEDIATOR });
      if (!connected.configured) throw new Error(connected.reason);
      for (const tool of allTools.filter((candidate) => candidate.risk !== 'read')) {
        await expect(call(tool, true, connected), `${tool.name} preview`).resolves.toBeDefined();
        await expect(call(tool, false, connected), tool.name).resolves.toBeDefined();
      }
    });
  });
});

describeWithTool('kubectl', 'RBAC declared by a scenario', (kubectlPath) => {
  let sim: Simulator;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sentinel-sim-rbac-scenario-'));
    const healthy = parse(readFileSync(join(SCENARIOS_DIR, 'healthy.yaml'), 'utf8')) as Record<
      string,
      unknown
    >;
    const binding = (kind: string, subject: Record<string, string>) => ({
      at: '-1h',
      manifest: {
        apiVersion: 'rbac.authorization.k8s.io/v1',
        kind: 'RoleBinding',
        metadata: { name: `viewers-${kind.toLowerCase()}`, namespace: 'shop' },
        roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'pod-reader' },
        subjects: [subject],
      },
    });
    sim = await startSimulator({
      scenario: {
        ...healthy,
        identities: [{ name: 'alice', groups: ['oncall'] }, { name: 'bob' }],
        objects: [
          ...(healthy['objects'] as unknown[]),
          {
            at: '-1h',
            manifest: {
              apiVersion: 'rbac.authorization.k8s.io/v1',
              kind: 'Role',
              metadata: { name: 'pod-reader', namespace: 'shop' },
              rules: [{ apiGroups: [''], resources: ['pods'], verbs: ['get', 'list'] }],
            },
          },
          binding('Group', { kind: 'Group', name: 'oncall', apiGroup: 'rbac.authorization.k8s.io' }),
        ],
      },
      timeScale: 0,
      kubeconfigPath: join(dir, 'kubeconfig'),
    });
  });

  afterAll(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('gives each declared identity a kubeconfig context, authorised by the scenario bindings', async () => {
    const as = (user: string, ...args: string[]) =>
      runKubectl(kubectlPath, sim.kubeconfigPath!, dir, ['--context', user, '-n', 'shop', ...args]);
    expect((await as('alice', 'get', 'pods')).stdout).toMatch(/checkout-/);
    expect((await as('alice', 'auth', 'can-i', 'delete', 'pods')).stdout).toBe('no\n');
    expect((await as('bob', 'get', 'pods')).stderr).toContain(
      'pods is forbidden: User "bob" cannot list resource "pods" in API group "" in the namespace "shop"',
    );
  });
});
