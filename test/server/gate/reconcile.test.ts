import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SentinelError } from '../../../tools/errors.ts';
import { openSqliteStore } from '../../../server/gate/store/sqlite.ts';
import type { ApprovalStore } from '../../../server/gate/store/types.ts';
import {
  APPROVAL_ANNOTATION,
  executionTarget,
  reconcileExecutions,
  recordedEffect,
} from '../../../server/gate/reconcile.ts';
import type { StoredExecution } from '../../../server/gate/store/types.ts';
import { newRequest } from './store/contract.ts';
import { FakeCluster } from './fixtures/fake-cluster.ts';
import { fixtureDeployment } from './fixtures/tools.ts';
import { tempDataDir } from '../../helpers/server.ts';

const T0 = new Date('2025-01-31T02:10:00.000Z');
let store: ApprovalStore;
let cluster: FakeCluster;

/** How executions recorded the pre-change generation: in the effect's target before effects stopped binding it, beside the effect since. */
const OLD_SHAPE = (name: string) => ({
  target: { namespace: 'shop', name, generation: 1 },
  replicas: { from: 3, to: 5 },
});
const NEW_SHAPE = (name: string) => ({
  target: { kind: 'Deployment', namespace: 'shop', name, uid: `uid-${name}` },
  replicas_from: 3,
  replicas_to: 5,
  generation_before: 1,
});

/** An approved once request for shop/checkout whose execution started (generation 1 observed). */
async function executing(
  name = 'checkout',
  effect: Record<string, unknown> = OLD_SHAPE(name),
): Promise<{ requestId: string; executionId: string }> {
  const { request } = await store.createOrReusePending(newRequest({}, { requestedKey: name }), T0);
  await store.decide(
    request.id,
    { decision: 'allow', by: 'alice', at: T0.toISOString(), reason: null, admin_fallback: false },
    { validity: 'once', expires_at: new Date(T0.getTime() + 60_000).toISOString() },
    T0,
  );
  const started = await store.beginExecution(
    {
      id: `exe_${name}`,
      requester: 'agent',
      credential: '',
      cluster: 'kind',
      clusterServer: 'https://127.0.0.1:6443',
      tool: 'scale_deployment',
      callKey: name,
      arguments: { namespace: 'shop', name, replicas: 5 },
      authorization: 'once',
      requestId: request.id,
      effect,
    },
    T0,
  );
  if (!started.ok) throw new Error('did not start');
  return { requestId: request.id, executionId: started.execution.id };
}

let data: ReturnType<typeof tempDataDir>;

/**
 * The server stops and a new one opens the store (a process's own running executions are never
 * reconciled: only those of a process that is gone).
 */
async function restart(): Promise<ApprovalStore> {
  await store.close();
  store = openSqliteStore({ dataDir: data.dir });
  return store;
}

beforeEach(() => {
  data = tempDataDir();
  store = openSqliteStore({ dataDir: data.dir });
  cluster = new FakeCluster();
  cluster.add(fixtureDeployment('shop', 'checkout'));
  cluster.add(fixtureDeployment('shop', 'web'));
});
afterEach(async () => {
  await store.close();
  data.cleanup();
});

