/**
 * The rollback an API client makes the way kubectl's `StatefulSetRollbacker`/`DaemonSetRollbacker`
 * do (polymorphichelpers/rollback.go: list the ControllerRevisions the object controls, take the
 * previous revision, PATCH the object with the revision's `data` as a strategic merge patch) — here
 * with a `metadata.resourceVersion` precondition, as Sentinel sends it — leaves the same objects as
 * `kubectl rollout undo` on an identical simulator: spec, ControllerRevision names, numbers and data.
 * A stale resourceVersion is a 409 and changes nothing.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../../deploy/sim/index.ts';
import type { Simulator } from '../../../deploy/sim/index.ts';
import type { ControllerRevision, KubeObject } from '../../../deploy/sim/types.ts';
import { rawRequest } from '../../helpers/sim.ts';
import { runKubectl } from '../../helpers/sim-kubectl.ts';
import { describeWithTool } from '../../helpers/system-tools.ts';
import { workloadScenario } from '../../helpers/workload-scenario.ts';

const KINDS = [
  { kind: 'StatefulSet', plural: 'statefulsets', name: 'db', kubectl: 'statefulset/db' },
  { kind: 'DaemonSet', plural: 'daemonsets', name: 'agent', kubectl: 'daemonset/agent' },
] as const;

describeWithTool('kubectl', 'rollback parity: kubectl rollout undo vs. the API rollback', (kubectlPath) => {
  let byKubectl: Simulator;
  let byApi: Simulator;
  let dir: string;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sentinel-sim-parity-'));
    const startTime = Date.parse('2026-12-01T12:00:00Z');
    byKubectl = await startSimulator({
      scenario: workloadScenario(),
      timeScale: 0,
      startTime,
      kubeconfigPath: join(dir, 'kubeconfig'),
    });
    byApi = await startSimulator({ scenario: workloadScenario(), timeScale: 0, startTime });
  });

  afterAll(async () => {
    await byKubectl?.close();
    await byApi?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  /** What must be equal: the spec, and each owned revision's name, number and data. */
  function snapshot(sim: Simulator, plural: string, name: string) {
    const object = sim.cluster.store.get<KubeObject>(plural, 'shop', name)!;
    const revisions = sim.cluster.store
      .list<ControllerRevision>('controllerrevisions', 'shop')
      .filter((revision) => revision.metadata.ownerReferences?.[0]?.uid === object.metadata.uid)
      .map((revision) => ({ name: revision.metadata.name, revision: revision.revision, data: revision.data }))
      .sort((a, b) => a.revision - b.revision);
    return { spec: object['spec'], generation: object.metadata.generation, revisions };
  }

  /** The rollback as an API client makes it: previous revision's data, resourceVersion precondition. */
  async function apiRollback(plural: string, name: string, resourceVersion?: string) {
    const path = `/apis/apps/v1/namespaces/shop/${plural}/${name}`;
    const object = (await rawRequest(byApi, 'GET', path)).json as KubeObject;
    const revisions = (
      (await rawRequest(byApi, 'GET', '/apis/apps/v1/namespaces/shop/controllerrevisions')).json as {
        items: ControllerRevision[];
      }
    ).items
      .filter((revision) =>
        revision.metadata.ownerReferences?.some((ref) => ref.controller && ref.uid === object.metadata.uid),
      )
      .sort((a, b) => b.revision - a.revision);
    const previous = revisions[1]!;
    return rawRequest(byApi, 'PATCH', path, {
      headers: { 'Content-Type': 'application/strategic-merge-patch+json' },
      body: {
        ...previous.data,
        metadata: { resourceVersion: resourceVersion ?? object.metadata.resourceVersion },
      },
    });
  }

  describe.each(KINDS)('$kind', ({ plural, name, kubectl }) => {
    it('both start identical', () => {
      expect(snapshot(byApi, plural, name)).toEqual(snapshot(byKubectl, plural, name));
    });

    it('a stale resourceVersion is a 409 Conflict and changes nothing', async () => {
      const before = snapshot(byApi, plural, name);
      const response = await apiRollback(plural, name, '1');
      expect(response.status).toBe(409);
      expect(response.json).toMatchObject({ kind: 'Status', reason: 'Conflict' });
      expect(snapshot(byApi, plural, name)).toEqual(before);
    });

    it('undo by kubectl and by the API leave identical objects and revisions', async () => {
      const undo = await runKubectl(kubectlPath, byKubectl.kubeconfigPath!, dir, [
        '-n',
        'shop',
        'rollout',
        'undo',
        kubectl,
      ]);
      expect(undo.stderr).toBe('');
      // What kubectl sent: the previous revision's data, as a strategic merge patch, nothing more.
      const sent = byKubectl.mutationLog.findLast((record) => record.verb === 'patch')!;
      const previous = byKubectl.cluster.store
        .list<ControllerRevision>('controllerrevisions', 'shop')
        .find(
          (revision) => revision.revision === 3 && revision.metadata.ownerReferences?.[0]?.name === name,
        )!;
      expect(sent).toMatchObject({
        resource: `${plural}.apps`,
        name,
        contentType: 'application/strategic-merge-patch+json',
        code: 200,
      });
      expect(sent.patch).toEqual(previous.data);
      expect((await apiRollback(plural, name)).status).toBe(200);
      for (const sim of [byKubectl, byApi]) sim.clock.advance(1_000);
      const after = snapshot(byKubectl, plural, name);
      expect(after.revisions.map((revision) => revision.revision)).toEqual([2, 3]);
      expect(snapshot(byApi, plural, name)).toEqual(after);
    });
  });
});
