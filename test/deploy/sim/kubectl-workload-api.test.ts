/**
 * The StatefulSet, DaemonSet and ControllerRevision APIs of the simulator through kubectl, beyond
 * the controllers: RBAC (a Role granting exactly what `kubectl rollout undo|restart`, `scale` and
 * `delete pod` call is enough, one verb less is a 403 in the apiserver's wording), server-side
 * apply with field managers, server-side dry run, validation of immutable StatefulSet fields,
 * `kubectl explain` from the OpenAPI documents, and watch.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { stringify } from 'yaml';
import { startSimulator } from '../../../deploy/sim/index.ts';
import type { Simulator } from '../../../deploy/sim/index.ts';
import type { StatefulSet } from '../../../deploy/sim/types.ts';
import { runKubectl } from '../../helpers/sim-kubectl.ts';
import { describeWithTool } from '../../helpers/system-tools.ts';
import { workloadScenario } from '../../helpers/workload-scenario.ts';

const OPS = 'ops';

/** The Role an operator needs for `rollout undo|restart|status|history`, `scale sts` and `delete pod`. */
function opsRole(extra: Record<string, unknown>[] = []) {
  return {
    apiVersion: 'rbac.authorization.k8s.io/v1',
    kind: 'Role',
    metadata: { name: 'workload-ops', namespace: 'shop' },
    rules: [
      {
        apiGroups: ['apps'],
        resources: ['statefulsets', 'daemonsets'],
        verbs: ['get', 'list', 'watch', 'patch'],
      },
      { apiGroups: ['apps'], resources: ['statefulsets/scale'], verbs: ['get', 'patch', 'update'] },
      { apiGroups: ['apps'], resources: ['controllerrevisions'], verbs: ['get', 'list', 'watch'] },
      { apiGroups: [''], resources: ['pods'], verbs: ['delete'] },
      ...extra,
    ],
  };
}

const binding = {
  apiVersion: 'rbac.authorization.k8s.io/v1',
  kind: 'RoleBinding',
  metadata: { name: 'workload-ops', namespace: 'shop' },
  roleRef: { apiGroup: 'rbac.authorization.k8s.io', kind: 'Role', name: 'workload-ops' },
  subjects: [{ apiGroup: 'rbac.authorization.k8s.io', kind: 'User', name: OPS }],
};

