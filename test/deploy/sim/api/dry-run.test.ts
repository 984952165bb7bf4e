/**
 * Dry runs never change anything: a fast-check property over every write verb (create, update,
 * patch, delete, deletecollection) on the served kinds, with `dryRun` in the query string, in the
 * DeleteOptions body or both, and any propagation policy and grace period — after each request
 * every stored object (and its resourceVersion) and the store's revision are as before.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseDeleteOptions } from '../../../../deploy/sim/api/dry-run.ts';
import { startSimulator } from '../../../../deploy/sim/index.ts';
import type { Simulator } from '../../../../deploy/sim/index.ts';
import { rawRequest } from '../../../helpers/sim.ts';

const STORAGES = ['namespaces', 'nodes', 'pods', 'services', 'events', 'deployments', 'replicasets'];

let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({ scenario: 'healthy', timeScale: 0 });
});

afterAll(async () => {
  await sim?.close();
});

function snapshot(): unknown {
  const store = sim.cluster.store;
  return {
    revision: store.revision,
    objects: STORAGES.map((storage) => store.list(storage)),
  };
}

interface Target {
  collection: string;
  names: string[];
  body: (name: string) => Record<string, unknown>;
}

function targets(): Target[] {
  const pods = sim.cluster.store.list('pods', 'shop').map((pod) => pod.metadata.name);
  const container = { name: 'app', image: 'busybox:1.36' };
  return [
    {
      collection: '/apis/apps/v1/namespaces/shop/deployments',
      names: ['checkout', 'cart', 'absent'],
      body: (name) => ({
        apiVersion: 'apps/v1',
        kind: 'Deployment',
        metadata: { name, labels: { app: name } },
        spec: {
          replicas: 2,
          selector: { matchLabels: { app: name } },
          template: { metadata: { labels: { app: name } }, spec: { containers: [container] } },
        },
      }),
    },
    {
      collection: '/api/v1/namespaces/shop/pods',
      names: [...pods.slice(0, 2), 'absent'],
      body: (name) => ({
        apiVersion: 'v1',
        kind: 'Pod',
        metadata: { name },
        spec: { containers: [container] },
      }),
    },
    {
      collection: '/api/v1/namespaces/shop/services',
      names: ['checkout', 'absent'],
      body: (name) => ({
        apiVersion: 'v1',
        kind: 'Service',
        metadata: { name },
        spec: { selector: { app: name }, ports: [{ port: 80 }] },
      }),
    },
    {
      collection: '/api/v1/namespaces',
      names: ['shop', 'absent'],
      body: (name) => ({ apiVersion: 'v1', kind: 'Namespace', metadata: { name } }),
    },
  ];
}

describe('dry run', () => {
  it('no write with dryRun (query string or DeleteOptions body) changes any stored object or resourceVersion', async () => {
    const all = targets();
    const request = fc.record({
      target: fc.integer({ min: 0, max: all.length - 1 }),
      nameIndex: fc.nat(),
      verb: fc.constantFrom('create', 'update', 'patch', 'delete', 'deletecollection'),
      where: fc.constantFrom('query', 'body', 'both'),
      policy: fc.constantFrom(undefined, 'Background', 'Foreground', 'Orphan'),
      grace: fc.constantFrom(undefined, 0, 1, 30),
      replicas: fc.integer({ min: 0, max: 5 }),
      label: fc.stringMatching(/^[a-z]{1,8}$/),
    });
    await fc.assert(
      fc.asyncProperty(request, async (input) => {
        const target = all[input.target]!;
        const name = target.names[input.nameIndex % target.names.length]!;
        const before = snapshot();
        const inQuery =
          input.verb === 'create' ||
          input.verb === 'update' ||
          input.verb === 'patch' ||
          input.where !== 'body';
        const query = inQuery ? '?dryRun=All' : '';
        const deleteOptions = {
          kind: 'DeleteOptions',
          apiVersion: 'v1',
          ...(input.where !== 'query' && { dryRun: ['All'] }),
          ...(input.policy && { propagationPolicy: input.policy }),
          ...(input.grace !== undefined && { gracePeriodSeconds: input.grace }),
        };
        let response;
        switch (input.verb) {
          case 'create':
            response = await rawRequest(sim, 'POST', `${target.collection}${query}`, {
              body: target.body(name),
            });
            break;
          case 'update': {
            const current = await rawRequest(sim, 'GET', `${target.collection}/${name}`);
            const object = (current.status === 200 ? current.json : target.body(name)) as {
              metadata: { labels?: Record<string, string> };
              spec?: { replicas?: number };
            };
            object.metadata.labels = { ...object.metadata.labels, touched: input.label };
            if (object.spec && 'replicas' in object.spec) object.spec.replicas = input.replicas;
            response = await rawRequest(sim, 'PUT', `${target.collection}/${name}${query}`, { body: object });
            break;
          }
          case 'patch':
            response = await rawRequest(sim, 'PATCH', `${target.collection}/${name}${query}`, {
              headers: { 'Content-Type': 'application/merge-patch+json' },
              body: { metadata: { labels: { touched: input.label } }, spec: { replicas: input.replicas } },
            });
            break;
          case 'delete':
            response = await rawRequest(sim, 'DELETE', `${target.collection}/${name}${query}`, {
              body: deleteOptions,
            });
            break;
          default:
            response = await rawRequest(sim, 'DELETE', `${target.collection}${query}`, {
              body: deleteOptions,
            });
        }
        expect(response.status).toBeLessThan(500);
        expect(snapshot()).toEqual(before);
      }),
      { numRuns: 120 },
    );
  });

  it('a DeleteOptions body dry run deletes nothing and says what would be deleted', async () => {
    const pods = sim.cluster.store.list('pods', 'shop').length;
    const response = await rawRequest(sim, 'DELETE', '/apis/apps/v1/namespaces/shop/deployments/checkout', {
      body: { kind: 'DeleteOptions', apiVersion: 'v1', dryRun: ['All'], propagationPolicy: 'Background' },
    });
    expect(response.status).toBe(200);
    expect(response.json).toMatchObject({ kind: 'Status', status: 'Success', details: { name: 'checkout' } });
    expect(sim.cluster.store.get('deployments', 'shop', 'checkout')).toBeDefined();
    expect(sim.cluster.store.list('pods', 'shop')).toHaveLength(pods);
    expect(sim.mutationLog.at(-1)).toMatchObject({ verb: 'delete', dryRun: true, code: 200 });
  });
});

describe('parseDeleteOptions', () => {
  const none = new URLSearchParams();

  it('reads the body over the query string and maps orphanDependents', () => {
    expect(
      parseDeleteOptions(new URLSearchParams('propagationPolicy=Orphan&gracePeriodSeconds=5'), undefined),
    ).toEqual({
      dryRun: false,
      propagationPolicy: 'Orphan',
      gracePeriodSeconds: 5,
      preconditions: undefined,
    });
    expect(parseDeleteOptions(none, { orphanDependents: true }).propagationPolicy).toBe('Orphan');
    expect(
      parseDeleteOptions(none, { propagationPolicy: 'Foreground', gracePeriodSeconds: 0 }),
    ).toMatchObject({
      propagationPolicy: 'Foreground',
      gracePeriodSeconds: 0,
    });
    expect(parseDeleteOptions(new URLSearchParams('dryRun=All'), {}).dryRun).toBe(true);
  });

  it('refuses unknown values with the apiserver wording', () => {
    expect(() => parseDeleteOptions(none, { propagationPolicy: 'Sideways' })).toThrow(
      'propagationPolicy: Unsupported value: "Sideways": supported values: "Foreground", "Background", "Orphan"',
    );
    expect(() => parseDeleteOptions(none, { dryRun: ['Some'] })).toThrow('dryRun: Unsupported value: "Some"');
    expect(() => parseDeleteOptions(none, { orphanDependents: true, propagationPolicy: 'Orphan' })).toThrow(
      'orphanDependents and deletionPropagation cannot be both set',
    );
    expect(() => parseDeleteOptions(none, 'text')).toThrow('DeleteOptions');
  });
});
