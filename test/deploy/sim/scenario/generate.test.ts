/**
 * Generated scenarios with StatefulSets and DaemonSets validate and replay: every StatefulSet ends
 * at its second revision with 3 Pods and 3 claims, every DaemonSet with one Pod per node.
 */
import { describe, expect, it } from 'vitest';
import { SimulatedCluster } from '../../../../deploy/sim/cluster.ts';
import { generateScenario } from '../../../../deploy/sim/scenario/generate.ts';
import { parseScenario } from '../../../../deploy/sim/scenario/load.ts';
import type { DaemonSet, StatefulSet } from '../../../../deploy/sim/types.ts';

describe('generateScenario with workloads', () => {
  it('replays StatefulSets and DaemonSets to their second revision', () => {
    const scenario = parseScenario(generateScenario({ pods: 50, history: '3h', workloads: 2 }), 'generated');
    const cluster = new SimulatedCluster({ scenario, timeScale: 0 });
    const sets = cluster.store.list<StatefulSet>('statefulsets', 'bench');
    expect(sets.map((set) => set.metadata.name)).toEqual(['db-0', 'db-1']);
    for (const set of sets) {
      expect(set.status).toMatchObject({ replicas: 3, readyReplicas: 3, updatedReplicas: 3 });
      expect(set.status!.currentRevision).toBe(set.status!.updateRevision);
    }
    const daemons = cluster.store.list<DaemonSet>('daemonsets', 'bench');
    for (const ds of daemons)
      expect(ds.status).toMatchObject({
        desiredNumberScheduled: 3,
        updatedNumberScheduled: 3,
        numberAvailable: 3,
      });
    expect(cluster.store.list('persistentvolumeclaims', 'bench')).toHaveLength(6);
    expect(cluster.store.list('controllerrevisions', 'bench')).toHaveLength(8);
  });
});
