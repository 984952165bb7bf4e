/**
 * The JSON text of single-object GET answers, built once per stored object version: a repeated GET
 * of an unchanged object reuses the text, a write (a new stored object, a new resourceVersion)
 * builds it again, and each API version of a storage (HPA autoscaling/v1 and v2) has its own text.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ServedJson } from '../../../../deploy/sim/api/served-json.ts';
import { startSimulator } from '../../../../deploy/sim/index.ts';
import type { Simulator } from '../../../../deploy/sim/index.ts';
import type { KubeObject } from '../../../../deploy/sim/types.ts';
import { rawRequest } from '../../../helpers/sim.ts';

const object = (name: string, resourceVersion: string): KubeObject =>
  ({ metadata: { name, namespace: 'shop', resourceVersion } }) as KubeObject;

describe('ServedJson', () => {
  it('builds the text of one stored object once per variant', () => {
    const cache = new ServedJson();
    const stored = object('checkout', '1001');
    let built = 0;
    const build = () => {
      built += 1;
      return { kind: 'Deployment', ...stored };
    };
    const first = cache.text(stored, 'apps/v1', build);
    expect(JSON.parse(first)).toEqual({ kind: 'Deployment', metadata: stored.metadata });
    expect(cache.text(stored, 'apps/v1', build)).toBe(first);
    expect(built).toBe(1);
    cache.text(stored, 'autoscaling/v1', build);
    expect(built).toBe(2);
  });

  it('builds again for the next stored version of the object', () => {
    const cache = new ServedJson();
    const texts = ['1001', '1002'].map((version) => {
      const stored = object('checkout', version);
      return cache.text(stored, 'apps/v1', () => stored);
    });
    expect(texts.map((text) => (JSON.parse(text) as KubeObject).metadata.resourceVersion)).toEqual([
      '1001',
      '1002',
    ]);
  });
});

describe('single-object GET over HTTP', () => {
  let sim: Simulator;
  beforeAll(async () => {
    sim = await startSimulator({ scenario: 'bad-image-rollout', timeScale: 0 });
  });
  afterAll(async () => {
    await sim.close();
  });

  it('answers the same text while unchanged and the newest version after a write', async () => {
    const path = '/apis/apps/v1/namespaces/shop/deployments/checkout';
    const before = await rawRequest(sim, 'GET', path);
    const again = await rawRequest(sim, 'GET', path);
    expect(again.text).toBe(before.text);
    const patched = await rawRequest(sim, 'PATCH', path, {
      body: { metadata: { labels: { served: 'twice' } } },
      headers: { 'Content-Type': 'application/merge-patch+json' },
    });
    expect(patched.status).toBe(200);
    const after = (await rawRequest(sim, 'GET', path)).json as KubeObject;
    expect(after.metadata.labels).toMatchObject({ served: 'twice' });
    expect(after.metadata.resourceVersion).not.toBe((before.json as KubeObject).metadata.resourceVersion);
    expect(after).toMatchObject({ apiVersion: 'apps/v1', kind: 'Deployment' });
  });
});