describe('reconciliation of executions interrupted by a crash', () => {
  it('marks an execution whose change reached the cluster as succeeded, and one that did not as interrupted', async () => {
    const applied = await executing('checkout');
    const missed = await executing('web');
    // The PATCH of the first reached the cluster before the crash; the second never left.
    await cluster.writer.patchDeploymentStrategic(
      'shop',
      'checkout',
      { metadata: { annotations: { [APPROVAL_ANNOTATION]: applied.requestId } }, spec: { replicas: 5 } },
      { fieldManager: 'sentinel' },
    );
    const report = await reconcileExecutions(await restart(), cluster.reader);
    expect(report).toEqual({
      applied: [applied.executionId],
      notApplied: [missed.executionId],
      unresolved: [],
    });
    expect(await store.get(applied.requestId)).toMatchObject({
      status: 'executed',
      executions: [{ status: 'succeeded', outcome: expect.stringContaining('reached the cluster') }],
    });
    expect(await store.get(missed.requestId)).toMatchObject({
      status: 'failed',
      executions: [{ status: 'interrupted', outcome: expect.stringContaining('did not reach the cluster') }],
    });
    expect(await store.listExecuting()).toEqual([]);
    expect(cluster.mutations).toHaveLength(1); // reconciliation itself never writes
  });

  it("never settles another live process's running execution; a closed store's are settled once", async () => {
    const { executionId } = await executing('checkout');
    const other = openSqliteStore({ dataDir: data.dir }); // e.g. a second worker on the same file
    try {
      expect(await reconcileExecutions(other, cluster.reader)).toEqual({
        applied: [],
        notApplied: [],
        unresolved: [],
      });
      expect((await other.listExecuting()).map((e) => e.id)).toEqual([executionId]);
      await store.close(); // its process is gone: the execution is an orphan, settled by the survivor
      store = openSqliteStore({ dataDir: data.dir });
      expect((await reconcileExecutions(other, cluster.reader)).notApplied).toEqual([executionId]);
      expect(await reconcileExecutions(store, cluster.reader)).toEqual({
        applied: [],
        notApplied: [],
        unresolved: [],
      });
    } finally {
      await other.close();
    }
  });

  it('does not count an old annotation from an earlier execution without a newer generation', async () => {
    const { requestId, executionId } = await executing('checkout');
    const deployment = cluster.deployment('shop', 'checkout');
    deployment.metadata!.annotations![APPROVAL_ANNOTATION] = requestId; // same id, generation still 1
    expect((await reconcileExecutions(await restart(), cluster.reader)).notApplied).toEqual([executionId]);
  });

  it('settles an execution recorded with generation_before (effects without target.generation) from the cluster', async () => {
    const applied = await executing('checkout', NEW_SHAPE('checkout'));
    const stampedOnly = await executing('web', NEW_SHAPE('web'));
    await cluster.writer.patchDeploymentStrategic(
      'shop',
      'checkout',
      { metadata: { annotations: { [APPROVAL_ANNOTATION]: applied.requestId } }, spec: { replicas: 5 } },
      { fieldManager: 'sentinel' },
    );
    // A scale stamps the annotation first (no generation move), then crashed before the scale itself.
    cluster.deployment('shop', 'web').metadata!.annotations![APPROVAL_ANNOTATION] = stampedOnly.requestId;
    const settled: unknown[] = [];
    const report = await reconcileExecutions(await restart(), cluster.reader, {
      onSettled: ({ evidence }) => void settled.push(evidence),
    });
    expect(report).toEqual({
      applied: [applied.executionId],
      notApplied: [stampedOnly.executionId],
      unresolved: [],
    });
    expect(settled).toContainEqual(
      expect.objectContaining({ name: 'checkout', generationBefore: 1, generationObserved: 2 }),
    );
    expect(settled).toContainEqual(expect.objectContaining({ name: 'web', generationBefore: 1 }));
  });

  it('asks for a lazy reader only when there is an execution to settle (a clean start does not connect)', async () => {
    let asked = 0;
    const lazyReader = async () => (asked++, cluster.reader);
    expect(await reconcileExecutions(store, lazyReader)).toEqual({
      applied: [],
      notApplied: [],
      unresolved: [],
    });
    expect(asked).toBe(0);
    const { executionId } = await executing('checkout');
    expect((await reconcileExecutions(await restart(), lazyReader)).notApplied).toEqual([executionId]);
    expect(asked).toBe(1);
  });

  it('leaves executions alone while the cluster cannot be read', async () => {
    const { executionId } = await executing('checkout');
    expect(await reconcileExecutions(await restart(), undefined)).toEqual({
      applied: [],
      notApplied: [],
      unresolved: [executionId],
    });
    const down = {
      ...cluster.reader,
      getDeployment: async () => {
        throw new SentinelError('unavailable', 'cluster unreachable');
      },
    };
    expect((await reconcileExecutions(await restart(), down)).unresolved).toEqual([executionId]);
    expect((await store.listExecuting()).map((e) => e.id)).toEqual([executionId]);
  });

  it('marks a deleted target and an execution without an approval id as interrupted', async () => {
    const { executionId } = await executing('checkout');
    cluster.deployments.delete('shop/checkout');
    await store.beginExecution(
      {
        id: 'exe_policy',
        requester: 'agent',
        credential: '',
        cluster: 'kind',
        clusterServer: 'https://127.0.0.1:6443',
        tool: 'pause_rollout',
        callKey: 'p',
        arguments: {},
        authorization: 'policy',
      },
      T0,
    );
    const report = await reconcileExecutions(await restart(), cluster.reader);
    expect(report.notApplied.sort()).toEqual([executionId, 'exe_policy'].sort());
    expect((await store.getExecution('exe_policy'))?.outcome).toContain('cannot tell from the cluster');
  });
});

describe('recordedEffect (what an approved execution records for reconciliation)', () => {
  const approved = NEW_SHAPE('checkout');
  const { generation_before: _, ...effect } = approved;

  it("adds the generation the call's own dry run read for the same target, beside the effect", () => {
    expect(recordedEffect(effect, { effect, generation: 9 })).toEqual({ ...effect, generation_before: 9 });
    const stored = { effect: recordedEffect(effect, { effect, generation: 9 }), arguments: {} };
    expect(executionTarget(stored as StoredExecution)).toEqual({
      namespace: 'shop',
      name: 'checkout',
      generation: 9,
    });
  });

  it('records the effect as it is without a read of the same target', () => {
    const other = { ...effect, target: { ...effect.target, uid: 'uid-recreated' } };
    expect(recordedEffect(effect, { effect: other, generation: 9 })).toEqual(effect);
    expect(recordedEffect(effect, { effect, generation: undefined })).toEqual(effect);
    expect(recordedEffect(effect, undefined)).toEqual(effect);
    expect(recordedEffect(undefined, { effect, generation: 9 })).toBeUndefined();
  });
});
