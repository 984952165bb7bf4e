/**
 * The benches' cluster: the embedded simulator serving a generated namespace `bench` (50 Pods of
 * 25-replica Deployments, 3 h of rollout history) over HTTPS, with its kubeconfig in a fresh
 * temporary directory named after `prefix`. `close()` stops the simulator and removes the directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { generateScenario, startSimulator, type Simulator } from '../deploy/index.ts';

export interface BenchNamespace {
  sim: Simulator;
  /** The temporary directory (for other files of the bench, e.g. data directories). */
  dir: string;
  kubeconfigPath: string;
  close(): Promise<void>;
}

export async function startBenchNamespace(prefix: string): Promise<BenchNamespace> {
  const dir = mkdtempSync(join(tmpdir(), `sentinel-bench-${prefix}-`));
  const kubeconfigPath = join(dir, 'kubeconfig');
  const sim = await startSimulator({
    scenario: generateScenario({ pods: 50, replicas: 25, history: '3h' }),
    timeScale: 0,
    kubeconfigPath,
  });
  return {
    sim,
    dir,
    kubeconfigPath,
    async close() {
      await sim.close();
      rmSync(dir, { recursive: true, force: true });
    },
  };
}
