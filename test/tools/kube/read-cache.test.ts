/**
 * The watch-backed read cache against the simulator: reads answered from memory once synced,
 * Sentinel's own writes read back at once (read-your-writes), changes made behind Sentinel's back
 * arriving with their watch event, reads going to the API server while the cache is not synced, and
 * a silently dead (half-open) watch ended after `watchIdleMs` and resumed.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../../deploy/sim/index.ts';
import { connectKube } from '../../../tools/kube/connect.ts';
import type { KubeConnection } from '../../../tools/kube/index.ts';
import { atLeast, createReadCache } from '../../../tools/kube/read-cache.ts';
import type { ListWatch } from '../../../tools/kube/reflector.ts';
import { rawRequest } from '../../helpers/sim.ts';

type Connected = Extract<KubeConnection, { configured: true }>;

/** Polls `check` every 20 ms until it holds (generous: the suite runs on busy machines). */
async function until(check: () => boolean | Promise<boolean>, what: string, waitMs = 20_000): Promise<void> {
  const deadline = Date.now() + waitMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

describe('read cache (--read-cache watch) on the simulator', () => {
  let dir: string;
  let sim: Simulator;
  const connections: Connected[] = [];

  const connect = (options: { watchTimeoutSeconds?: number; watchIdleMs?: number } = {}): Connected => {
    const connected = connectKube({
      kubeconfig: sim.kubeconfigPath!,
      readCache: { mode: 'watch', ...options },
    });
    if (!connected.configured) throw new Error(connected.reason);
    connections.push(connected);
    return connected;
  };

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sentinel-read-cache-'));
    sim = await startSimulator({
      scenario: 'bad-image-rollout',
      timeScale: 0,
      kubeconfigPath: join(dir, 'kubeconfig'),
    });
  });

  afterEach(async () => {
    await Promise.all(connections.splice(0).map((connection) => connection.close?.()));
  });

  afterAll(async () => {
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('is off unless asked for: no cached reader', async () => {
    const connected = connectKube({ kubeconfig: sim.kubeconfigPath! });
    if (!connected.configured) throw new Error(connected.reason);
    expect(connected.cachedReader).toBeUndefined();
    await connected.close?.();
  });

  it('answers from memory once synced, the same objects the API server sends', async () => {
    const { cachedReader, reader, readCache } = connect();
    // The first read goes to the API server and starts the reflector.
    const first = await cachedReader!.listPods('shop', { labelSelector: 'app=checkout' });
    await readCache!.whenSynced('pods', 'shop');
    const before = sim.traffic.requests;
    const cached = await cachedReader!.listPods('shop', { labelSelector: 'app=checkout' });
    expect(sim.traffic.requests).toBe(before); // nothing sent
    expect(cached.map((pod) => pod.metadata?.name)).toEqual(first.map((pod) => pod.metadata?.name));
    expect(cached).toEqual(await reader.listPods('shop', { labelSelector: 'app=checkout' }));
    expect(readCache!.stats()).toMatchObject({ namespaces: ['shop'] });
    expect(readCache!.stats().hits).toBeGreaterThan(0);
    // Shared objects are frozen: a reader cannot change what the next one reads.
    expect(Object.isFrozen(cached[0]!.metadata)).toBe(true);
  });

  it('reads back its own scale at once (read-your-writes), before and whatever the watch delivers', async () => {
    const { cachedReader, writer, readCache } = connect();
    await cachedReader!.getDeployment('shop', 'checkout');
    await readCache!.whenSynced('deployments', 'shop');
    const was = (await cachedReader!.getDeployment('shop', 'checkout')).spec?.replicas ?? 0;
    await writer.patchDeploymentScale(
      'shop',
      'checkout',
      { spec: { replicas: was + 2 } },
      { fieldManager: 'sentinel' },
    );
    const after = await cachedReader!.getDeployment('shop', 'checkout');
    expect(after.spec?.replicas).toBe(was + 2);
    const listed = await cachedReader!.listDeployments('shop');
    expect(listed.find((d) => d.metadata?.name === 'checkout')?.spec?.replicas).toBe(was + 2);
  });

  it('shows a change made behind its back once the watch event arrives', async () => {
    const { cachedReader, readCache } = connect();
    await cachedReader!.getDeployment('shop', 'checkout');
    await readCache!.whenSynced('deployments', 'shop');
    const patched = await rawRequest(sim, 'PATCH', '/apis/apps/v1/namespaces/shop/deployments/checkout', {
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: JSON.stringify({ metadata: { labels: { 'behind-its-back': 'yes' } } }),
    });
    expect(patched.status).toBe(200);
    await until(
      async () =>
        (await cachedReader!.getDeployment('shop', 'checkout')).metadata?.labels?.['behind-its-back'] ===
        'yes',
      'the watch event of the direct write',
    );
  });

  it('ends a half-open watch after watchIdleMs and resumes it, so a change made while it was dead reaches the cache', async () => {
    const { cachedReader, readCache } = connect({ watchIdleMs: 300 });
    await cachedReader!.getDeployment('shop', 'checkout');
    await readCache!.whenSynced('deployments', 'shop');
    // The partition: the open watch goes silent, never ended by the server.
    expect(sim.silenceWatches()).toBeGreaterThanOrEqual(1);
    const patched = await rawRequest(sim, 'PATCH', '/apis/apps/v1/namespaces/shop/deployments/checkout', {
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: JSON.stringify({ metadata: { labels: { 'while-partitioned': 'yes' } } }),
    });
    expect(patched.status).toBe(200);
    // The cache's own copy (fresh() answers only when synced), not a read that went to the API.
    const cachedLabel = () =>
      (
        readCache!.fresh('deployments', 'shop')?.get('checkout')?.metadata as
          { labels?: Record<string, string> } | undefined
      )?.labels?.['while-partitioned'];
    await until(() => cachedLabel() === 'yes', 'the resumed watch to deliver the change');
    const stats = readCache!.stats();
    expect(stats.idleRestarts).toBeGreaterThanOrEqual(1);
    expect(stats).toMatchObject({ relists: 0, failures: 0 });
  });
});

describe('createReadCache read-your-writes', () => {
  /** A cache whose one reflector lists version 10 and then delivers only what `push` sends. */
  function cacheWithWatch() {
    let push: (event: { type: string; object: Record<string, unknown> }) => void = () => {};
    const cache = createReadCache(() => ({
      list: async () => ({
        items: [{ metadata: { name: 'web', resourceVersion: '10' }, spec: { replicas: 1 } }],
        resourceVersion: '10',
      }),
      watch: async () =>
        (async function* () {
          while (true)
            yield await new Promise<{ type: string; object: Record<string, unknown> }>((r) => (push = r));
        })(),
    }));
    return { cache, push: (event: { type: string; object: Record<string, unknown> }) => push(event) };
  }

  it('bypasses the cache for a written resource until the watch has seen the write', async () => {
    const { cache, push } = cacheWithWatch();
    try {
      await cache.whenSynced('deployments', 'shop');
      expect(cache.fresh('deployments', 'shop')?.get('web')).toMatchObject({ spec: { replicas: 1 } });
      cache.noteWrite('deployments', 'shop', 'web', '12');
      expect(cache.fresh('deployments', 'shop')).toBeUndefined(); // older than the write: live
      push({ type: 'MODIFIED', object: { metadata: { name: 'other', resourceVersion: '11' } } });
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(cache.fresh('deployments', 'shop')).toBeUndefined(); // whether 11 arrived or not: 11 < 12
      push({
        type: 'MODIFIED',
        object: { metadata: { name: 'web', resourceVersion: '12' }, spec: { replicas: 3 } },
      });
      await until(() => cache.fresh('deployments', 'shop') !== undefined, 'the write seen');
      expect(cache.fresh('deployments', 'shop')?.get('web')).toMatchObject({ spec: { replicas: 3 } });
    } finally {
      cache.close();
    }
  });

  it('counts its reflectors, synced ones, and totals that a dropped namespace does not take back', async () => {
    const listWatch: ListWatch = {
      list: async () => ({ items: [], resourceVersion: '1' }),
      // Open until the reflector stops.
      watch: async (_version, signal) =>
        (async function* () {
          await new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
          yield* [];
        })(),
    };
    const cache = createReadCache(() => listWatch, { maxNamespaces: 1 });
    try {
      await cache.whenSynced('pods', 'a');
      expect(cache.stats()).toMatchObject({ namespaces: ['a'], reflectors: 1, synced: 1, watches: 1 });
      await cache.whenSynced('pods', 'b'); // drops namespace a (at most one held)
      expect(cache.stats()).toMatchObject({ namespaces: ['b'], reflectors: 1, synced: 1, watches: 2 });
      expect(cache.stats()).toMatchObject({ relists: 0, failures: 0, idleRestarts: 0 });
    } finally {
      cache.close();
    }
  });

  it('compares resourceVersions as integers only when both are', () => {
    expect(atLeast('100', '99')).toBe(true);
    expect(atLeast('99', '100')).toBe(false);
    expect(atLeast('abc', '1')).toBe(false);
  });
});
