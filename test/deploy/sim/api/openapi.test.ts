/**
 * The OpenAPI documents and field validation from deploy/sim/api/schemas.ts: every served kind has a
 * schema, every `$ref` resolves, and every object of every bundled scenario (as stored after its
 * history) has no unknown field, so the schemas cover what the simulator really holds.
 */
import { describe, expect, it } from 'vitest';
import { SimulatedCluster } from '../../../../deploy/sim/cluster.ts';
import { listScenarios, loadScenario } from '../../../../deploy/sim/index.ts';
import { RESOURCE_TYPES } from '../../../../deploy/sim/resources.ts';
import { openApiV2, openApiV3, openApiV3Root } from '../../../../deploy/sim/api/openapi.ts';
import { definitionNameFor } from '../../../../deploy/sim/api/schemas.ts';
import { unknownFields, validateFields } from '../../../../deploy/sim/api/field-validation.ts';
import { toApiView } from '../../../../deploy/sim/api/views.ts';

describe('OpenAPI documents', () => {
  it('name a schema for every served kind and resolve every $ref', () => {
    for (const type of RESOURCE_TYPES) {
      expect(
        definitionNameFor(type.group, type.version, type.kind),
        `${type.group}/${type.kind}`,
      ).toBeDefined();
    }
    const v2 = JSON.stringify(openApiV2());
    const definitions = (openApiV2() as { definitions: Record<string, unknown> }).definitions;
    for (const match of v2.matchAll(/"#\/definitions\/([^"]+)"/g))
      expect(definitions).toHaveProperty([match[1]!]);
    for (const path of Object.keys((openApiV3Root() as { paths: object }).paths)) {
      const document = openApiV3(path) as { components: { schemas: Record<string, unknown> } };
      for (const match of JSON.stringify(document).matchAll(/"#\/components\/schemas\/([^"]+)"/g)) {
        expect(document.components.schemas, path).toHaveProperty([match[1]!]);
      }
    }
    expect(openApiV3('apis/nope/v1')).toBeUndefined();
  });

  it('declares every field the bundled scenarios store', () => {
    let checked = 0;
    for (const name of listScenarios()) {
      const cluster = new SimulatedCluster({ scenario: loadScenario(name), timeScale: 0 });
      for (const type of RESOURCE_TYPES) {
        if (type.review) continue;
        for (const object of cluster.store.list(type.storage)) {
          checked++;
          expect(
            unknownFields(type, toApiView(type, object)),
            `${name}: ${type.plural}/${object.metadata.name}`,
          ).toEqual([]);
        }
      }
    }
    expect(checked).toBeGreaterThan(100);
  });

  it('field validation: Strict throws naming the fields, Warn returns them, Ignore nothing', () => {
    const type = RESOURCE_TYPES.find((candidate) => candidate.kind === 'Deployment')!;
    const object = {
      metadata: { name: 'x', labelz: {} },
      spec: { replica: 1, template: { spec: { containers: [{ name: 'a', imagee: 'b' }] } } },
    };
    expect(validateFields(type, object, 'Warn')).toEqual([
      'unknown field "metadata.labelz"',
      'unknown field "spec.replica"',
      'unknown field "spec.template.spec.containers[0].imagee"',
    ]);
    expect(validateFields(type, object, 'Ignore')).toEqual([]);
    expect(() => validateFields(type, object, 'Strict')).toThrow(
      'Deployment in version "v1" cannot be handled as a Deployment: strict decoding error: unknown field "metadata.labelz", unknown field "spec.replica"',
    );
    // Open subtrees (probes) take anything.
    expect(
      unknownFields(type, {
        spec: { template: { spec: { containers: [{ readinessProbe: { anything: 1 } }] } } },
      }),
    ).toEqual([]);
  });
});
