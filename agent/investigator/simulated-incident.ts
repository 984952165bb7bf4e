/**
 * A simulated incident to investigate: the embedded Kubernetes API simulator running a scenario and a
 * Sentinel server in-process against it, sharing a temporary data directory. Used by `sentinel demo`,
 * `sentinel eval` and the end-to-end tests.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { startSimulator, type Simulator } from '../../deploy/index.ts';
import type { ReadCacheMode } from '../../tools/index.ts';
import { startLocalServer, type LocalServer } from './local-server.ts';

export interface SimulatedIncident {
  sim: Simulator;
  server: LocalServer;
  /** Temporary data directory (tokens, approvals, investigations); removed by `close`. */
  dataDir: string;
  /** The simulator's kubeconfig, inside `dataDir` (for kubectl). */
  kubeconfig: string;
  /** Stops the server and the simulator and removes `dataDir`. */
  close(): Promise<void>;
}

/** How the incident's server runs. */
export interface SimulatedIncidentOptions {
  /** The server's `--read-cache`; default `sentinel serve`'s. */
  readCache?: ReadCacheMode | undefined;
}

/**
 * Starts the simulator with `scenario` (a bundled name, a YAML file or a scenario object) at
 * `timeScale` simulated seconds per real second, then the server. Nothing is left running or on
 * disk when it throws. Throws `SentinelError('invalid_input')` for a bad scenario.
 */
export async function startSimulatedIncident(
  scenario: string | Record<string, unknown>,
  timeScale: number,
  options: SimulatedIncidentOptions = {},
): Promise<SimulatedIncident> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sentinel-incident-'));
  const kubeconfig = join(dataDir, 'kubeconfig');
  let sim: Simulator | undefined;
  try {
    sim = await startSimulator({ scenario, timeScale, kubeconfigPath: kubeconfig });
    const server = await startLocalServer({ dataDir, kubeconfig, readCache: options.readCache });
    const started = sim;
    return {
      sim,
      server,
      dataDir,
      kubeconfig,
      async close() {
        try {
          await server.close();
          await started.close();
        } finally {
          rmSync(dataDir, { recursive: true, force: true });
        }
      },
    };
  } catch (error) {
    await sim?.close();
    rmSync(dataDir, { recursive: true, force: true });
    throw error;
  }
}
