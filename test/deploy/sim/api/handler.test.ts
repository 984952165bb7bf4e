/**
 * The simulator's HTTP surface as raw requests: authentication, Status errors with the real codes
 * and reasons, discovery, Table responses, selectors, and the mutation log.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../../../deploy/sim/index.ts';
import type { Simulator } from '../../../../deploy/sim/index.ts';
import { rawRequest } from '../../../helpers/sim.ts';

const TABLE =
  'application/json;as=Table;v=v1;g=meta.k8s.io,application/json;as=Table;v=v1beta1;g=meta.k8s.io,application/json';
const READER_TOKEN = 'reader-token-0123456789abcdef';

let sim: Simulator;

beforeAll(async () => {
  sim = await startSimulator({
    scenario: 'bad-image-rollout',
    timeScale: 0,
    identities: [{ name: 'sentinel-reader', token: READER_TOKEN, readOnly: true }],
  });
});

afterAll(async () => {
  await sim.close();
});

describe('simulator HTTP API', () => {
  it('binds 127.0.0.1 on an ephemeral port and requires a bearer token', async () => {
    expect(sim.url).toMatch(/^https:\/\/127\.0\.0\.1:\d+$/);
    const anonymous = await rawRequest(sim, 'GET', '/api/v1/namespaces/shop/pods', { token: null });
    expect(anonymous.status).toBe(401);
    expect(anonymous.json).toMatchObject({ kind: 'Status', reason: 'Unauthorized', code: 401 });
    expect((await rawRequest(sim, 'GET', '/api/v1/namespaces', { token: 'wrong' })).status).toBe(401);
    expect((await rawRequest(sim, 'GET', '/healthz', { token: null })).text).toBe('ok');
  });

  it('answers unknown paths and objects with 404 Status, never a crash', async () => {
    for (const path of [
      '/nope',
      '/apis/nope.example.com/v1',
      '/api/v1/namespaces/shop/widgets',
      '/api/v2',
      '/api/v1/pods/x/y/z',
    ]) {
      const response = await rawRequest(sim, 'GET', path);
      expect(response.status, path).toBe(404);
      expect(response.json, path).toMatchObject({ kind: 'Status', reason: 'NotFound' });
    }
    const missing = await rawRequest(sim, 'GET', '/apis/apps/v1/namespaces/shop/deployments/nope');
    expect(missing.json).toMatchObject({
      message: 'deployments.apps "nope" not found',
      details: { name: 'nope', group: 'apps', kind: 'deployments' },
    });
  });

  it('rejects bad input with 400, 415 and 422 Status objects', async () => {
    const path = '/apis/apps/v1/namespaces/shop/deployments/checkout';
    const notJson = await rawRequest(sim, 'PATCH', path, {
      body: '{',
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(notJson.status).toBe(400);
    const badType = await rawRequest(sim, 'PATCH', path, {
      body: {},
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(badType.json).toMatchObject({ code: 415, reason: 'UnsupportedMediaType' });
    const badOp = await rawRequest(sim, 'PATCH', path, {
      body: [{ op: 'replace', path: '/spec/nothing/here', value: 1 }],
      headers: { 'Content-Type': 'application/json-patch+json' },
    });
    expect(badOp.status).toBe(400);
    const invalid = await rawRequest(sim, 'PATCH', path, {
      body: { spec: { replicas: -2, template: { metadata: { labels: { app: 'other' } } } } },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(invalid.status).toBe(422);
    expect(invalid.json).toMatchObject({
      reason: 'Invalid',
      details: { causes: [{ field: 'spec.replicas' }, { field: 'spec.template.metadata.labels' }] },
    });
    expect((invalid.json as { message: string }).message).toContain('Deployment.apps "checkout" is invalid');
    const badSelector = await rawRequest(
      sim,
      'GET',
      '/api/v1/namespaces/shop/pods?labelSelector=app%20in%20(',
    );
    expect(badSelector.json).toMatchObject({ code: 400, reason: 'BadRequest' });
    const badField = await rawRequest(
      sim,
      'GET',
      '/api/v1/namespaces/shop/pods?fieldSelector=spec.foo%3Dbar',
    );
    expect(badField.json).toMatchObject({ code: 400, message: 'field label not supported: spec.foo' });
  });

  it('gives a read-only identity 403 on writes and records every mutating request', async () => {
    const before = sim.mutationLog.length;
    const denied = await rawRequest(
      sim,
      'PATCH',
      '/apis/apps/v1/namespaces/shop/deployments/checkout/scale',
      {
        token: READER_TOKEN,
        body: { spec: { replicas: 0 } },
        headers: { 'Content-Type': 'application/merge-patch+json' },
      },
    );
    expect(denied.status).toBe(403);
    expect(denied.json).toMatchObject({
      reason: 'Forbidden',
      message:
        'deployments.apps "checkout" is forbidden: User "sentinel-reader" cannot patch resource "deployments/scale" in API group "apps" in the namespace "shop"',
    });
    expect(
      (await rawRequest(sim, 'GET', '/apis/apps/v1/namespaces/shop/deployments', { token: READER_TOKEN }))
        .status,
    ).toBe(200);
    expect(sim.mutationLog.slice(before)).toEqual([
      expect.objectContaining({
        identity: 'sentinel-reader',
        verb: 'patch',
        resource: 'deployments.apps',
        namespace: 'shop',
        name: 'checkout',
        subresource: 'scale',
        code: 403,
        dryRun: false,
      }),
    ]);
  });

  it('serves legacy discovery for every group kubectl needs', async () => {
    expect((await rawRequest(sim, 'GET', '/api')).json).toMatchObject({
      kind: 'APIVersions',
      versions: ['v1'],
    });
    const groups = (await rawRequest(sim, 'GET', '/apis')).json as { groups: { name: string }[] };
    expect(groups.groups.map((group) => group.name)).toEqual([
      'apps',
      'events.k8s.io',
      'autoscaling',
      'rbac.authorization.k8s.io',
      'authorization.k8s.io',
      'authentication.k8s.io',
      'metrics.k8s.io',
    ]);
    const apps = (await rawRequest(sim, 'GET', '/apis/apps/v1')).json as {
      resources: { name: string; kind: string }[];
    };
    expect(apps.resources.map((resource) => resource.name)).toEqual([
      'deployments',
      'deployments/scale',
      'deployments/status',
      'replicasets',
      'replicasets/scale',
      'replicasets/status',
      'statefulsets',
      'statefulsets/scale',
      'statefulsets/status',
      'daemonsets',
      'daemonsets/status',
      'controllerrevisions',
    ]);
    const core = (await rawRequest(sim, 'GET', '/api/v1')).json as {
      resources: { name: string; shortNames?: string[] }[];
    };
    expect(core.resources.find((resource) => resource.name === 'pods')?.shortNames).toEqual(['po']);
    expect(core.resources.map((resource) => resource.name)).toContain('pods/log');
    for (const path of ['/apis/events.k8s.io/v1', '/apis/autoscaling/v2'])
      expect((await rawRequest(sim, 'GET', path)).status).toBe(200);
  });

  it('returns meta.k8s.io Tables when asked, with kubectl columns', async () => {
    const table = (
      await rawRequest(sim, 'GET', '/api/v1/namespaces/shop/pods', { headers: { Accept: TABLE } })
    ).json as {
      kind: string;
      columnDefinitions: { name: string; priority: number }[];
      rows: { cells: unknown[]; object: { kind: string } }[];
    };
    expect(table.kind).toBe('Table');
    expect(
      table.columnDefinitions.filter((column) => column.priority === 0).map((column) => column.name),
    ).toEqual(['Name', 'Ready', 'Status', 'Restarts', 'Age']);
    expect(table.rows.map((row) => row.cells[2]).sort()).toEqual([
      'CrashLoopBackOff',
      'CrashLoopBackOff',
      'Running',
      'Running',
    ]);
    expect(table.rows[0]!.object.kind).toBe('PartialObjectMetadata');
  });

  it('filters with label and field selectors like kubectl sends them', async () => {
    const list = async (query: string) =>
      (
        (await rawRequest(sim, 'GET', `/api/v1/namespaces/shop/events?${query}`)).json as {
          items: { involvedObject: { kind: string; name: string } }[];
        }
      ).items;
    const forDeployment = await list(
      `fieldSelector=${encodeURIComponent('involvedObject.kind=Deployment,involvedObject.name=checkout,involvedObject.namespace=shop')}`,
    );
    expect(forDeployment.length).toBeGreaterThan(0);
    expect(forDeployment.every((event) => event.involvedObject.kind === 'Deployment')).toBe(true);
    const notDeployment = await list(
      `fieldSelector=${encodeURIComponent('involvedObject.kind!=Deployment')}`,
    );
    expect(notDeployment.every((event) => event.involvedObject.kind !== 'Deployment')).toBe(true);
    const pods = (
      await rawRequest(sim, 'GET', '/api/v1/pods?labelSelector=app%20in%20(checkout),pod-template-hash')
    ).json as { items: unknown[] };
    expect(pods.items).toHaveLength(4);
  });
});
