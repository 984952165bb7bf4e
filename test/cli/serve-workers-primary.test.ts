/**
 * `sentinel serve --workers 2`: the primary only parses its flags, forks and supervises, so it loads
 * none of the server (server/index.ts, Express, the MCP SDK, the Kubernetes client); its workers do.
 * What each process loaded is read from a per-process module-load log
 * (test/helpers/record-loads.mjs), not inferred from timing or memory.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { startSimulator, type Simulator } from '../../deploy/sim/index.ts';
import { packagesOf, serveRecordingLoads, type ServeRecordingLoads } from '../helpers/loads.ts';
import { rawRequest, tempDataDir } from '../helpers/server.ts';

const TOKEN = 'serve-workers-primary-token-0123456789';
/** Packages only a serving worker needs. */
const SERVER_PACKAGES = [
  'express',
  '@modelcontextprotocol/sdk',
  '@kubernetes/client-node',
  'pino',
  'prom-client',
];

describe('sentinel serve --workers 2: the primary loads none of the server', () => {
  const data = tempDataDir();
  let sim: Simulator;
  let serve: ServeRecordingLoads;
  let url: string;

  beforeAll(async () => {
    const kubeconfig = join(data.dir, 'sim.kubeconfig');
    sim = await startSimulator({ scenario: 'healthy', timeScale: 0, kubeconfigPath: kubeconfig });
    serve = await serveRecordingLoads({
      args: ['--port', '0', '--workers', '2', '--kubeconfig', kubeconfig, '--data-dir', data.dir],
      env: { SENTINEL_TOKEN: TOKEN, SENTINEL_DATA_DIR: undefined, SENTINEL_STORE_URL: undefined },
      logFile: join(data.dir, 'modules.log'),
      perProcess: true,
      ready: /All \d+ workers listening/,
    });
    url = serve.url;
  });
  afterAll(async () => {
    await serve?.stop();
    await sim?.close();
    data.cleanup();
  });

  it('serves through its workers', async () => {
    const health = await rawRequest(`${url}/healthz`);
    expect(health.status).toBe(200);
  });

  it('the primary loaded the CLI and the options, not server/index.ts or any serving package', () => {
    const loads = serve.loadsByPid();
    const primary = loads.get(serve.child.pid!);
    expect(primary).toBeDefined();
    expect(primary!.some((module) => module.endsWith('/server/serve-options.ts'))).toBe(true);
    expect(primary!.some((module) => module.endsWith('/server/workers.ts'))).toBe(true);
    expect(primary!.filter((module) => module.endsWith('/server/index.ts'))).toEqual([]);
    expect(packagesOf(primary!).filter((name) => SERVER_PACKAGES.includes(name))).toEqual([]);
  });

  it('each worker loaded the server (the log sees what the primary would have loaded)', () => {
    const workers = [...serve.loadsByPid()]
      .filter(([pid]) => pid !== serve.child.pid)
      .map(([, modules]) => modules);
    expect(workers).toHaveLength(2);
    for (const modules of workers) {
      expect(modules.some((module) => module.endsWith('/server/index.ts'))).toBe(true);
      expect(packagesOf(modules)).toEqual(expect.arrayContaining(['express', '@modelcontextprotocol/sdk']));
    }
  });
});
