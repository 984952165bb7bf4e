/**
 * The remediation tools against the simulator, judged by the real `kubectl`: two fresh simulators
 * replay the same incident; Sentinel's tool acts on one, the kubectl command it mirrors acts on the
 * other, and what kubectl then shows of both must be the same — template, ReplicaSets reused and
 * renumbered, revision history, paused/replicas, rollout status and the kind of request sent — apart
 * from Sentinel's own attribution. The simulators' clocks are frozen and Sentinel restarts at the
 * second kubectl did, so both sides are deterministic; the steps run in order on the same pair, as an
 * on-call engineer's commands would.
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { startSimulator, type Simulator } from '../../../deploy/sim/index.ts';
import type { Tool, ToolOutput } from '../../../tools/define-tool.ts';
import { type KubeConnection } from '../../../tools/kube/index.ts';
import { connectKube } from '../../../tools/kube/connect.ts';
import {
  pauseRollout,
  restartService,
  resumeRollout,
  rollbackDeployment,
  scaleDeployment,
  type RemediationOutput,
} from '../../../tools/remediate/index.ts';
import { rawRequest } from '../../helpers/sim.ts';
import { describeWithTool } from '../../helpers/system-tools.ts';

const run = promisify(execFile);
const RESTARTED_AT = 'kubectl.kubernetes.io/restartedAt';
const RFC3339_UTC = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ$/;

type Json = Record<string, any>; // eslint-disable-line @typescript-eslint/no-explicit-any

describeWithTool('kubectl', 'remediation tools on the simulator match kubectl', (kubectlPath) => {
  let dir: string;
  let sentinelSide: Simulator;
  let kubectlSide: Simulator;
  let connection: Extract<KubeConnection, { configured: true }>;

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sentinel-remediate-sim-'));
    const started = await Promise.all(
      ['sentinel', 'kubectl'].map((side) =>
        startSimulator({
          scenario: 'bad-image-rollout',
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
    const { stdout } = await run(kubectlPath, ['--kubeconfig', sim.kubeconfigPath!, '-n', 'shop', ...args], {
      timeout: 120_000,
      // kubectl writes restartedAt in local time: UTC, as Sentinel does.
      env: { ...process.env, TZ: 'UTC', HOME: dir, KUBECACHEDIR: join(dir, 'cache') },
    });
    return stdout;
  }

  async function sentinel(
    tool: Tool,
    args: Record<string, unknown>,
    dryRun = false,
  ): Promise<ToolOutput & { structured: RemediationOutput }> {
    const parsed = tool.input.parse({ namespace: 'shop', name: 'checkout', ...args, dry_run: dryRun });
    const output = await tool.handler(parsed, {
      kube: connection.reader,
      cluster: connection.cluster,
      signal: new AbortController().signal,
      dryRun,
      ...(!dryRun && { writer: connection.writer, approvalRequestId: 'apr-sim-1' }),
    });
    return output as ToolOutput & { structured: RemediationOutput };
  }

  /** Sentinel's own annotations, which only the Sentinel side has. */
  const attribution = (key: string) =>
    key.startsWith('sentinel.dev/') || key === 'kubernetes.io/change-cause';
  const without = (map: Json | undefined, drop: (key: string) => boolean) =>
    Object.fromEntries(Object.entries(map ?? {}).filter(([key]) => !drop(key)));
  /** What kubectl shows of the Deployment and its ReplicaSets. */
  async function snapshot(sim: Simulator) {
    const { items } = JSON.parse(await kubectl(sim, 'get', 'deployments,replicasets', '-o', 'json')) as Json;
    const deployment = (items as Json[]).find(
      (item) => item.kind === 'Deployment' && item.metadata.name === 'checkout',
    )!;
    const replicaSets = (items as Json[]).filter((item) => item.kind === 'ReplicaSet');
    const history = await kubectl(sim, 'rollout', 'history', 'deployment/checkout');
    return {
      generation: deployment.metadata.generation,
      annotations: without(deployment.metadata.annotations, attribution),
      replicas: deployment.spec.replicas,
      paused: deployment.spec.paused ?? false,
      template: deployment.spec.template,
      replicaSets: replicaSets
        .map((rs) => ({
          name: rs.metadata.name,
          annotations: without(rs.metadata.annotations, attribution),
          replicas: rs.spec.replicas,
          template: rs.spec.template,
        }))
        .sort(
          (a, b) =>
            Number(a.annotations['deployment.kubernetes.io/revision']) -
            Number(b.annotations['deployment.kubernetes.io/revision']),
        ),
      revisions: [...history.matchAll(/^(\d+)\s/gm)].map((match) => Number(match[1])),
      status: await kubectl(sim, 'rollout', 'status', 'deployment/checkout', '--watch=false'),
    };
  }

  /** The kind of the last change request each side sent. */
  const lastRequest = (sim: Simulator) => {
    const { verb, resource, subresource, contentType } = sim.mutationLog.at(-1)!;
    return { verb, resource, subresource, contentType };
  };

  async function expectSameAsKubectl() {
    const [ours, theirs] = await Promise.all([snapshot(sentinelSide), snapshot(kubectlSide)]);
    expect(ours).toEqual(theirs);
    expect(lastRequest(sentinelSide)).toEqual(lastRequest(kubectlSide));
    expect(sentinelSide.mutationLog.at(-1)!.fieldManager).toBe('sentinel');
  }

  it('previews the rollback without changing anything', async () => {
    const before = sentinelSide.mutationLog.length;
    const preview = await sentinel(rollbackDeployment, {}, true);
    expect(sentinelSide.mutationLog.length).toBe(before);
    expect(preview.structured).toMatchObject({
      status: 'preview',
      resolved_arguments: { to_revision: 2 },
      new_revision: 4,
      summary:
        'Roll back Deployment shop/checkout from revision 3 (registry.example.com/shop/checkout:2.4.1) to revision 2 (registry.example.com/shop/checkout:2.4.0)',
      cluster: { context: connection.cluster.context, server: sentinelSide.url },
    });
  });

  it('rolls back like `kubectl rollout undo`: ReplicaSet of revision 2 reused as revision 4', async () => {
    const result = await sentinel(rollbackDeployment, { reason: 'checkout 502s' });
    await kubectl(kubectlSide, 'rollout', 'undo', 'deployment/checkout');
    await expectSameAsKubectl();
    const ours = await snapshot(sentinelSide);
    expect(ours.revisions).toEqual([1, 3, 4]);
    expect(ours.replicaSets.at(-1)!.annotations['deployment.kubernetes.io/revision-history']).toBe('2');
    expect(result.structured.new_revision).toBe(4);
    expect(await kubectl(sentinelSide, 'rollout', 'history', 'deployment/checkout')).toMatch(
      /^4\s+roll back from revision 3 to revision 2 \("deploy checkout 2.4.0"\) — checkout 502s \(sentinel, approval request apr-sim-1\)$/m,
    );
    const deployment = JSON.parse(
      await kubectl(sentinelSide, 'get', 'deployment', 'checkout', '-o', 'json'),
    ) as Json;
    expect(deployment.metadata.annotations['sentinel.dev/approval-request-id']).toBe('apr-sim-1');
  });

  it('rolls back again like a second `kubectl rollout undo`: back to revision 3, renumbered 5', async () => {
    const result = await sentinel(rollbackDeployment, {});
    expect(result.structured.resolved_arguments).toMatchObject({ to_revision: 3 });
    await kubectl(kubectlSide, 'rollout', 'undo', 'deployment/checkout');
    await expectSameAsKubectl();
    expect((await snapshot(sentinelSide)).revisions).toEqual([1, 4, 5]);
  });

  it('rolls back to a named revision like `kubectl rollout undo --to-revision=1`', async () => {
    await sentinel(rollbackDeployment, { to_revision: 1 });
    await kubectl(kubectlSide, 'rollout', 'undo', 'deployment/checkout', '--to-revision=1');
    await expectSameAsKubectl();
    expect((await snapshot(sentinelSide)).revisions).toEqual([4, 5, 6]);
  });

  it('skips a rollback to the current template, as kubectl does', async () => {
    const before = sentinelSide.mutationLog.length;
    const result = await sentinel(rollbackDeployment, { to_revision: 6 });
    expect(result.structured.status).toBe('no_op');
    expect(sentinelSide.mutationLog.length).toBe(before);
    expect(await kubectl(kubectlSide, 'rollout', 'undo', 'deployment/checkout', '--to-revision=6')).toContain(
      'skipped rollback (current template already matches revision 6)',
    );
    await expectSameAsKubectl();
  });

  it('pauses and resumes like `kubectl rollout pause|resume`', async () => {
    await sentinel(pauseRollout, {});
    await kubectl(kubectlSide, 'rollout', 'pause', 'deployment/checkout');
    await expectSameAsKubectl();
    expect((await sentinel(pauseRollout, {})).structured.status).toBe('no_op');
    await sentinel(resumeRollout, {});
    await kubectl(kubectlSide, 'rollout', 'resume', 'deployment/checkout');
    await expectSameAsKubectl();
  });

  it('scales like `kubectl scale`, through the scale subresource', async () => {
    const result = await sentinel(scaleDeployment, { replicas: 5 });
    expect(result.structured.changes).toEqual([expect.objectContaining({ from: 3, to: 5 })]);
    await kubectl(kubectlSide, 'scale', 'deployment/checkout', '--replicas=5');
    await expectSameAsKubectl();
    expect(lastRequest(sentinelSide)).toMatchObject({
      subresource: 'scale',
      contentType: 'application/merge-patch+json',
    });
  });

  it('restarts like `kubectl rollout restart`', async () => {
    // restartedAt is the wall-clock second of the restart, and the new ReplicaSet's name is the hash
    // of the template that carries it. kubectl restarts first; Sentinel's clock is then set to the
    // second kubectl wrote, so both templates, hashes and names must be identical.
    await kubectl(kubectlSide, 'rollout', 'restart', 'deployment/checkout');
    const theirs = JSON.parse(
      await kubectl(kubectlSide, 'get', 'deployment', 'checkout', '-o', 'json'),
    ) as Json;
    const restartedAt = theirs.spec.template.metadata.annotations[RESTARTED_AT] as string;
    expect(restartedAt).toMatch(RFC3339_UTC);
    vi.useFakeTimers({ toFake: ['Date'] });
    vi.setSystemTime(new Date(restartedAt));
    const result = await sentinel(restartService, {}).finally(() => vi.useRealTimers());
    expect(result.structured).toMatchObject({ status: 'applied', new_revision: 7 });
    await expectSameAsKubectl();
    const ours = await snapshot(sentinelSide);
    expect(ours.template.metadata.annotations[RESTARTED_AT]).toBe(restartedAt);
    expect(ours.revisions).toEqual([4, 5, 6, 7]);
    expect(await kubectl(sentinelSide, 'rollout', 'history', 'deployment/checkout')).toMatch(
      /^7\s+rollout restart \(sentinel, approval request apr-sim-1\)$/m,
    );
  });
});

