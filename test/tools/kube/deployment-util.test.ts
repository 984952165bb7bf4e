import { describe, expect, it } from 'vitest';
import {
  isControlledBy,
  newReplicaSetOf,
  replicaSetsOf,
  revisionOf,
  rollbackTarget,
  rolloutHistory,
  rolloutVerdict,
} from '../../../tools/kube/deployment-util.ts';
import { deployment, replicaSet } from '../../helpers/fixtures.ts';

const web = deployment({ name: 'web', image: 'shop/web:3', revision: 11 });
const rs = (
  revision: number | string,
  hash: string,
  image: string,
  extra: Partial<Parameters<typeof replicaSet>[0]> = {},
) =>
  replicaSet({
    deployment: web,
    revision,
    hash,
    image,
    createdMinutesAgo: 1000 - Number(revision) || 500,
    ...extra,
  });

describe('ownership', () => {
  it('finds ReplicaSets by controller owner reference, not by name prefix', () => {
    const mine = rs(1, 'aaa', 'shop/web:1');
    const impostor = rs(2, 'bbb', 'shop/web:2', { ownerUid: 'uid-web-canary' });
    const notController = rs(3, 'ccc', 'shop/web:3');
    (notController.metadata!.ownerReferences![0]! as { controller: boolean }).controller = false;
    expect(isControlledBy(mine, web)).toBe(true);
    expect(replicaSetsOf(web, [impostor, notController, mine])).toEqual([mine]);
  });

  it('sorts owned ReplicaSets oldest first', () => {
    const older = rs(1, 'a', 'shop/web:1', { createdMinutesAgo: 50 });
    const newer = rs(2, 'b', 'shop/web:2', { createdMinutesAgo: 5 });
    expect(replicaSetsOf(web, [newer, older])).toEqual([older, newer]);
  });
});

describe('revisionOf (deploymentutil.Revision)', () => {
  it('parses the annotation as an integer, 0 when absent, undefined when not a number', () => {
    expect(revisionOf(rs(10, 'a', 'x'))).toBe(10);
    expect(revisionOf({ metadata: {} })).toBe(0);
    expect(revisionOf(rs('ten', 'b', 'x'))).toBeUndefined();
  });
});

describe('newReplicaSetOf (FindNewReplicaSet)', () => {
  it('is the owned ReplicaSet whose template equals the Deployment template ignoring pod-template-hash', () => {
    const old = rs(10, 'old', 'shop/web:2');
    const current = rs(11, 'cur', 'shop/web:3');
    expect(newReplicaSetOf(web, [old, current])).toBe(current);
    expect(newReplicaSetOf(web, [old])).toBeUndefined();
  });
});

describe('rolloutHistory (kubectl rollout history)', () => {
  it('numbers revisions from the annotations, sorted as numbers, marks the current one, skips bad revisions', () => {
    const history = rolloutHistory(web, [
      rs(9, 'r9', 'shop/web:1', { changeCause: 'kubectl set image deploy/web app=shop/web:1' }),
      rs(11, 'r11', 'shop/web:3'),
      rs(10, 'r10', 'shop/web:2'),
      rs('x', 'bad', 'shop/web:0'),
    ]);
    expect(history.map((h) => [h.revision, h.current, h.changeCause])).toEqual([
      [9, false, 'kubectl set image deploy/web app=shop/web:1'],
      [10, false, undefined],
      [11, true, undefined],
    ]);
  });

  it('keeps the new ReplicaSet when two share a revision number', () => {
    const history = rolloutHistory(web, [rs(11, 'cur', 'shop/web:3'), rs(11, 'dup', 'shop/web:2')]);
    expect(history).toHaveLength(1);
    expect(history[0]!.replicaSet.metadata!.name).toBe('web-cur');
  });
});

describe('rollbackTarget (kubectl rollout undo)', () => {
  const owned = [rs(9, 'r9', 'shop/web:1'), rs(11, 'r11', 'shop/web:3'), rs(10, 'r10', 'shop/web:2')];
  it('defaults to the second-highest revision', () => {
    const target = rollbackTarget(web, owned);
    expect(target).toMatchObject({ found: true, revision: 10 });
  });
  it('finds an explicit revision, or says which exist', () => {
    expect(rollbackTarget(web, owned, 9)).toMatchObject({ found: true, revision: 9 });
    expect(rollbackTarget(web, owned, 7)).toEqual({
      found: false,
      reason: 'revision_not_found',
      revisions: [9, 10, 11],
    });
  });
  it('has no history with a single revision', () => {
    expect(rollbackTarget(web, [rs(11, 'r11', 'shop/web:3')])).toEqual({
      found: false,
      reason: 'no_history',
      revisions: [11],
    });
  });
});

describe('rolloutVerdict (kubectl rollout status)', () => {
  it('complete when every replica is updated and available', () => {
    expect(rolloutVerdict(deployment({ name: 'web' }))).toEqual({
      state: 'complete',
      message: 'deployment "web" successfully rolled out',
    });
  });

  it('does not trust status before the controller observed the latest generation', () => {
    const d = deployment({
      name: 'web',
      generation: 4,
      observedGeneration: 3,
      conditions: [{ type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' }],
    });
    expect(rolloutVerdict(d)).toMatchObject({
      state: 'progressing',
      message: expect.stringContaining('spec update to be observed'),
    });
  });

  it('failed with the condition reason when the progress deadline passed', () => {
    const d = deployment({
      name: 'web',
      updated: 1,
      conditions: [
        {
          type: 'Progressing',
          status: 'False',
          reason: 'ProgressDeadlineExceeded',
          message: 'ReplicaSet "web-abc" has timed out progressing.',
        },
      ],
    });
    expect(rolloutVerdict(d)).toEqual({
      state: 'failed',
      reason: 'ProgressDeadlineExceeded',
      message:
        'deployment "web" exceeded its progress deadline: ReplicaSet "web-abc" has timed out progressing.',
    });
  });

  it.each([
    [{ updated: 1 }, '1 out of 3 new replicas have been updated'],
    [{ current: 4 }, '1 old replicas are pending termination'],
    [{ available: 2, ready: 2 }, '2 of 3 updated replicas are available'],
  ])('progressing %j', (counts, waiting) => {
    expect(rolloutVerdict(deployment({ name: 'web', ...counts }))).toEqual({
      state: 'progressing',
      message: `Waiting for deployment "web" rollout to finish: ${waiting}...`,
    });
  });

  it('paused when paused with the rollout unfinished', () => {
    expect(rolloutVerdict(deployment({ name: 'web', updated: 1, paused: true }))).toMatchObject({
      state: 'paused',
    });
    expect(rolloutVerdict(deployment({ name: 'web', paused: true }))).toMatchObject({ state: 'complete' });
  });
});
