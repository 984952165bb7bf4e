/**
 * Issue 15's "done when": `kubectl rollout undo statefulset|daemonset/<name>` and Sentinel's rollback,
 * run on two identical simulators, leave identical objects — spec, ControllerRevisions (names, data)
 * and their revision numbers — apart from Sentinel's own attribution annotations; and the same
 * request kind reaches the API server. Then Sentinel finishes the StatefulSet's forced rollback the
 * way the StatefulSet docs say (delete the Pod stuck at the bad revision) with delete_pod, and scales
 * it, against kubectl doing the same. Frozen clocks, advanced identically on both sides.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../deploy/sim/index.ts';
import type { Tool, ToolOutput } from '../../../tools/define-tool.ts';
import { getRolloutHistory } from '../../../tools/investigate/get-rollout-history.ts';
import { getRolloutStatus } from '../../../tools/investigate/get-rollout-status.ts';
import { type KubeConnection } from '../../../tools/kube/index.ts';
import { connectKube } from '../../../tools/kube/connect.ts';
import {
  deletePod,
  rollbackDeployment,
  scaleDeployment,
  type RemediationOutput,
} from '../../../tools/remediate/index.ts';
import { describeWithTool } from '../../helpers/system-tools.ts';
import { workloadScenario } from '../../helpers/workload-scenario.ts';

const run = promisify(execFile);
type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describeWithTool(
  'kubectl',
  'StatefulSet and DaemonSet remediation on the simulator matches kubectl',
  (kubectlPath) => {
    let dir: string;
    let sentinelSide: Simulator;
    let kubectlSide: Simulator;
    let connection: Extract<KubeConnection, { configured: true }>;

    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'sentinel-workloads-sim-'));
      const started = await Promise.all(
        ['sentinel', 'kubectl'].map((side) =>
          startSimulator({
            scenario: workloadScenario(),
            timeScale: 0,
            kubeconfigPath: join(dir, `${side}.kubeconfig`),
          }),
        ),
      );
      [sentinelSide, kubectlSide] = started as [Simulator, Simulator];
      const connected = connectKube({ kubeconfig: sentinelSide.kubeconfigPath });
      if (!connected.configured) throw new Error(connected.reason);
      connection = connected;
    });

    afterAll(async () => {
      await Promise.all([sentinelSide?.close(), kubectlSide?.close()]);
      rmSync(dir, { recursive: true, force: true });
    });

    async function kubectl(sim: Simulator, ...args: string[]): Promise<string> {
      const { stdout } = await run(
        kubectlPath,
        ['--kubeconfig', sim.kubeconfigPath!, '-n', 'shop', ...args],
        {
          timeout: 120_000,
          env: { ...process.env, TZ: 'UTC', HOME: dir, KUBECACHEDIR: join(dir, 'cache') },
        },
      );
      return stdout;
    }

    async function sentinel(tool: Tool, args: Record<string, unknown>, dryRun = false) {
      const parsed = tool.input.parse({
        namespace: 'shop',
        ...args,
        ...(tool.supportsDryRun && { dry_run: dryRun }),
      });
      const output = await tool.handler(parsed, {
        kube: connection.reader,
        cluster: connection.cluster,
        signal: new AbortController().signal,
        dryRun,
        ...(!dryRun && { writer: connection.writer, approvalRequestId: 'apr-sim-15' }),
      });
      return output as ToolOutput & { structured: RemediationOutput };
    }

    const advance = (ms: number) => {
      for (const sim of [sentinelSide, kubectlSide]) sim.clock.advance(ms);
    };

    const attribution = (key: string) =>
      key.startsWith('sentinel.dev/') || key === 'kubernetes.io/change-cause';
    const without = (map: Json | undefined) =>
      Object.fromEntries(Object.entries(map ?? {}).filter(([key]) => !attribution(key)));

    /** What kubectl shows of the workload and its ControllerRevisions. */
    async function snapshot(sim: Simulator, resource: 'statefulset' | 'daemonset', name: string) {
      const object = JSON.parse(await kubectl(sim, 'get', `${resource}/${name}`, '-o', 'json')) as Json;
      const { items } = JSON.parse(await kubectl(sim, 'get', 'controllerrevisions', '-o', 'json')) as Json;
      const owned = (items as Json[]).filter((cr) => cr.metadata.ownerReferences?.[0]?.name === name);
      const history = await kubectl(sim, 'rollout', 'history', `${resource}/${name}`);
      return {
        generation: object.metadata.generation,
        annotations: without(object.metadata.annotations),
        spec: object.spec,
        revisions: owned
          .map((cr) => ({ name: cr.metadata.name, revision: cr.revision, data: cr.data }))
          .sort((a, b) => a.revision - b.revision),
        history: [...history.matchAll(/^(\d+)\s/gm)].map((match) => Number(match[1])),
        status: await kubectl(sim, 'rollout', 'status', `${resource}/${name}`, '--watch=false'),
      };
    }

    const lastRequest = (sim: Simulator) => {
      const { verb, resource, subresource, contentType } = sim.mutationLog.at(-1)!;
      return { verb, resource, subresource, contentType };
    };

    async function expectSame(resource: 'statefulset' | 'daemonset', name: string) {
      const [ours, theirs] = await Promise.all([
        snapshot(sentinelSide, resource, name),
        snapshot(kubectlSide, resource, name),
      ]);
      expect(ours).toEqual(theirs);
      return ours;
    }

    it('previews the StatefulSet rollback with the revision kubectl would return to, changing nothing', async () => {
      const before = sentinelSide.mutationLog.length;
      const preview = await sentinel(rollbackDeployment, { name: 'db', kind: 'StatefulSet' }, true);
      expect(sentinelSide.mutationLog.length).toBe(before);
      expect(preview.structured).toMatchObject({
        status: 'preview',
        summary:
          'Roll back StatefulSet shop/db from revision 2 (registry.example.com/postgres:16.2) to revision 1 (registry.example.com/postgres:16.1)',
        resolved_arguments: { namespace: 'shop', name: 'db', kind: 'StatefulSet', to_revision: 1 },
        new_revision: 3,
      });
      const history = await sentinel(getRolloutHistory, { name: 'db', kind: 'StatefulSet', revision: 1 });
      expect(history.text).toContain('Rolling back to revision 1 would change:');
    });

    it('rolls a StatefulSet back exactly as kubectl rollout undo does (revision renumbered to 3)', async () => {
      expect(await kubectl(kubectlSide, 'rollout', 'undo', 'statefulset/db')).toBe(
        'statefulset.apps/db rolled back\n',
      );
      const done = await sentinel(rollbackDeployment, {
        name: 'db',
        kind: 'StatefulSet',
        reason: 'bad 16.2',
      });
      expect(done.structured.status).toBe('applied');
      expect(lastRequest(sentinelSide)).toEqual(lastRequest(kubectlSide));
      expect(sentinelSide.mutationLog.at(-1)!.fieldManager).toBe('sentinel');
      advance(1000);
      const after = await expectSame('statefulset', 'db');
      expect(after.revisions.map((r) => r.revision)).toEqual([2, 3]);
      expect(after.history).toEqual([2, 3]);
      const status = await sentinel(getRolloutStatus, { name: 'db', kind: 'StatefulSet' });
      expect(status.text).toContain('rollout of StatefulSet shop/db');
    });

    it('skips a rollback to the revision in use, like kubectl', async () => {
      const before = sentinelSide.mutationLog.length;
      const skipped = await sentinel(rollbackDeployment, { name: 'db', kind: 'StatefulSet', to_revision: 3 });
      expect(skipped.structured.status).toBe('no_op');
      expect(skipped.structured.summary).toContain('Skipped rollback');
      expect(sentinelSide.mutationLog.length).toBe(before);
      expect(await kubectl(kubectlSide, 'rollout', 'undo', 'statefulset/db', '--to-revision=3')).toContain(
        'skipped rollback',
      );
    });

    it('finishes the forced rollback by deleting the stuck Pod, as kubectl delete pod does', async () => {
      advance(120_000);
      const preview = await sentinel(deletePod, { name: 'db-2' }, true);
      expect(preview.structured.summary).toContain(
        'StatefulSet shop/db recreates it under the same name and claims data-db-2',
      );
      expect(await kubectl(kubectlSide, 'delete', 'pod', 'db-2', '--wait=false')).toBe(
        'pod "db-2" deleted\n',
      );
      const deleted = await sentinel(deletePod, { name: 'db-2' });
      expect(deleted.structured.status).toBe('applied');
      expect(lastRequest(sentinelSide)).toMatchObject({
        verb: lastRequest(kubectlSide).verb,
        resource: 'pods',
      });
      for (let step = 0; step < 12; step++) advance(10_000);
      const after = await expectSame('statefulset', 'db');
      expect(after.status).toBe('partitioned roll out complete: 3 new pods have been updated...\n');
    });

    it('scales the StatefulSet down like kubectl scale, warning about ordered termination and kept claims', async () => {
      const preview = await sentinel(scaleDeployment, { name: 'db', kind: 'StatefulSet', replicas: 1 }, true);
      expect(preview.structured.warnings.map((w) => w.kind)).toEqual(
        expect.arrayContaining(['ordered_termination', 'pvc_retained']),
      );
      expect(preview.structured.warnings.find((w) => w.kind === 'pvc_retained')!.message).toContain(
        'data-db-2, data-db-1',
      );
      await kubectl(kubectlSide, 'scale', 'statefulset/db', '--replicas=1');
      await sentinel(scaleDeployment, { name: 'db', kind: 'StatefulSet', replicas: 1 });
      expect(lastRequest(sentinelSide)).toEqual(lastRequest(kubectlSide));
      for (let step = 0; step < 12; step++) advance(10_000);
      await expectSame('statefulset', 'db');
    });

    it('rolls a DaemonSet back exactly as kubectl rollout undo does', async () => {
      expect(await kubectl(kubectlSide, 'rollout', 'undo', 'daemonset/agent')).toBe(
        'daemonset.apps/agent rolled back\n',
      );
      const done = await sentinel(rollbackDeployment, { name: 'agent', kind: 'DaemonSet' });
      expect(done.structured.summary).toBe(
        'Roll back DaemonSet shop/agent from revision 2 (registry.example.com/agent:1.1) to revision 1 (registry.example.com/agent:1.0)',
      );
      expect(lastRequest(sentinelSide)).toEqual(lastRequest(kubectlSide));
      for (let step = 0; step < 12; step++) advance(10_000);
      const after = await expectSame('daemonset', 'agent');
      expect(after.revisions.map((r) => r.revision)).toEqual([2, 3]);
    });
  },
);