describeWithTool(
  'kubectl',
  'remediation tools on a paused Deployment refuse as kubectl does',
  (kubectlPath) => {
    let dir: string;
    let sim: Simulator;
    beforeAll(async () => {
      dir = mkdtempSync(join(tmpdir(), 'sentinel-remediate-paused-'));
      sim = await startSimulator({
        scenario: 'paused-rollout',
        timeScale: 0,
        kubeconfigPath: join(dir, 'kubeconfig'),
      });
    });
    afterAll(async () => {
      await sim?.close();
      rmSync(dir, { recursive: true, force: true });
    });

    it('refuses the rollback and the restart, changing nothing, like kubectl rollout undo|restart', async () => {
      const connection = connectKube({ kubeconfig: sim.kubeconfigPath });
      if (!connection.configured) throw new Error(connection.reason);
      const before = sim.mutationLog.length;
      for (const tool of [rollbackDeployment, restartService] as Tool[]) {
        const error = await tool
          .handler(tool.input.parse({ namespace: 'shop', name: 'checkout' }), {
            kube: connection.reader,
            writer: connection.writer,
            cluster: connection.cluster,
            signal: new AbortController().signal,
            dryRun: false,
          })
          .then(
            () => undefined,
            (e: unknown) => e as { code?: string; message?: string },
          );
        expect(error?.code, tool.name).toBe('refused');
        expect(error?.message).toContain('resume_rollout');
      }
      const kubectl = (...args: string[]) =>
        run(kubectlPath, ['--kubeconfig', sim.kubeconfigPath!, '-n', 'shop', ...args], {
          env: { ...process.env, HOME: dir },
        }).then(
          () => '',
          (e: { stderr: string }) => e.stderr,
        );
      expect(await kubectl('rollout', 'undo', 'deployment/checkout')).toContain(
        'you cannot rollback a paused deployment',
      );
      expect(await kubectl('rollout', 'restart', 'deployment/checkout')).toContain(
        "can't restart paused deployment",
      );
      expect(sim.mutationLog.length).toBe(before);
    });
  },
);

