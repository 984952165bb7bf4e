/**
 * Writes and streams through raw HTTP: create (JSON and YAML), dry runs, deletion, content types,
 * pods/log errors for multi-container Pods, and watch semantics (replay from a resourceVersion, 410
 * when too old, DELETED when an object stops matching the selector).
 */
import { request } from 'node:https';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../../../deploy/sim/index.ts';
import type { Simulator } from '../../../../deploy/sim/index.ts';
import { rawRequest } from '../../../helpers/sim.ts';

let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({ scenario: 'healthy', timeScale: 0 });
});

afterAll(async () => {
  await sim.close();
});

const twoContainers = {
  apiVersion: 'v1',
  kind: 'Pod',
  metadata: { name: 'debug', labels: { app: 'debug' } },
  spec: {
    containers: [
      { name: 'a', image: 'busybox:1' },
      { name: 'b', image: 'busybox:1' },
    ],
  },
};

/** Reads a watch stream until `count` events arrived (or the server ends it). */
function watch(
  path: string,
  count: number,
  whileOpen: () => Promise<void> = async () => undefined,
): Promise<{ type: string; object: { metadata?: { name?: string }; code?: number } }[]> {
  return new Promise((resolve, reject) => {
    const events: { type: string; object: { metadata?: { name?: string }; code?: number } }[] = [];
    let buffer = '';
    const req = request(
      `${sim.url}${path}`,
      { ca: sim.caPem, headers: { Authorization: `Bearer ${sim.token}` } },
      (res) => {
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => {
          buffer += chunk;
          let newline: number;
          while ((newline = buffer.indexOf('\n')) >= 0) {
            events.push(JSON.parse(buffer.slice(0, newline)) as (typeof events)[number]);
            buffer = buffer.slice(newline + 1);
            if (events.length === count) {
              req.destroy();
              resolve(events);
            }
          }
        });
        res.on('end', () => resolve(events));
      },
    );
    req.on('error', (error) => (events.length >= count ? undefined : reject(error)));
    req.end();
    setTimeout(() => void whileOpen().catch(reject), 50);
  });
}

