/**
 * resource.Quantity canonical form, against cases from k8s.io/apimachinery's quantity_test.go.
 */
import { describe, expect, it } from 'vitest';
import { canonicalize } from '../../../../deploy/sim/api/canonical.ts';
import { canonicalQuantity, QUANTITY_FORMAT_ERROR } from '../../../../deploy/sim/api/quantity.ts';

describe('canonicalQuantity', () => {
  it.each([
    ['0.1', '100m'],
    ['0.5Gi', '512Mi'],
    ['1024Mi', '1Gi'],
    ['1.5Ki', '1536'],
    ['1023', '1023'],
    ['2000', '2k'],
    ['1000m', '1'],
    ['1.5G', '1500M'],
    ['1e3', '1e3'],
    ['1.5e3', '1500'],
    ['129e6', '129e6'],
    ['128974848', '128974848'],
    ['0.0000000001', '1n'],
    ['-0.1', '-100m'],
    ['0Mi', '0'],
    ['.5', '500m'],
    [0.25, '250m'],
    [4, '4'],
  ] as const)('%s → %s', (input, expected) => {
    expect(canonicalQuantity(input)).toBe(expected);
  });

  it.each(['', 'abc', '1Qi', '1.2.3', '-', '5e'])('rejects %j', (input) => {
    expect(() => canonicalQuantity(input)).toThrow(QUANTITY_FORMAT_ERROR);
  });
});

describe('canonicalize', () => {
  it('canonicalises container resources and drops empty omitempty lists and maps, keeping structs', () => {
    const template = {
      metadata: { labels: {}, annotations: { a: 'b' } },
      spec: {
        containers: [
          {
            name: 'app',
            env: [],
            args: [],
            resources: { limits: { cpu: '0.1', memory: '0.5Gi' }, requests: {} },
          },
        ],
        securityContext: {},
        volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '1024Mi' } }],
      },
    };
    canonicalize(template);
    expect(template).toEqual({
      metadata: { annotations: { a: 'b' } },
      spec: {
        containers: [{ name: 'app', resources: { limits: { cpu: '100m', memory: '512Mi' } } }],
        securityContext: {},
        volumes: [{ name: 'scratch', emptyDir: { sizeLimit: '1Gi' } }],
      },
    });
  });

  it('names the field of a quantity that does not parse', () => {
    expect(() =>
      canonicalize({ spec: { containers: [{ resources: { limits: { cpu: 'lots' } } }] } }),
    ).toThrow('spec.containers[0].resources.limits.cpu: quantities must match');
  });
});
