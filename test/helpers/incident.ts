/**
 * An incident to investigate in a test: the Kubernetes API simulator running a scenario and a
 * Sentinel server (gate, approvals API) in-process against it on 127.0.0.1, with a temporary data
 * directory (agent/investigator/simulated-incident.ts), plus the human's approvals client.
 */
import { Writable } from 'node:stream';
import type { Simulator } from '../../deploy/sim/index.ts';
import {
  startSimulatedIncident,
  type SimulatedIncident,
} from '../../agent/investigator/simulated-incident.ts';
import { createApprovalsClient, type ApprovalsClient } from '../../server/approvals-client.ts';

export interface Incident extends SimulatedIncident {
  /** The approvals API with the human's token (`local`). */
  approvals: ApprovalsClient;
  /** Mutating requests that were not dry runs. */
  mutations(): Simulator['mutationLog'];
}

/** Starts an incident (a simulated time scale of 60 by default). */
export async function startIncident(
  scenario: string | Record<string, unknown>,
  options: { timeScale?: number } = {},
): Promise<Incident> {
  const incident = await startSimulatedIncident(scenario, options.timeScale ?? 60);
  return {
    ...incident,
    approvals: createApprovalsClient({ server: incident.server.url, token: incident.server.token }),
    mutations: () => incident.sim.mutationLog.filter((m) => !m.dryRun),
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
