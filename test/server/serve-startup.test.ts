/**
 * `sentinel serve` start-up as a user runs it (a real bin/sentinel.js process against the embedded
 * simulator): it listens and answers /healthz before the Kubernetes layer (`@kubernetes/client-node`)
 * is loaded, and the first tool call loads it, connects and works. What the process had loaded is
 * read from a module-load log (test/helpers/record-loads.mjs), not inferred from timing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { join } from 'node:path';
import { startSimulator, type Simulator } from '../../deploy/sim/index.ts';
import { serveRecordingLoads, type ServeRecordingLoads } from '../helpers/loads.ts';
import { mcpHeaders, rawRequest, tempDataDir } from '../helpers/server.ts';

const TOKEN = 'serve-startup-test-token-0123456789';
const KUBE_CLIENT = '/node_modules/@kubernetes/client-node/';

describe('sentinel serve connects to the cluster on first need', () => {
  const data = tempDataDir();
  let sim: Simulator;
  /** The server process; its `loadedAtReady` is what it had loaded at its banner (it listens first). */
  let serve: ServeRecordingLoads;
  let url: string;

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
    serve = await serveRecordingLoads({
      args: ['--port', '0', '--kubeconfig', kubeconfig, '--data-dir', data.dir],
      env: { SENTINEL_TOKEN: TOKEN, SENTINEL_DATA_DIR: undefined },
      logFile: join(data.dir, 'modules.log'),
      ready: /\nCluster: .*\n/,
    });
    url = serve.url;
  });
  afterAll(async () => {
    await serve?.stop();
    await sim?.close();
    data.cleanup();
  });

  it('listens, and says where the cluster comes from, before loading the Kubernetes client', () => {
    expect(serve.loadedAtReady.some((module) => module.includes('/server/app.ts'))).toBe(true);
    expect(serve.loadedAtReady.filter((module) => module.includes(KUBE_CLIENT))).toEqual([]);
    expect(serve.stderr()).toContain(
      `Cluster: from kubeconfig '${join(data.dir, 'sim.kubeconfig')}'; connected on first use (a tool call or GET /readyz).`,
    );
  });

  it('answers /healthz without connecting (liveness), and /readyz 503 until the cluster answers', async () => {
    const health = await rawRequest(`${url}/healthz`);
    expect(health.status).toBe(200);
    // Liveness neither waits for the cluster nor starts the connection: the idle server polled by
    // /healthz has still not loaded the Kubernetes client (issue 17: idle memory).
    expect(health.json).toMatchObject({ cluster: { configured: null, connecting: false } });
    expect(serve.loaded().filter((module) => module.includes(KUBE_CLIENT))).toEqual([]);
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
    expect(serve.loaded().some((module) => module.includes(KUBE_CLIENT))).toBe(true);
    // Told on the terminal once the connection is made, like the banner line it replaces.
    expect(serve.stderr()).toContain(`Cluster: context 'sentinel-sim' at ${sim.url} (from kubeconfig '`);
  });
});