describe('simulator writes and streams', () => {
  it('creates from JSON and YAML, refuses protobuf with 415, and dry runs change nothing', async () => {
    const created = await rawRequest(sim, 'POST', '/api/v1/namespaces/shop/pods', { body: twoContainers });
    expect(created.status).toBe(201);
    expect(created.json).toMatchObject({
      kind: 'Pod',
      metadata: { name: 'debug', namespace: 'shop', uid: expect.any(String) },
    });
    expect(
      (await rawRequest(sim, 'POST', '/api/v1/namespaces/shop/pods', { body: twoContainers })).json,
    ).toMatchObject({ code: 409, reason: 'AlreadyExists' });

    const yaml = 'apiVersion: v1\nkind: Service\nmetadata:\n  name: debug\nspec:\n  ports: [{ port: 80 }]\n';
    const service = await rawRequest(sim, 'POST', '/api/v1/namespaces/shop/services', {
      body: yaml,
      headers: { 'Content-Type': 'application/yaml' },
    });
    expect(service.json).toMatchObject({
      spec: { type: 'ClusterIP', ports: [{ port: 80, protocol: 'TCP', targetPort: 80 }] },
    });
    const protobuf = await rawRequest(sim, 'POST', '/api/v1/namespaces/shop/services', {
      body: 'k8s\u0000',
      headers: { 'Content-Type': 'application/vnd.kubernetes.protobuf' },
    });
    expect(protobuf.json).toMatchObject({ code: 415, reason: 'UnsupportedMediaType' });

    const before = (await rawRequest(sim, 'GET', '/apis/apps/v1/namespaces/shop/deployments/checkout'))
      .json as { metadata: { resourceVersion: string } };
    const dry = await rawRequest(
      sim,
      'PATCH',
      '/apis/apps/v1/namespaces/shop/deployments/checkout?dryRun=All',
      {
        body: { spec: { replicas: 9 } },
        headers: { 'Content-Type': 'application/merge-patch+json' },
      },
    );
    expect(dry.json).toMatchObject({ spec: { replicas: 9 } });
    const after = (await rawRequest(sim, 'GET', '/apis/apps/v1/namespaces/shop/deployments/checkout'))
      .json as { spec: { replicas: number }; metadata: { resourceVersion: string } };
    expect(after.spec.replicas).toBe(3);
    expect(after.metadata.resourceVersion).toBe(before.metadata.resourceVersion);
    expect(sim.mutationLog.at(-1)).toMatchObject({ verb: 'patch', dryRun: true, code: 200 });
  });

  it('answers pods/log errors like the kubelet for multi-container Pods', async () => {
    sim.clock.advance(10_000);
    const ambiguous = await rawRequest(sim, 'GET', '/api/v1/namespaces/shop/pods/debug/log');
    expect(ambiguous.json).toMatchObject({
      code: 400,
      message: 'a container name must be specified for pod debug, choose one of: [a b]',
    });
    const unknown = await rawRequest(sim, 'GET', '/api/v1/namespaces/shop/pods/debug/log?container=c');
    expect(unknown.json).toMatchObject({ code: 400, message: 'container c is not valid for pod debug' });
    expect((await rawRequest(sim, 'GET', '/api/v1/namespaces/shop/pods/debug/log?container=a')).status).toBe(
      200,
    );
    expect(
      (await rawRequest(sim, 'GET', '/api/v1/namespaces/shop/pods/debug/log?container=a&tailLines=x')).status,
    ).toBe(400);
  });

  it('watches: replays from a resourceVersion, sends DELETED when an object stops matching, 410 when too old', async () => {
    const list = (await rawRequest(sim, 'GET', '/api/v1/namespaces/shop/pods?labelSelector=app%3Ddebug'))
      .json as { metadata: { resourceVersion: string } };
    const events = await watch(
      `/api/v1/namespaces/shop/pods?watch=true&labelSelector=app%3Ddebug&resourceVersion=${list.metadata.resourceVersion}`,
      1,
      async () => {
        await rawRequest(sim, 'PATCH', '/api/v1/namespaces/shop/pods/debug', {
          body: { metadata: { labels: { app: 'other' } } },
          headers: { 'Content-Type': 'application/strategic-merge-patch+json' },
        });
      },
    );
    expect(events[0]).toMatchObject({ type: 'DELETED', object: { metadata: { name: 'debug' } } });

    const replay = await watch(
      `/api/v1/namespaces/shop/pods?watch=1&resourceVersion=${list.metadata.resourceVersion}&fieldSelector=metadata.name%3Ddebug`,
      1,
    );
    expect(replay[0]).toMatchObject({ type: 'MODIFIED', object: { metadata: { name: 'debug' } } });

    const tooOld = await watch('/api/v1/namespaces/shop/pods?watch=true&resourceVersion=1', 1);
    expect(tooOld[0]).toMatchObject({ type: 'ERROR', object: { code: 410 } });
  });

  it('sends a BOOKMARK with the current resourceVersion before ending a watch that allows them', async () => {
    const list = (await rawRequest(sim, 'GET', '/api/v1/namespaces/shop/pods')).json as {
      metadata: { resourceVersion: string };
    };
    const from = `resourceVersion=${list.metadata.resourceVersion}&timeoutSeconds=1`;
    const marked = await watch(`/api/v1/namespaces/shop/pods?watch=1&allowWatchBookmarks=true&${from}`, 10);
    expect(marked.at(-1)).toMatchObject({
      type: 'BOOKMARK',
      object: {
        kind: 'Pod',
        apiVersion: 'v1',
        metadata: { resourceVersion: expect.stringMatching(/^\d+$/) },
      },
    });
    const plain = await watch(`/api/v1/namespaces/shop/pods?watch=1&${from}`, 10);
    expect(plain.map((event) => event.type)).not.toContain('BOOKMARK');
  });

  it('deletes a Pod gracefully (the object comes back with deletionTimestamp) and other objects with a Status', async () => {
    const deleted = await rawRequest(sim, 'DELETE', '/api/v1/namespaces/shop/pods/debug');
    expect(deleted.json).toMatchObject({ kind: 'Pod', metadata: { deletionTimestamp: expect.any(String) } });
    sim.clock.advance(5_000);
    expect((await rawRequest(sim, 'GET', '/api/v1/namespaces/shop/pods/debug')).status).toBe(404);
    const status = await rawRequest(sim, 'DELETE', '/apis/apps/v1/namespaces/shop/deployments/cart');
    expect(status.json).toMatchObject({
      kind: 'Status',
      status: 'Success',
      details: { name: 'cart', group: 'apps', kind: 'deployments' },
    });
  });
});
