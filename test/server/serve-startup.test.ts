/**
 * `sentinel serve` start-up as a user runs it (a real bin/sentinel.js process against the embedded
 * simulator): it binds its port before loading the server (Express, the MCP SDK, the tools), answers
 * /healthz from the first request on, listens with the whole server before the Kubernetes layer
 * (`@kubernetes/client-node`) is loaded, and the first tool call loads it, connects and works. What
 * the process had loaded is read from a module-load log (test/helpers/record-loads.mjs, which also
 * logs when the port is bound and each request starts), not inferred from timing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startSimulator, type Simulator } from '../../deploy/sim/index.ts';
import { packagesOf } from '../helpers/loads.ts';
import { mcpHeaders, rawRequest, tempDataDir, type RawResponse } from '../helpers/server.ts';

const BIN = fileURLToPath(new URL('../../bin/sentinel.js', import.meta.url));
const RECORD_LOADS = fileURLToPath(new URL('../helpers/record-loads.mjs', import.meta.url));
const TOKEN = 'serve-startup-test-token-0123456789';
const KUBE_CLIENT = '/node_modules/@kubernetes/client-node/';
/** What binding the port may load: the launcher, the command line, its options and serve-listen.ts. */
const LOADED_TO_BIND = ['commander', 'fastest-levenshtein', 'safe-stable-stringify', 'zod'];

/** A port nothing listens on now (the server is told it, so the test can poll before the banner). */
const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const probe = createServer().listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as { port: number };
      probe.close(() => resolve(port));
    });
    probe.on('error', reject);
  });

describe('sentinel serve connects to the cluster on first need', () => {
  const data = tempDataDir();
  const moduleLog = join(data.dir, 'modules.log');
  let sim: Simulator;
  let child: ChildProcess;
  let stderr = '';
  let url: string;
  /** What the server process had loaded when it printed its banner (it listens before printing). */
  let loadedAtListen: string[];
  /** The first answer to `GET /healthz`, polled from the moment the process was spawned. */
  let firstHealth: RawResponse | undefined;

  const loaded = () => readFileSync(moduleLog, 'utf8').split('\n').filter(Boolean);
  const callTool = async (name: string, args: Record<string, unknown> = {}) => {
    const reply = await rawRequest(`${url}/mcp`, {
      method: 'POST',
      headers: mcpHeaders(TOKEN),
      body: JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name, arguments: args },
      }),
    });
    expect(reply.status).toBe(200);
    return (reply.json as { result: { isError?: boolean; content: { text: string }[] } }).result;
  };

  beforeAll(async () => {
    const kubeconfig = join(data.dir, 'sim.kubeconfig');
    sim = await startSimulator({ scenario: 'healthy', timeScale: 0, kubeconfigPath: kubeconfig });
    writeFileSync(moduleLog, '');
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      SENTINEL_TOKEN: TOKEN,
      SENTINEL_TEST_LOADS_FILE: moduleLog,
      SENTINEL_TEST_LOADS_EVENTS: '1',
    };
    const port = await freePort();
    delete env.SENTINEL_DATA_DIR;
    child = spawn(
      process.execPath,
      [
        '--import',
        RECORD_LOADS,
        BIN,
        'serve',
        '--port',
        String(port),
        '--kubeconfig',
        kubeconfig,
        '--data-dir',
        data.dir,
      ],
      { env, stdio: ['ignore', 'ignore', 'pipe'] },
    );
    // Polled until it answers, from spawn on (the first answers come before the banner).
    const health = (async () => {
      while (firstHealth === undefined && child.exitCode === null) {
        firstHealth = await rawRequest(`http://127.0.0.1:${port}/healthz`).catch(() => undefined);
        if (firstHealth === undefined) await new Promise((resolve) => setTimeout(resolve, 10));
      }
    })();
    await new Promise<void>((resolve, reject) => {
      child.stderr!.on('data', (chunk: Buffer) => {
        stderr += chunk.toString();
        if (/\nCluster: .*\n/.test(stderr) && loadedAtListen === undefined) {
          loadedAtListen = loaded();
          resolve();
        }
      });
      child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
    });
    url = /listening on (http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(stderr)![1]!;
    await health;
  });
  afterAll(async () => {
    if (child.exitCode === null) {
      child.kill('SIGTERM');
      await once(child, 'exit');
    }
    await sim?.close();
    data.cleanup();
  });

  it('binds its port before loading the server: the command line, its options and the start-up listener', () => {
    const log = loaded();
    const bound = log.findIndex((line) => line.startsWith('listen '));
    expect(bound).toBeGreaterThan(-1);
    const beforeBind = log.slice(0, bound);
    expect(beforeBind.some((module) => module.endsWith('/server/serve-listen.ts'))).toBe(true);
    for (const module of ['/server/index.ts', '/server/app.ts', '/tools/index.ts'])
      expect(beforeBind.filter((line) => line.endsWith(module))).toEqual([]);
    expect(packagesOf(beforeBind)).toEqual(LOADED_TO_BIND);
    // Bound once: the server was attached to that listener, not bound again.
    expect(log.filter((line) => line.startsWith('listen '))).toHaveLength(1);
  });

  it('answers the first /healthz it is asked, whether still starting or started', () => {
    expect(firstHealth?.status).toBe(200);
    expect(['starting', 'degraded', 'ok']).toContain((firstHealth!.json as { status: string }).status);
  });

  it('listens, and says where the cluster comes from, before loading the Kubernetes client', () => {
    expect(loadedAtListen.some((module) => module.includes('/server/app.ts'))).toBe(true);
    expect(loadedAtListen.filter((module) => module.includes(KUBE_CLIENT))).toEqual([]);
    expect(stderr).toContain(
      `Cluster: from kubeconfig '${join(data.dir, 'sim.kubeconfig')}'; connected on first use (a tool call or GET /readyz).`,
    );
  });

  it('answers /healthz without connecting (liveness), and /readyz 503 until the cluster answers', async () => {
    const health = await rawRequest(`${url}/healthz`);
    expect(health.status).toBe(200);
    // Liveness neither waits for the cluster nor starts the connection: the idle server polled by
    // /healthz has still not loaded the Kubernetes client (issue 17: idle memory).
    expect(health.json).toMatchObject({ cluster: { configured: null, connecting: false } });
    expect(loaded().filter((module) => module.includes(KUBE_CLIENT))).toEqual([]);
    // Readiness starts it and does not wait for it either.
    let ready = await rawRequest(`${url}/readyz`);
    while (ready.status !== 200) {
      expect(ready.status).toBe(503);
      await new Promise((resolve) => setTimeout(resolve, 50));
      ready = await rawRequest(`${url}/readyz`);
    }
    expect(ready.json).toMatchObject({
      status: 'ok',
      cluster: { configured: true, context: 'sentinel-sim', server: sim.url, reachable: true },
    });
  });

  it('a tool call works once connected, through the Kubernetes client now loaded', async () => {
    const result = await callTool('list_deployments', { namespace: 'shop' });
    expect(result.isError).toBeUndefined();
    expect(result.content[0]!.text).toContain('checkout');
    expect(loaded().some((module) => module.includes(KUBE_CLIENT))).toBe(true);
    // Told on the terminal once the connection is made, like the banner line it replaces.
    expect(stderr).toContain(`Cluster: context 'sentinel-sim' at ${sim.url} (from kubeconfig '`);
  });
});
