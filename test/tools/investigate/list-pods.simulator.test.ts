/**
 * list_pods against the simulator, counting what it fetched there (its audit log): the ReplicaSets
 * the listed Pods own, not every ReplicaSet of the namespace (issue 17); the ControllerRevisions the
 * StatefulSet and DaemonSet Pods run, not every revision (issue 15).
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type AuditEvent, type Simulator } from '../../../deploy/sim/index.ts';
import { generateScenario } from '../../../deploy/sim/scenario/generate.ts';
import { listPods, type ListPodsOutput } from '../../../tools/investigate/list-pods.ts';
import { connectKube } from '../../../tools/kube/connect.ts';
import { tempDataDir } from '../../helpers/server.ts';
import { rawRequest } from '../../helpers/sim.ts';
import { callTool } from '../../helpers/tools.ts';
import { workloadScenario } from '../../helpers/workload-scenario.ts';

let sim: Simulator;
const data = tempDataDir();
const auditLogPath = join(data.dir, 'audit.log');
const kubeconfig = join(data.dir, 'kubeconfig');
beforeAll(async () => {
  // 10 Deployments of 5 Pods, each with two revisions: 20 ReplicaSets in namespace bench.
  sim = await startSimulator({
    scenario: generateScenario({ pods: 50, replicas: 5, history: '3h' }),
    timeScale: 0,
    kubeconfigPath: kubeconfig,
    auditLogPath,
  });
});
afterAll(async () => {
  await sim?.close();
  data.cleanup();
});

const audited = (): AuditEvent[] =>
  readFileSync(auditLogPath, 'utf8')
    .split('\n')
    .filter(Boolean)
    .map((line) => JSON.parse(line) as AuditEvent);

it('list_pods of one workload fetches its owning ReplicaSet only', async () => {
  const connection = connectKube({ kubeconfig });
  if (!connection.configured) throw new Error(connection.reason);
  const all = await rawRequest(sim, 'GET', '/apis/apps/v1/namespaces/bench/replicasets');
  expect((all.json as { items: unknown[] }).items).toHaveLength(20);
  const seen = audited().length;
  const output = await callTool(
    listPods,
    { namespace: 'bench', label_selector: 'app=svc-3' },
    {
      kube: connection.reader,
      cluster: connection.cluster,
      signal: new AbortController().signal,
      dryRun: false,
    },
  );
  const rows = (output.structured as ListPodsOutput).pods;
  expect(rows).toHaveLength(5);
  expect(rows.every((row) => row.revision === 2)).toBe(true);
  const during = audited().slice(seen);
  const replicaSetReads = during.filter((event) => event.objectRef?.resource === 'replicasets');
  expect(replicaSetReads).toHaveLength(1);
  const { requestURI, responseBytes } = replicaSetReads[0]!;
  expect(new URL(requestURI, sim.url).searchParams.get('labelSelector')).toMatch(
    /^pod-template-hash in \(\w+\)$/,
  );
  // One ReplicaSet's worth of the 20: well under a fifth of the full list.
  expect(responseBytes).toBeLessThan(Buffer.byteLength(all.text) / 5);
});

describe('list_pods of StatefulSet and DaemonSet Pods on the simulator', () => {
  let workloads: Simulator;
  const dir = tempDataDir();
  const log = join(dir.dir, 'audit.log');
  beforeAll(async () => {
    workloads = await startSimulator({
      scenario: workloadScenario(),
      timeScale: 0,
      kubeconfigPath: join(dir.dir, 'kubeconfig'),
      auditLogPath: log,
    });
  });
  afterAll(async () => {
    await workloads?.close();
    dir.cleanup();
  });

  it('names the revision each Pod runs, as the controllers numbered them, with two selective lists', async () => {
    const connection = connectKube({ kubeconfig: workloads.kubeconfigPath });
    if (!connection.configured) throw new Error(connection.reason);
    const output = await callTool(
      listPods,
      { namespace: 'shop' },
      {
        kube: connection.reader,
        cluster: connection.cluster,
        signal: new AbortController().signal,
        dryRun: false,
      },
    );
    const rows = (output.structured as ListPodsOutput).pods;
    // db is stuck with db-2 at revision 2 (OrderedReady), agent with one node's Pod at revision 2.
    const db = rows.filter((row) => row.name.startsWith('db-')).map((row) => [row.name, row.revision]);
    expect(db).toEqual([
      ['db-0', 1],
      ['db-1', 1],
      ['db-2', 2],
    ]);
    const agent = rows.filter((row) => row.name.startsWith('agent-')).map((row) => row.revision);
    expect(agent.sort()).toEqual([1, 1, 2]);
    const reads = readFileSync(log, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as AuditEvent)
      .filter((event) => event.objectRef?.resource === 'controllerrevisions')
      .map((event) => new URL(event.requestURI, workloads.url).searchParams.get('labelSelector'));
    expect(reads.sort()).toEqual([
      expect.stringMatching(/^controller-revision-hash in \(\w+,\w+\)$/),
      expect.stringMatching(/^controller\.kubernetes\.io\/hash in \(\w+,\w+\)$/),
    ]);
  });
});
