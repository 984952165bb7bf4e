/**
 * An incident to investigate in a test: the Kubernetes API simulator running a scenario, a Sentinel
 * server (gate, approvals API) in-process against it on 127.0.0.1, and a temporary data directory.
 * `close` stops both and removes the directory.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import { startSimulator, type Simulator } from '../../deploy/sim/index.ts';
import { createApprovalsClient, type ApprovalsClient } from '../../server/approvals-client.ts';
import { startLocalServer, type LocalServer } from '../../agent/investigator/local-server.ts';

export interface Incident {
  sim: Simulator;
  server: LocalServer;
  dataDir: string;
  kubeconfig: string;
  /** The approvals API with the human's token (`local`). */
  approvals: ApprovalsClient;
  /** Mutating requests that were not dry runs. */
  mutations(): Simulator['mutationLog'];
  close(): Promise<void>;
}

/** Starts an incident. `scenario`: a bundled name, a file, or a scenario object. */
export async function startIncident(
  scenario: string | Record<string, unknown>,
  options: { timeScale?: number } = {},
): Promise<Incident> {
  const dataDir = mkdtempSync(join(tmpdir(), 'sentinel-incident-'));
  const kubeconfig = join(dataDir, 'kubeconfig');
  const sim = await startSimulator({
    scenario,
    timeScale: options.timeScale ?? 60,
    kubeconfigPath: kubeconfig,
  });
  const server = await startLocalServer({ dataDir, kubeconfig });
  return {
    sim,
    server,
    dataDir,
    kubeconfig,
    approvals: createApprovalsClient({ server: server.url, token: server.token }),
    mutations: () => sim.mutationLog.filter((m) => !m.dryRun),
    async close() {
      await server.close();
      await sim.close();
      rmSync(dataDir, { recursive: true, force: true });
    },
  };
}

/** A writable that keeps what is written (progress output). */
export function capture(): Writable & { text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk, _encoding, done) {
      text += String(chunk);
      done();
    },
  });
  return Object.assign(stream, { text: () => text });
}
