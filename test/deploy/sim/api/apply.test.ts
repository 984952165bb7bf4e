/**
 * Field sets and server-side apply below kubectl: FieldsV1 round trips, ownership of non-apply
 * writes, and the apiserver's PatchOptions checks (fieldManager required for apply, force only for
 * apply).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator } from '../../../../deploy/sim/index.ts';
import type { Simulator } from '../../../../deploy/sim/index.ts';
import { recordUpdate } from '../../../../deploy/sim/api/apply.ts';
import { formatPath, fromFieldsV1, toFieldSet, toFieldsV1 } from '../../../../deploy/sim/api/field-set.ts';
import { rawRequest } from '../../../helpers/sim.ts';

const DEPLOYMENT = 'io.k8s.api.apps.v1.Deployment';

describe('field sets', () => {
  it('walk lists by their merge keys and round-trip through FieldsV1', () => {
    const object = {
      metadata: { labels: { app: 'web' }, finalizers: ['a'] },
      spec: {
        selector: { matchLabels: { app: 'web' } },
        template: {
          spec: {
            containers: [
              { name: 'web', image: 'x', ports: [{ containerPort: 80, protocol: 'TCP' }], args: ['-v'] },
            ],
          },
        },
      },
    };
    const set = toFieldSet(object, { $ref: DEPLOYMENT });
    expect([...set.values()].map((member) => formatPath(member.path)).sort()).toEqual([
      '.metadata.finalizers[="a"]',
      '.metadata.labels.app',
      '.spec.selector',
      '.spec.template.spec.containers[name="web"]',
      '.spec.template.spec.containers[name="web"].args',
      '.spec.template.spec.containers[name="web"].image',
      '.spec.template.spec.containers[name="web"].name',
      '.spec.template.spec.containers[name="web"].ports[containerPort=80,protocol="TCP"]',
      '.spec.template.spec.containers[name="web"].ports[containerPort=80,protocol="TCP"].containerPort',
      '.spec.template.spec.containers[name="web"].ports[containerPort=80,protocol="TCP"].protocol',
    ]);
    const fields = toFieldsV1(set);
    expect(fields['f:metadata']).toEqual({ 'f:finalizers': { 'v:"a"': {} }, 'f:labels': { 'f:app': {} } });
    expect([...fromFieldsV1(fields).keys()].sort()).toEqual([...set.keys()].sort());
  });

  it('a non-apply write owns what it added or changed and takes it from the others', () => {
    const before = {
      metadata: {
        name: 'web',
        managedFields: [
          {
            manager: 'creator',
            operation: 'Update' as const,
            apiVersion: 'apps/v1',
            time: 't0',
            fieldsType: 'FieldsV1' as const,
            fieldsV1: { 'f:spec': { 'f:replicas': {}, 'f:paused': {} } },
          },
        ],
      },
      spec: { replicas: 1, paused: false },
    };
    const after = { ...before, spec: { replicas: 3, paused: false } };
    const entries = recordUpdate({
      definition: DEPLOYMENT,
      before,
      after,
      manager: 'scaler',
      apiVersion: 'apps/v1',
      time: 't1',
    });
    expect(entries.map((entry) => [entry.manager, entry.fieldsV1])).toEqual([
      ['creator', { 'f:spec': { 'f:paused': {} } }],
      ['scaler', { 'f:spec': { 'f:replicas': {} } }],
    ]);
  });
});

describe('apply PATCH options', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ scenario: 'healthy', timeScale: 0 });
  });
  afterAll(async () => {
    await sim.close();
  });
  const path = '/apis/apps/v1/namespaces/shop/deployments/checkout';

  it('requires fieldManager for apply and refuses force elsewhere', async () => {
    const noManager = await rawRequest(sim, 'PATCH', path, {
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
      body: 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: checkout}\nspec: {replicas: 2}\n',
    });
    expect(noManager.status).toBe(422);
    expect(noManager.json).toMatchObject({
      message:
        'PatchOptions.meta.k8s.io "" is invalid: fieldManager: Required value: is required for apply patch',
    });
    const forced = await rawRequest(sim, 'PATCH', `${path}?force=true`, {
      headers: { 'Content-Type': 'application/merge-patch+json' },
      body: { spec: { replicas: 2 } },
    });
    expect(forced.status).toBe(422);
    expect(forced.json).toMatchObject({
      message: expect.stringContaining('force: Forbidden: may not be specified for non-apply patch'),
    });
    const noKind = await rawRequest(sim, 'PATCH', `${path}?fieldManager=me`, {
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
      body: 'metadata: {name: checkout}\n',
    });
    expect(noKind.status).toBe(400);
    const applied = await rawRequest(sim, 'PATCH', `${path}?fieldManager=me`, {
      headers: { 'Content-Type': 'application/apply-patch+yaml' },
      body: 'apiVersion: apps/v1\nkind: Deployment\nmetadata: {name: checkout}\nspec: {replicas: 2}\n',
    });
    expect(applied.status).toBe(200);
    expect(applied.json).toMatchObject({ spec: { replicas: 2 } });
  });
});