describe('rollback_deployment on the simulator keeps fields the client library does not model', () => {
  let dir: string;
  let sim: Simulator;
  let connection: Extract<KubeConnection, { configured: true }>;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sentinel-remediate-unmodelled-'));
    sim = await startSimulator({
      scenario: 'bad-image-rollout',
      timeScale: 0,
      kubeconfigPath: join(dir, 'kubeconfig'),
    });
    const connected = connectKube({ kubeconfig: sim.kubeconfigPath });
    if (!connected.configured) throw new Error(connected.reason);
    connection = connected;
  });
  afterAll(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });
  /** The Deployment's pod spec as the simulator stores it, read without Sentinel's client. */
  const podSpec = async () =>
    ((await rawRequest(sim, 'GET', '/apis/apps/v1/namespaces/shop/deployments/checkout')).json as Json).spec
      .template.spec as Json;

  it('restores a revision whose pod template carries an unmodelled field, field included', async () => {
    const { reader, writer } = connection;
    const options = { fieldManager: 'test' };
    const future = { futurePodField: { mode: 'strict' } };
    // Revision 4: the template gains a pod-spec field @kubernetes/client-node does not declare.
    await writer.patchDeploymentStrategic(
      'shop',
      'checkout',
      { spec: { template: { spec: future } } },
      options,
    );
    // Revision 5: a new image, without the field.
    const current = await reader.getDeploymentAsSent('shop', 'checkout');
    const template = JSON.parse(JSON.stringify(current.spec!.template)) as Json;
    delete template.spec.futurePodField;
    template.spec.containers[0].image = 'registry.example.com/shop/checkout:2.5.0';
    await writer.patchDeploymentJson(
      'shop',
      'checkout',
      [{ op: 'replace', path: '/spec/template', value: template }],
      options,
    );
    expect(await podSpec()).not.toHaveProperty('futurePodField');

    const tool = rollbackDeployment as Tool;
    const result = (await tool.handler(tool.input.parse({ namespace: 'shop', name: 'checkout' }), {
      kube: reader,
      writer,
      cluster: connection.cluster,
      signal: new AbortController().signal,
      dryRun: false,
    })) as ToolOutput & { structured: RemediationOutput };
    expect(result.structured).toMatchObject({ status: 'applied', resolved_arguments: { to_revision: 4 } });
    const sent = sim.mutationLog.at(-1)!.patch as { path: string; value: Json }[];
    expect(sent.find((op) => op.path === '/spec/template')!.value.spec).toMatchObject(future);
    expect(await podSpec()).toMatchObject({
      ...future,
      containers: [expect.objectContaining({ image: expect.stringContaining(':2.4.1') })],
    });
  });
});
