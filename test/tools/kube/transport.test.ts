/**
 * The request layer against the simulator's HTTPS server, counting what the server saw: one
 * keep-alive connection per cluster connection, reused by every request (issue 17: every request
 * used to open a new TLS connection, because client-node builds an undici Agent per request).
 */
import { HttpMethod, KubeConfig, RequestContext } from '@kubernetes/client-node';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../deploy/sim/index.ts';
import { connectKube } from '../../../tools/kube/connect.ts';
import { pinDispatcher } from '../../../tools/kube/transport.ts';
import { connectClient, startTestServer, tempDataDir } from '../../helpers/server.ts';

let sim: Simulator;
const data = tempDataDir();
const kubeconfig = join(data.dir, 'kubeconfig');
beforeAll(async () => {
  sim = await startSimulator({ scenario: 'bad-image-rollout', timeScale: 0, kubeconfigPath: kubeconfig });
});
afterAll(async () => {
  await sim?.close();
  data.cleanup();
});

/** What the simulator counts during `run`. */
async function counted(run: () => Promise<unknown>) {
  const before = { ...sim.traffic };
  await run();
  return {
    tlsHandshakes: sim.traffic.tlsHandshakes - before.tlsHandshakes,
    requests: sim.traffic.requests - before.requests,
  };
}

describe('one keep-alive connection pool per cluster connection', () => {
  it('200 sequential reads open one TLS connection', async () => {
    const connection = connectKube({ kubeconfig });
    if (!connection.configured) throw new Error(connection.reason);
    const seen = await counted(async () => {
      for (let i = 0; i < 200; i += 1) {
        if (i % 2 === 0) await connection.reader.getDeployment('shop', 'checkout');
        else await connection.reader.listPods('shop');
      }
    });
    expect(seen.requests).toBe(200);
    expect(seen.tlsHandshakes).toBeLessThanOrEqual(2);
  });

  it('1,000 reads, 10 at a time, open at most 10 TLS connections (issue 17: <= 10 handshakes per 1,000 requests)', async () => {
    const connection = connectKube({ kubeconfig });
    if (!connection.configured) throw new Error(connection.reason);
    const seen = await counted(() =>
      Promise.all(
        Array.from({ length: 10 }, async () => {
          for (let i = 0; i < 100; i += 1) await connection.reader.getDeployment('shop', 'checkout');
        }),
      ),
    );
    expect(seen.requests).toBe(1000);
    expect(seen.tlsHandshakes).toBeLessThanOrEqual(10);
  });

  it('200 tool calls through the MCP server, 10 at a time, open at most 10 connections', async () => {
    const server = await startTestServer({ kube: connectKube({ kubeconfig }) });
    const clients = await Promise.all(
      Array.from({ length: 10 }, () => connectClient(server.url, server.token)),
    );
    try {
      const seen = await counted(() =>
        Promise.all(
          clients.map(async (client) => {
            for (let i = 0; i < 20; i += 1) {
              const result = await client.callTool({
                name: 'get_deployment',
                arguments: { namespace: 'shop', name: 'checkout' },
              });
              expect(result.isError).toBeFalsy();
            }
          }),
        ),
      );
      expect(seen.requests).toBeGreaterThanOrEqual(200);
      expect(seen.tlsHandshakes).toBeLessThanOrEqual(10);
    } finally {
      await Promise.all(clients.map((client) => client.close()));
      await server.close();
    }
  });

  it("the library's own per-request authentication hands out the pinned dispatcher every time", async () => {
    const kc = new KubeConfig();
    kc.loadFromString(sim.kubeconfig);
    const dispatcher = pinDispatcher(kc)();
    const contexts = [0, 1, 2].map(() => new RequestContext(`${sim.url}/version`, HttpMethod.GET));
    for (const context of contexts) await kc.applySecurityAuthentication(context);
    for (const context of contexts) expect(context.getDispatcher()).toBe(dispatcher);
    expect(pinDispatcher(kc)()).toBe(dispatcher);
    await dispatcher.close();
  });
});
