/**
 * The three patch formats, with strategic merge's list merge keys and directives as kubectl and
 * Sentinel send them.
 */
import { describe, expect, it } from 'vitest';
import { applyPatch, patchTypeOf } from '../../../../deploy/sim/api/patch.ts';
import { ApiError } from '../../../../deploy/sim/api/status.ts';

const deployment = {
  metadata: { name: 'checkout', annotations: { a: '1' }, finalizers: ['x'] },
  spec: {
    paused: true,
    template: {
      metadata: { labels: { app: 'checkout' } },
      spec: {
        containers: [
          {
            name: 'checkout',
            image: 'checkout:2.4.0',
            env: [
              { name: 'A', value: '1' },
              { name: 'B', value: '2' },
            ],
            ports: [{ containerPort: 8080 }],
          },
          { name: 'sidecar', image: 'proxy:1' },
        ],
        tolerations: [{ key: 'a' }],
      },
    },
  },
};

const strategic = (patch: unknown) =>
  applyPatch(deployment, patch, 'application/strategic-merge-patch+json') as typeof deployment;

describe('applyPatch', () => {
  it('strategic merge: maps merge, null deletes (rollout resume), containers merge by name', () => {
    const resumed = strategic({
      spec: {
        paused: null,
        template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': 't' } } },
      },
    });
    expect(resumed.spec.paused).toBeUndefined();
    expect(resumed.spec.template.metadata).toEqual({
      labels: { app: 'checkout' },
      annotations: { 'kubectl.kubernetes.io/restartedAt': 't' },
    });
    const imaged = strategic({
      spec: { template: { spec: { containers: [{ name: 'checkout', image: 'checkout:2.4.1' }] } } },
    });
    expect(imaged.spec.template.spec.containers.map((c) => `${c.name}=${c.image}`)).toEqual([
      'checkout=checkout:2.4.1',
      'sidecar=proxy:1',
    ]);
    expect(imaged.spec.template.spec.containers[0]!.env).toHaveLength(2);
    expect(deployment.spec.paused).toBe(true);
  });

  it('strategic merge: env by name, $patch delete/replace, $retainKeys, primitive-list directives, lists without a key replaced', () => {
    const patched = strategic({
      metadata: { finalizers: ['y'], '$deleteFromPrimitiveList/finalizers': ['x'] },
      spec: {
        template: {
          spec: {
            containers: [
              {
                name: 'checkout',
                env: [
                  { name: 'B', value: '3' },
                  { name: 'A', $patch: 'delete' },
                ],
              },
              { name: 'sidecar', $patch: 'delete' },
            ],
            tolerations: [{ key: 'b' }],
            '$setElementOrder/containers': [{ name: 'checkout' }],
          },
        },
      },
    });
    expect(patched.metadata.finalizers).toEqual(['y']);
    expect(patched.spec.template.spec.containers).toHaveLength(1);
    expect(patched.spec.template.spec.containers[0]!.env).toEqual([{ name: 'B', value: '3' }]);
    expect(patched.spec.template.spec.tolerations).toEqual([{ key: 'b' }]);
    expect(
      strategic({ spec: { template: { metadata: { $patch: 'replace', labels: { app: 'x' } } } } }).spec
        .template.metadata,
    ).toEqual({ labels: { app: 'x' } });
    expect(strategic({ spec: { $retainKeys: ['template'], paused: false } }).spec).toEqual({
      template: deployment.spec.template,
    });
  });

  it('merge patch replaces lists and deletes with null; JSON Patch applies operations and reports failures as 400', () => {
    const merged = applyPatch(
      deployment,
      { spec: { template: { spec: { containers: [{ name: 'only', image: 'x' }] } } } },
      'application/merge-patch+json',
    ) as typeof deployment;
    expect(merged.spec.template.spec.containers).toEqual([{ name: 'only', image: 'x' }]);
    const json = applyPatch(
      deployment,
      [
        { op: 'replace', path: '/spec/paused', value: false },
        { op: 'remove', path: '/metadata/annotations/a' },
      ],
      'application/json-patch+json',
    ) as typeof deployment;
    expect(json.spec.paused).toBe(false);
    expect(json.metadata.annotations).toEqual({});
    for (const bad of [
      [{ op: 'remove', path: '/nope' }],
      [{ op: 'frobnicate', path: '/a' }],
      { not: 'an array' },
    ]) {
      expect(() => applyPatch(deployment, bad, 'application/json-patch+json')).toThrow(ApiError);
    }
    expect(() => applyPatch(deployment, [], 'application/merge-patch+json')).toThrow(
      'merge patch must be a JSON object',
    );
  });

  it('maps Content-Type to a patch type and rejects others with 415', () => {
    expect(patchTypeOf('application/json-patch+json; charset=utf-8')).toBe('application/json-patch+json');
    const error = (() => {
      try {
        patchTypeOf('application/apply-patch+yaml');
      } catch (caught) {
        return caught as ApiError;
      }
    })();
    expect(error?.code).toBe(415);
  });
});
