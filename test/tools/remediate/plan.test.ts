import { describe, expect, it } from 'vitest';
import {
  digest,
  effectTargetOf,
  nextRevision,
  podTemplateDigest,
  targetOf,
} from '../../../tools/remediate/plan.ts';
import type { Deployment, ReplicaSet } from '../../../tools/kube/types.ts';
import { deployment, podTemplate, replicaSet } from '../../helpers/fixtures.ts';

const dep = deployment({ name: 'web', image: 'web:3', revision: 3, generation: 9 }) as Deployment;
const rs = (revision: number, image: string) =>
  replicaSet({ deployment: dep as never, revision, hash: `h${revision}`, image }) as ReplicaSet;

describe('plan helpers', () => {
  it('anchors effects on the uid, never resourceVersion or generation; the reported target has the generation', () => {
    const read = { ...dep, metadata: { ...dep.metadata, resourceVersion: '77' } };
    const identity = { kind: 'Deployment', namespace: 'shop', name: 'web', uid: 'uid-web' };
    expect(effectTargetOf(read)).toEqual(identity);
    expect(targetOf(read)).toEqual({ ...identity, generation: 9 });
    expect(effectTargetOf(read, 'StatefulSet')).toEqual({ ...identity, kind: 'StatefulSet' });
  });

  it('digests templates ignoring key order and the pod-template-hash label', () => {
    const withHash = rs(3, 'web:3').spec!.template;
    expect(podTemplateDigest(withHash)).toBe(podTemplateDigest(dep.spec!.template));
    expect(podTemplateDigest(rs(2, 'web:2').spec!.template)).not.toBe(podTemplateDigest(dep.spec!.template));
    expect(digest({ a: 1, b: 2 })).toBe(digest({ b: 2, a: 1 }));
    expect(digest({ a: 1 })).toMatch(/^[0-9a-f]{16}$/);
  });

  it('numbers the next revision as the controller does', () => {
    const owned = [rs(2, 'web:2'), rs(10, 'web:10'), rs(9, 'web:9')];
    // a new template: highest + 1
    expect(nextRevision(undefined, owned)).toBe(11);
    expect(nextRevision(podTemplate('web', ['web:new']) as never, owned)).toBe(11);
    // an old template coming back: renumbered past the others
    expect(nextRevision(rs(2, 'web:2').spec!.template, owned)).toBe(11);
    // the newest template keeps its number
    expect(nextRevision(rs(10, 'web:10').spec!.template, owned)).toBe(10);
    expect(nextRevision(undefined, [])).toBe(1);
  });
});
