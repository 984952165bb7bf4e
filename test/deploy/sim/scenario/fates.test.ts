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
