/**
 * The cluster reachability probe behind /healthz and /readyz: bounded, single-flight, cached; and
 * the endpoints' status codes against a reachable, an unreachable (connection refused) and a silent
 * API server.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { createServer, type Server, type Socket } from 'node:net';
import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import type { VersionInfo } from '@kubernetes/client-node';
import { createServerApp } from '../../server/app.ts';
import { createIdentityStore } from '../../server/identity-store.ts';
import { connectCluster, createClusterProbe, lazyCluster, notConfigured } from '../../server/kube.ts';
import { listen, type ListeningServer } from '../../server/listen.ts';
import { SentinelError } from '../../tools/errors.ts';
import type { KubeConnection } from '../../tools/kube/types.ts';
import { fakeKube, rawRequest, tempDataDir, TEST_CLUSTER } from '../helpers/server.ts';

const version = { gitVersion: 'v1.31.2' } as VersionInfo;

describe('createClusterProbe', () => {
  it('reports a reachable cluster with its version, and reuses the answer while it is fresh', async () => {
    let calls = 0;
    const kube = fakeKube({ getVersion: async () => (calls++, version) });
    const probe = createClusterProbe(() => kube, { cacheMs: 60_000 });
    const health = await probe();
    expect(health).toEqual({
      configured: true,
      context: TEST_CLUSTER.context,
      server: TEST_CLUSTER.server,
      reachable: true,
      version: 'v1.31.2',
      checked_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT/),
    });
    await probe();
    await probe();
    expect(calls).toBe(1);
  });

  it('reports the Kubernetes layer error when the API server refuses, and asks again once stale', async () => {
    let calls = 0;
    const kube = fakeKube({
      getVersion: async () => {
        calls++;
        throw new SentinelError('unavailable', 'Cannot reach the Kubernetes API server: ECONNREFUSED.');
      },
    });
    const probe = createClusterProbe(() => kube, { cacheMs: 0 });
    expect(await probe()).toMatchObject({
      reachable: false,
      error: 'Cannot reach the Kubernetes API server: ECONNREFUSED.',
    });
    await probe();
    expect(calls).toBe(2);
  });

  it('gives up after the timeout and keeps one request in flight to a silent API server', async () => {
    let calls = 0;
    const kube = fakeKube({ getVersion: () => (calls++, new Promise<VersionInfo>(() => {})) });
    const probe = createClusterProbe(() => kube, { timeoutMs: 30, cacheMs: 0 });
    expect(await probe()).toMatchObject({
      reachable: false,
      error: `The API server at ${TEST_CLUSTER.server} did not answer GET /version within 30 ms.`,
    });
    await probe();
    expect(calls).toBe(1);
  });

  it('passes "not configured" through with its reason', async () => {
    const probe = createClusterProbe(notConfigured);
    expect(await probe()).toEqual({
      configured: false,
      reason: expect.stringContaining('No Kubernetes cluster is configured'),
    });
  });
});

describe('lazyCluster', () => {
  it('connects on the first call only; callers meanwhile share it, and later ones get the connection itself', async () => {
    const kube = fakeKube({ getVersion: async () => version });
    let connects = 0;
    let finish!: () => void;
    const told: KubeConnection[] = [];
    const access = lazyCluster(
      () => {
        connects += 1;
        return new Promise<KubeConnection>((resolve) => (finish = () => resolve(kube)));
      },
      (connection) => told.push(connection),
    );
    expect(connects).toBe(0); // nothing happens until someone needs the cluster
    const first = access();
    const second = access();
    expect(first).toBeInstanceOf(Promise);
    expect(second).toBe(first);
    expect(connects).toBe(1);
    finish();
    expect(await first).toBe(kube);
    expect(access()).toBe(kube); // no longer a promise: the probe can tell "connected" apart
    expect(connects).toBe(1);
    expect(told).toEqual([kube]);
  });

  it('the probe answers "connecting" at once while the connection is made, then the cluster', async () => {
    let finish!: () => void;
    const kube = fakeKube({ getVersion: async () => version });
    const access = lazyCluster(
      () => new Promise<KubeConnection>((resolve) => (finish = () => resolve(kube))),
    );
    const probe = createClusterProbe(access, { cacheMs: 0 });
    expect(await probe()).toEqual({
      configured: null,
      connecting: true,
      reason: expect.stringContaining('Connecting: the Kubernetes client is loading'),
    });
    finish();
    await access();
    expect(await probe()).toMatchObject({ configured: true, reachable: true, version: 'v1.31.2' });
  });
  it('a liveness probe (connect: false) does not start the connection, and reports it once made', async () => {
    let connects = 0;
    const kube = fakeKube({ getVersion: async () => version });
    const access = lazyCluster(async () => {
      connects += 1;
      return kube;
    });
    const probe = createClusterProbe(access, { cacheMs: 0 });
    expect(await probe({ connect: false })).toEqual({
      configured: null,
      connecting: false,
      reason: expect.stringContaining('Not connected yet'),
    });
    expect(connects).toBe(0);
    expect(await probe()).toMatchObject({ configured: null, connecting: true }); // readiness starts it
    await access();
    expect(connects).toBe(1);
    expect(await probe({ connect: false })).toMatchObject({ configured: true, reachable: true });
  });
});

describe('/healthz and /readyz', () => {
  let server: ListeningServer | undefined;
  let silent: Server | undefined;
  const accepted: Socket[] = [];
  const data = tempDataDir();
  afterEach(async () => {
    await server?.close();
    server = undefined;
    for (const socket of accepted.splice(0)) socket.destroy();
    silent?.close();
    silent = undefined;
  });

  const start = async (kube: KubeConnection, timeoutMs = 300) => {
    const { app } = createServerApp({
      identities: createIdentityStore({ tokensFile: join(data.dir, 'tokens.yaml') }),
      allowedHosts: ['127.0.0.1'],
      kube,
      logger: pino({ level: 'silent' }),
      clusterProbe: { timeoutMs, cacheMs: 0 },
    });
    server = await listen(app, { host: '127.0.0.1', port: 0 });
    return {
      healthz: () => rawRequest(`${server!.url}/healthz`),
      readyz: () => rawRequest(`${server!.url}/readyz`),
    };
  };

  /** A kubeconfig whose API server is `127.0.0.1:<port>`. */
  const kubeconfigFor = (port: number) => {
    const file = join(data.dir, `kubeconfig-${port}`);
    writeFileSync(
      file,
      `apiVersion: v1
kind: Config
clusters: [{name: c, cluster: {server: "http://127.0.0.1:${port}", insecure-skip-tls-verify: true}}]
users: [{name: u, user: {token: not-a-real-token-0123456789}}]
contexts: [{name: gone, context: {cluster: c, user: u}}]
current-context: gone
`,
    );
    return file;
  };

  it('healthz answers 200 and readyz 200 when the cluster answers', async () => {
    const { healthz, readyz } = await start(fakeKube({ getVersion: async () => version }));
    const health = await healthz();
    expect(health.status).toBe(200);
    expect(health.json).toMatchObject({ status: 'ok', cluster: { reachable: true, version: 'v1.31.2' } });
    expect((await readyz()).status).toBe(200);
  });

  it('says unreachable, with the error, for an API server that refuses connections (readyz 503)', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const port = (closed.address() as { port: number }).port;
    await new Promise((resolve) => closed.close(resolve));
    const kube = await connectCluster({ kubeconfig: kubeconfigFor(port) });
    const { healthz, readyz } = await start(kube, 10_000);
    const health = await healthz();
    expect(health.status).toBe(200);
    expect(health.json).toMatchObject({
      status: 'degraded',
      cluster: {
        configured: true,
        context: 'gone',
        server: `http://127.0.0.1:${port}`,
        reachable: false,
        error: expect.stringMatching(
          /^Cannot reach the Kubernetes API server of cluster 'gone'.*ECONNREFUSED/,
        ),
      },
    });
    const ready = await readyz();
    expect(ready.status).toBe(503);
    expect(ready.json).toMatchObject({ cluster: { reachable: false } });
  });

  it('answers within the probe timeout when the API server accepts but never replies', async () => {
    silent = createServer((socket) => accepted.push(socket)); // accepts connections, never answers
    await new Promise<void>((resolve) => silent!.listen(0, '127.0.0.1', resolve));
    const port = (silent.address() as { port: number }).port;
    const { healthz } = await start(await connectCluster({ kubeconfig: kubeconfigFor(port) }));
    const health = await healthz();
    expect(health.json).toMatchObject({
      cluster: {
        reachable: false,
        error: expect.stringContaining('did not answer GET /version within 300 ms'),
      },
    });
  });

  it('readyz answers 503 when no cluster is configured', async () => {
    const { healthz, readyz } = await start(notConfigured());
    expect((await healthz()).json).toMatchObject({ status: 'degraded', cluster: { configured: false } });
    expect((await readyz()).status).toBe(503);
  });
});
