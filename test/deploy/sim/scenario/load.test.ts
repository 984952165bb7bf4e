/**
 * Scenario loading: by name, by path, or as an object; schema errors name the file and the field.
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { loadScenario, SCENARIOS_DIR } from '../../../../deploy/sim/scenario/load.ts';
import { SentinelError } from '../../../../tools/errors.ts';

const dir = mkdtempSync(join(tmpdir(), 'sentinel-scenario-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

function loadError(input: unknown): SentinelError {
  try {
    loadScenario(input);
  } catch (error) {
    expect(error).toBeInstanceOf(SentinelError);
    return error as SentinelError;
  }
  throw new Error('expected loadScenario to throw');
}

const minimal = {
  name: 'tiny',
  description: 'one healthy Deployment',
  symptom: 'nothing',
  namespaces: ['shop'],
  expected: { diagnosis: 'fine', action: 'none' },
};

describe('loadScenario', () => {
  it('loads a bundled scenario by name or by path, with offsets in milliseconds and defaults applied', () => {
    const byName = loadScenario('bad-image-rollout');
    expect(byName.deployments[0]!.changes.map((change) => change.at)).toEqual([
      -2 * 86_400_000,
      -14 * 60_000,
    ]);
    expect(byName.nodes).toBe(3);
    expect(loadScenario(join(SCENARIOS_DIR, 'bad-image-rollout.yaml'))).toEqual(byName);
    expect(loadScenario(minimal)).toMatchObject({ name: 'tiny', objects: [], deployments: [], fates: [] });
  });

  it('names the file and every broken field', () => {
    const file = join(dir, 'broken.yaml');
    writeFileSync(
      file,
      [
        'name: Broken Name',
        'description: x',
        'symptom: x',
        'namespaces: [shop]',
        'deployments:',
        '  - manifest: { apiVersion: apps/v1, kind: Deployment, metadata: { name: web } }',
        '    changes: [{ at: 5m, patch: {} }]',
        'fates: [{ fate: { kind: explode } }]',
        'expected: { diagnosis: x, action: reboot }',
      ].join('\n'),
    );
    const error = loadError(file);
    expect(error.code).toBe('invalid_input');
    expect(error.message).toContain(`scenario ${file}:`);
    expect(error.message).toContain('name: must be lowercase letters, digits and dashes');
    expect(error.message).toContain('deployments[0].changes[0].at: must be at or before t = 0');
    expect(error.message).toContain('fates[0].fate.kind');
    expect(error.message).toContain('expected.action: must be rollback, restart, none or refused:<reason>');
    expect(error.field).toBe('name');
  });

  it('rejects unknown fields, bad durations, unknown names and non-YAML', () => {
    expect(loadError({ ...minimal, extra: 1 }).message).toContain('(root): Unrecognized key: "extra"');
    expect(
      loadError({
        ...minimal,
        objects: [
          { at: '-3 days', manifest: { apiVersion: 'v1', kind: 'Service', metadata: { name: 's' } } },
        ],
      }).message,
    ).toContain('objects[0].at: must be a duration like -12m');
    expect(loadError('no-such-scenario').message).toContain(
      '"no-such-scenario" is neither a bundled scenario (bad-image-rollout,',
    );
    const notYaml = join(dir, 'bad.yaml');
    writeFileSync(notYaml, 'name: [unclosed');
    expect(loadError(notYaml).message).toMatch(/^scenario .*bad\.yaml: not valid YAML/);
  });
});