describeWithTool('kubectl', 'StatefulSet/DaemonSet/ControllerRevision API via kubectl', (kubectlPath) => {
  let sim: Simulator;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sentinel-sim-wlapi-'));
    sim = await startSimulator({
      scenario: workloadScenario(),
      timeScale: 0,
      kubeconfigPath: join(dir, 'kubeconfig'),
      identities: [{ name: OPS, token: 'ops-token-0123456789abcdef' }],
    });
  });

  afterAll(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const admin = (args: string[], input?: string) =>
    runKubectl(kubectlPath, sim.kubeconfigPath!, dir, ['-n', 'shop', ...args], input);
  const asOps = (...args: string[]) =>
    runKubectl(kubectlPath, sim.kubeconfigPath!, dir, ['--context', OPS, '-n', 'shop', ...args]);

  describe('RBAC', () => {
    it('without a binding, every call on the new kinds is forbidden', async () => {
      const denied = await asOps('get', 'controllerrevisions');
      expect(denied.stderr).toContain(
        `Error from server (Forbidden): controllerrevisions.apps is forbidden: User "${OPS}" cannot list resource "controllerrevisions" in API group "apps" in the namespace "shop"`,
      );
    });

    it('can-i answers from the Role, subresources and verbs apart', async () => {
      const applied = await admin(['apply', '-f', '-'], `${stringify(opsRole())}---\n${stringify(binding)}`);
      expect(applied.code, applied.stderr).toBe(0);
      const canI = async (...args: string[]) => (await asOps('auth', 'can-i', ...args)).stdout.trim();
      expect(await canI('list', 'controllerrevisions.apps')).toBe('yes');
      expect(await canI('patch', 'statefulsets.apps')).toBe('yes');
      expect(await canI('update', 'statefulsets.apps', '--subresource=scale')).toBe('yes');
      expect(await canI('patch', 'daemonsets.apps')).toBe('yes');
      expect(await canI('delete', 'pods')).toBe('yes');
      expect(await canI('delete', 'statefulsets.apps')).toBe('no');
      expect(await canI('create', 'controllerrevisions.apps')).toBe('no');
      expect(await canI('patch', 'daemonsets.apps', '--subresource=status')).toBe('no');
      expect(await canI('get', 'pods')).toBe('no');
    });

    it('the Role is enough for rollout history/status/undo/restart, scale and delete pod', async () => {
      const run = async (...args: string[]) => {
        const result = await asOps(...args);
        expect(result.stderr).toBe('');
        expect(result.code).toBe(0);
        return result.stdout;
      };
      expect(await run('rollout', 'history', 'statefulset/db')).toContain('REVISION');
      expect(await run('rollout', 'status', 'daemonset/agent', '--watch=false')).toContain('agent');
      expect(await run('rollout', 'undo', 'statefulset/db')).toBe('statefulset.apps/db rolled back\n');
      expect(await run('rollout', 'undo', 'daemonset/agent')).toBe('daemonset.apps/agent rolled back\n');
      expect(await run('rollout', 'restart', 'daemonset/agent')).toBe('daemonset.apps/agent restarted\n');
      expect(await run('scale', 'statefulset/db', '--replicas=2')).toBe('statefulset.apps/db scaled\n');
      expect(await run('delete', 'pod', 'db-1', '--wait=false')).toBe('pod "db-1" deleted\n');
    });

    it('one verb less is a 403 naming it', async () => {
      const withoutPatch = opsRole();
      withoutPatch.rules[0] = { ...withoutPatch.rules[0]!, verbs: ['get', 'list', 'watch'] };
      expect((await admin(['apply', '-f', '-'], stringify(withoutPatch))).code).toBe(0);
      const denied = await asOps('rollout', 'restart', 'statefulset/db');
      expect(denied.stderr).toContain(
        `statefulsets.apps "db" is forbidden: User "${OPS}" cannot patch resource "statefulsets" in API group "apps" in the namespace "shop"`,
      );
    });
  });

  describe('writes', () => {
    const manifest = () => {
      const set = workloadScenario() as { workloads: { manifest: StatefulSet }[] };
      const copy = structuredClone(set.workloads[0]!.manifest);
      copy.metadata = { name: 'cache', namespace: 'shop' };
      copy.spec.selector = { matchLabels: { app: 'cache' } };
      copy.spec.template.metadata = { labels: { app: 'cache' } };
      copy.spec.template.spec.containers[0]!.image = 'registry.example.com/postgres:16.1';
      return stringify(copy);
    };

    it('server-side dry run stores nothing', async () => {
      const result = await admin(['create', '--dry-run=server', '-o', 'name', '-f', '-'], manifest());
      expect(result.stdout).toBe('statefulset.apps/cache\n');
      expect(sim.cluster.store.get('statefulsets', 'shop', 'cache')).toBeUndefined();
    });

    it('server-side apply records the field manager; the controller then makes revision 1', async () => {
      const result = await admin(['apply', '--server-side', '-f', '-'], manifest());
      expect(result.stdout).toBe('statefulset.apps/cache serverside-applied\n');
      const stored = sim.cluster.store.get<StatefulSet>('statefulsets', 'shop', 'cache')!;
      expect(stored.metadata.managedFields?.map((entry) => [entry.manager, entry.operation])).toContainEqual([
        'kubectl',
        'Apply',
      ]);
      expect(stored.status?.updateRevision).toMatch(/^cache-/);
      expect((await admin(['get', 'controllerrevisions', '-l', 'app=cache', '-o', 'name'])).stdout).toBe(
        `controllerrevision.apps/${stored.status!.updateRevision}\n`,
      );
    });

    it('a StatefulSet spec field outside the mutable ones is Forbidden, as the apiserver says', async () => {
      const result = await admin(['patch', 'statefulset/cache', '-p', '{"spec":{"serviceName":"other"}}']);
      expect(result.code).not.toBe(0);
      expect(result.stderr).toContain(
        "spec: Forbidden: updates to statefulset spec for fields other than 'replicas', 'ordinals', 'template', 'updateStrategy', 'revisionHistoryLimit', 'persistentVolumeClaimRetentionPolicy' and 'minReadySeconds' are forbidden",
      );
    });

    it('explain reads the schemas of the new kinds', async () => {
      const explained = await admin(['explain', 'statefulset.spec.updateStrategy.rollingUpdate']);
      expect(explained.stdout).toContain('partition');
      expect((await admin(['explain', 'daemonset.status'])).stdout).toContain('numberUnavailable');
      expect((await admin(['explain', 'controllerrevision'])).stdout).toContain('revision');
    });

    it('watch replays the changes of a StatefulSet after a resourceVersion', async () => {
      const before = sim.cluster.store.get<StatefulSet>('statefulsets', 'shop', 'cache')!;
      await admin(['scale', 'statefulset/cache', '--replicas=1']);
      // A watch from the resourceVersion before the scale replays it; the server ends the stream.
      const { stdout } = await admin([
        'get',
        '--raw',
        `/apis/apps/v1/namespaces/shop/statefulsets?watch=1&fieldSelector=metadata.name%3Dcache&resourceVersion=${before.metadata.resourceVersion}&timeoutSeconds=1`,
      ]);
      const events = stdout
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line) as { type: string; object: StatefulSet });
      expect(events.length).toBeGreaterThan(0);
      expect(
        events.every((event) => event.type === 'MODIFIED' && event.object.metadata.name === 'cache'),
      ).toBe(true);
      expect(events.some((event) => event.object.spec.replicas === 1)).toBe(true);
    });
  });
});
