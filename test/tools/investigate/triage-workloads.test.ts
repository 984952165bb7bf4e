/**
 * triage_namespace ranks StatefulSets and DaemonSets (issue 15) on the simulator's workload scenario:
 * a StatefulSet stuck with db-2 at its bad revision and a DaemonSet with one node's Pod crash-looping,
 * each with the revision `kubectl rollout undo` would return to.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../deploy/sim/index.ts';
import { triageNamespace, type TriageOutput } from '../../../tools/investigate/triage-namespace.ts';
import { connectKube } from '../../../tools/kube/connect.ts';
import { workloadScenario } from '../../helpers/workload-scenario.ts';

describe('triage_namespace with StatefulSets and DaemonSets', () => {
  let sim: Simulator;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sentinel-triage-wl-'));
    sim = await startSimulator({
      scenario: workloadScenario(),
      timeScale: 0,
      kubeconfigPath: join(dir, 'kubeconfig'),
    });
  });
  afterAll(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('ranks both with their stuck rollout and the revision a rollback returns to', async () => {
    const connection = connectKube({ kubeconfig: sim.kubeconfigPath });
    if (!connection.configured) throw new Error(connection.reason);
    const output = await triageNamespace.handler(triageNamespace.input.parse({ namespace: 'shop' }), {
      kube: connection.reader,
      cluster: connection.cluster,
      signal: new AbortController().signal,
      dryRun: false,
    });
    const result = output.structured as TriageOutput;
    expect(result.list_operations).toBe(8);
    const db = result.workloads.find((w) => w.kind === 'StatefulSet' && w.name === 'db')!;
    expect(db).toBeDefined();
    expect(db.findings.map((f) => f.kind)).toEqual(expect.arrayContaining(['rollout_stuck', 'unavailable']));
    const stuck = db.findings.find((f) => f.kind === 'rollout_stuck')!;
    expect(stuck.evidence).toContain('rolling update from revision 1 to 2 not finished');
    expect(stuck.evidence).toContain('db-2 (revision 2) is not ready, and OrderedReady waits on it');
    expect(db.rollout).toMatchObject({
      current_revision: 2,
      failing_revisions: [2],
      previous_revision: { revision: 1, images: ['registry.example.com/postgres:16.1'] },
    });
    const agent = result.workloads.find((w) => w.kind === 'DaemonSet' && w.name === 'agent')!;
    expect(agent.rollout).toMatchObject({ current_revision: 2, previous_revision: { revision: 1 } });
    expect(agent.findings.map((f) => f.kind)).toContain('unavailable');
  });
});
