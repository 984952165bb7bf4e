/**
 * The read cache of a simulated incident's server (agent/investigator/simulated-incident.ts), as
 * `sentinel eval --read-cache` and `sentinel demo --read-cache` choose it: with `watch` its read tools
 * watch the cluster, with `off` they never do; and closing the server ends every watch it opened.
 */
import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  startSimulatedIncident,
  type SimulatedIncident,
} from '../../../agent/investigator/simulated-incident.ts';
import { connectClient } from '../../helpers/server.ts';

describe('simulated incident read cache', { timeout: 120_000 }, () => {
  let incident: SimulatedIncident | undefined;
  afterEach(async () => {
    vi.unstubAllEnvs();
    await incident?.close();
    incident = undefined;
  });

  /** Calls `list_pods` on the incident's namespace through the server (MCP over HTTP). */
  async function listPods(running: SimulatedIncident): Promise<void> {
    const client = await connectClient(running.server.url, running.server.token);
    try {
      const result = await client.callTool({
        name: 'list_pods',
        arguments: { namespace: running.sim.scenario.namespaces[0] },
      });
      expect(result.isError ?? false).toBe(false);
    } finally {
      await client.close();
    }
  }

  it("readCache 'watch': read tools watch the cluster; closing the server ends every watch", async () => {
    incident = await startSimulatedIncident('bad-image-rollout', 60, { readCache: 'watch' });
    const { sim } = incident;
    await listPods(incident);
    await vi.waitFor(() => expect(sim.traffic.openWatches).toBeGreaterThan(0), { timeout: 60_000 });

    await incident.server.close();
    // The simulator sees each stream end when its connection closes: no watch outlives the server.
    await vi.waitFor(() => expect(sim.traffic.openWatches).toBe(0), { timeout: 60_000 });
  });

  it("by default (serve's default, watch): read tools watch the cluster", async () => {
    incident = await startSimulatedIncident('bad-image-rollout', 60);
    const { sim } = incident;
    await listPods(incident);
    await vi.waitFor(() => expect(sim.traffic.openWatches).toBeGreaterThan(0), { timeout: 60_000 });
  });

  it("readCache 'watch': /metrics counts the cache's hits and synced reflectors; the log says it synced", async () => {
    vi.stubEnv('SENTINEL_LOG_LEVEL', 'info'); // the suite's default is silent
    incident = await startSimulatedIncident('bad-image-rollout', 60, { readCache: 'watch' });
    const { server } = incident;
    const metric = async (line: RegExp) => {
      const response = await fetch(`${server.url}/metrics`, {
        headers: { authorization: `Bearer ${server.token}` },
      });
      expect(response.status).toBe(200);
      const match = line.exec(await response.text());
      return match ? Number(match[1]) : undefined;
    };
    expect(await metric(/^sentinel_read_cache_hits_total (\S+)$/m)).toBe(0);
    // The first reads start the reflectors and go to the API server; once synced, reads are hits.
    const running = incident;
    await vi.waitFor(
      async () => {
        await listPods(running);
        expect(await metric(/^sentinel_read_cache_hits_total (\S+)$/m)).toBeGreaterThan(0);
      },
      { timeout: 60_000, interval: 200 },
    );
    expect(await metric(/^sentinel_read_cache_misses_total (\S+)$/m)).toBeGreaterThan(0);
    expect(await metric(/^sentinel_read_cache_reflectors\{state="synced"\} (\S+)$/m)).toBeGreaterThan(0);
    expect(await metric(/^sentinel_read_cache_watches_total (\S+)$/m)).toBeGreaterThan(0);
    const log = readFileSync(server.logFile, 'utf8');
    expect(log).toMatch(/"resource":"\w+","namespace":"[^"]+".*"msg":"read cache synced/);
  });

  it("readCache 'off': read tools never watch", async () => {
    incident = await startSimulatedIncident('bad-image-rollout', 60, { readCache: 'off' });
    await listPods(incident);
    await listPods(incident);
    expect(incident.sim.traffic.watches).toBe(0);
  });
});
