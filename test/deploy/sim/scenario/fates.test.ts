/**
 * Fate rules match resource quantities by value: the API stores them canonical (`0.5Gi` as
 * `512Mi`), so a rule written either way matches the stored Pod.
 */
import { describe, expect, it } from 'vitest';
import { fateResolver } from '../../../../deploy/sim/scenario/fates.ts';
import type { FateSpec } from '../../../../deploy/sim/scenario/schema.ts';
import type { Container, Pod } from '../../../../deploy/sim/types.ts';

const container: Container = {
  name: 'app',
  image: 'app:1',
  resources: { limits: { memory: '512Mi', cpu: '100m' } },
};
const pod = {
  metadata: { name: 'p', namespace: 'shop' },
  spec: { containers: [container] },
} as unknown as Pod;
const oom: FateSpec = { kind: 'oomKilled', runSeconds: 5, logs: [] };

describe('fate rules on resources', () => {
  it('compare quantities by value, not spelling', () => {
    const resolve = fateResolver(
      [{ match: { resources: { limits: { memory: '0.5Gi', cpu: '0.1' } } }, fate: oom }],
      0,
    );
    expect(resolve(pod, container)).toBe(oom);
  });

  it('still tell different values apart', () => {
    const resolve = fateResolver([{ match: { resources: { limits: { memory: '256Mi' } } }, fate: oom }], 0);
    expect(resolve(pod, container).kind).toBe('healthy');
  });
});

describe('fate rules on any Pod field', () => {
  const withSecret = {
    metadata: { name: 'p', namespace: 'shop' },
    spec: { containers: [container], imagePullSecrets: [{ name: 'regcred' }] },
  } as unknown as Pod;
  const pull: FateSpec = { kind: 'imagePullError', cause: 'unauthorized', message: '401 Unauthorized' };

  it('match a dotted path by JSON value, null meaning absent or empty', () => {
    const absent = fateResolver([{ match: { fields: { 'spec.imagePullSecrets': null } }, fate: pull }], 0);
    expect(absent(pod, container)).toBe(pull);
    expect(absent(withSecret, container).kind).toBe('healthy');
    const named = fateResolver(
      [{ match: { fields: { 'spec.imagePullSecrets': [{ name: 'regcred' }] } }, fate: pull }],
      0,
    );
    expect(named(withSecret, container)).toBe(pull);
    expect(named(pod, container).kind).toBe('healthy');
  });
});

describe('failures that begin later', () => {
  it('resolve `since` relative to t = 0', () => {
    const crash: FateSpec = { kind: 'crashLoop', since: -60_000, runSeconds: 3, exitCode: 1, logs: [] };
    const resolved = fateResolver([{ match: {}, fate: crash }], 1_000_000)(pod, container);
    expect(resolved).toMatchObject({ kind: 'crashLoop', since: 940_000 });
  });
});
