/**
 * `sentinel serve --workers 2`: the primary only parses its flags, forks and supervises, so it loads
 * none of the server (server/index.ts, Express, the MCP SDK, the Kubernetes client); its workers do.
 * What each process loaded is read from a per-process module-load log
 * (test/helpers/record-loads.mjs), not inferred from timing or memory.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSimulator, type Simulator } from '../../deploy/sim/index.ts';
import { packagesOf } from '../helpers/loads.ts';
import { rawRequest, tempDataDir } from '../helpers/server.ts';

const BIN = fileURLToPath(new URL('../../bin/sentinel.js', import.meta.url));
const RECORD_LOADS = fileURLToPath(new URL('../helpers/record-loads.mjs', import.meta.url));
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
  const moduleLog = join(data.dir, 'modules.log');
  let sim: Simulator;
  let child: ChildProcess;
  let stderr = '';
  let url: string;

  /** The modules each process of the tree loaded, by pid. */
  const loadsByPid = () =>
    new Map(
      readdirSync(data.dir)
        .filter((name) => name.startsWith('modules.log.'))
        .map((name) => [
          Number(name.slice('modules.log.'.length)),
          readFileSync(join(data.dir, name), 'utf8').split('\n').filter(Boolean),
        ]),
    );

  beforeAll(async () => {
    const kubeconfig = join(data.dir, 'sim.kubeconfig');
    sim = await startSimulator({ scenario: 'healthy', timeScale: 0, kubeconfigPath: kubeconfig });
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      SENTINEL_TOKEN: TOKEN,
      SENTINEL_TEST_LOADS_FILE: moduleLog,
      SENTINEL_TEST_LOADS_PER_PROCESS: '1',
    };
    delete env.SENTINEL_DATA_DIR;
    delete env.SENTINEL_STORE_URL;
    child = spawn(
      process.execPath,
      [
        '--import',
        RECORD_LOADS,
        BIN,
        'serve',
        '--port',
        '0',
        '--workers',
        '2',
        '--kubeconfig',
        kubeconfig,
        '--data-dir',
        data.dir,
      ],
      { env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (/All \d+ workers listening/.test(stderr)) resolve();
      });
      child.once('exit', (code) => reject(new Error(`serve --workers exited with ${code}: ${stderr}`)));
    });
    url = /listening on (http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(stderr)![1]!;
  });
  afterAll(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    await sim?.close();
    data.cleanup();
  });

  it('serves through its workers', async () => {
    const health = await rawRequest(`${url}/healthz`);
    expect(health.status).toBe(200);
  });

  it('the primary loaded the CLI and the options, not server/index.ts or any serving package', () => {
    const loads = loadsByPid();
    const primary = loads.get(child.pid!);
    expect(primary).toBeDefined();
    expect(primary!.some((module) => module.endsWith('/server/serve-options.ts'))).toBe(true);
    expect(primary!.some((module) => module.endsWith('/server/workers.ts'))).toBe(true);
    expect(primary!.filter((module) => module.endsWith('/server/index.ts'))).toEqual([]);
    expect(packagesOf(primary!).filter((name) => SERVER_PACKAGES.includes(name))).toEqual([]);
  });

  it('each worker loaded the server (the log sees what the primary would have loaded)', () => {
    const workers = [...loadsByPid()].filter(([pid]) => pid !== child.pid).map(([, modules]) => modules);
    expect(workers).toHaveLength(2);
    for (const modules of workers) {
      expect(modules.some((module) => module.endsWith('/server/index.ts'))).toBe(true);
      expect(packagesOf(modules)).toEqual(expect.arrayContaining(['express', '@modelcontextprotocol/sdk']));
    }
  });
});
