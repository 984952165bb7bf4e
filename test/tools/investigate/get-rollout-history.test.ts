import { describe, expect, it } from 'vitest';
import {
  getRolloutHistory,
  type GetRolloutHistoryOutput,
} from '../../../tools/investigate/get-rollout-history.ts';
import { NOW, deployment, replicaSet } from '../../helpers/fixtures.ts';
import { TEST_CONTEXT, mockApi, useMockedCluster } from '../../helpers/kube.ts';
import { callTool } from '../../helpers/tools.ts';

const kube = useMockedCluster({ now: NOW });

const checkout = deployment({ name: 'checkout', image: 'shop/checkout:2.4.1', revision: 10 });
const rs = (
  revision: number,
  hash: string,
  image: string,
  extra: Partial<Parameters<typeof replicaSet>[0]> = {},
) =>
  replicaSet({
    deployment: checkout,
    revision,
    hash,
    image,
    createdMinutesAgo: 200 - revision * 10,
    ...extra,
  });

describe('get_rollout_history', () => {
  it('numbers revisions like kubectl (owner references, numeric order), newest first, current marked', async () => {
    mockApi()
      .get('/apis/apps/v1/namespaces/shop/deployments/checkout')
      .reply(200, checkout)
      .get('/apis/apps/v1/namespaces/shop/replicasets')
      .query({ limit: '500', labelSelector: 'app=checkout' })
      .reply(200, {
        items: [
          rs(2, 'aaa', 'shop/checkout:2.3.0', {
            changeCause: 'kubectl set image deployment/checkout app=shop/checkout:2.3.0',
          }),
          rs(10, 'ccc', 'shop/checkout:2.4.1', {
            replicas: 3,
            ready: 1,
            changeCause: 'deploy 2.4.1 (token=abc123)',
          }),
        ],
        metadata: { continue: 'p2' },
      })
      .get('/apis/apps/v1/namespaces/shop/replicasets')
      .query({ limit: '500', labelSelector: 'app=checkout', continue: 'p2' })
      .reply(200, {
        items: [
          rs(9, 'bbb', 'shop/checkout:2.4.0'),
          // Same name prefix, another owner: not part of this Deployment's history.
          rs(12, 'zzz', 'shop/checkout:canary', {
            ownerUid: 'uid-checkout-canary',
            name: 'checkout-canary-zzz',
          }),
        ],
      })
      .get('/api/v1/namespaces/shop/pods')
      .query({ limit: '500', labelSelector: 'app=checkout' })
      .reply(200, { items: [] })
      .get('/api/v1/namespaces/shop/events')
      .query({ limit: '500' })
      .reply(200, {
        items: [
          {
            metadata: { name: 'checkout-bbb-q1.1', namespace: 'shop', uid: 'e1' },
            type: 'Warning',
            reason: 'BackOff',
            message: 'Back-off restarting failed container app',
            count: 4,
            involvedObject: { kind: 'Pod', name: 'checkout-bbb-q1', namespace: 'shop' },
          },
        ],
      });
    const output = await callTool(getRolloutHistory, { namespace: 'shop', name: 'checkout' }, kube.context());
    const s = output.structured as GetRolloutHistoryOutput;
    // Revision 9's Pods are gone, but their BackOff events (by ReplicaSet name prefix) remain.
    expect(s.revisions.map((r) => [r.revision, r.health.state])).toEqual([
      [10, 'healthy'],
      [9, 'failed'],
      [2, 'healthy'],
    ]);
    expect(s.revisions[1]!.health.failures).toEqual(['Pod checkout-bbb-q1 BackOff ×4']);
    expect(s.revisions.map((r) => [r.revision, r.current, r.replica_set, r.images])).toEqual([
      [10, true, 'checkout-ccc', ['shop/checkout:2.4.1']],
      [9, false, 'checkout-bbb', ['shop/checkout:2.4.0']],
      [2, false, 'checkout-aaa', ['shop/checkout:2.3.0']],
    ]);
    expect(s).toMatchObject({
      cluster: { context: TEST_CONTEXT },
      deployment_revision: 10,
      total: 3,
      omitted: 0,
    });
    expect(s.revisions[0]).toMatchObject({
      replicas: 3,
      ready: 1,
      pod_template_hash: 'ccc',
      change_cause: 'deploy 2.4.1 (token=[REDACTED])',
    });
    // What each revision changed from the one below it (the oldest shown has nothing to compare with).
    expect(s.revisions.map((r) => r.changes.map((c) => [c.kind, c.from, c.to]))).toEqual([
      [['image', 'shop/checkout:2.4.0', 'shop/checkout:2.4.1']],
      [['image', 'shop/checkout:2.3.0', 'shop/checkout:2.4.0']],
      [],
    ]);

    const lines = output.text.split('\n');
    expect(lines[0]).toContain('rollout history of Deployment shop/checkout (3 revision(s), newest first)');
    expect(lines[1]!.split(/\s{2,}/)).toEqual([
      'REVISION',
      'CURRENT',
      'REPLICASET',
      'IMAGES',
      'READY',
      'HEALTH',
      'AGE',
    ]);
    expect(lines[2]!.split(/\s{2,}/)).toEqual([
      '10',
      '*',
      'checkout-ccc',
      'shop/checkout:2.4.1',
      '1/3',
      'healthy',
      '100m',
    ]);
    expect(lines[3]!.split(/\s{2,}/)).toEqual([
      '9',
      '-',
      'checkout-bbb',
      'shop/checkout:2.4.0',
      '0/0',
      'failed',
      '110m',
    ]);
    // change-cause is annotation text: untrusted, below the table.
    const block = output.text.slice(output.text.indexOf('----- BEGIN UNTRUSTED DATA'));
    expect(block).toContain('revision 10: deploy 2.4.1 (token=[REDACTED])');
    expect(block).toContain('revision 2: kubectl set image deployment/checkout app=shop/checkout:2.3.0');
    expect(output.text).not.toContain('canary');
  });

  it('says when no ReplicaSet matches the current template yet', async () => {
    mockApi()
      .get('/apis/apps/v1/namespaces/shop/deployments/checkout')
      .reply(200, checkout)
      .get('/apis/apps/v1/namespaces/shop/replicasets')
      .query(true)
      .reply(200, { items: [rs(9, 'bbb', 'shop/checkout:2.4.0')] })
      .get('/api/v1/namespaces/shop/pods')
      .query(true)
      .reply(200, { items: [] })
      .get('/api/v1/namespaces/shop/events')
      .query(true)
      .reply(200, { items: [] });
    const output = await callTool(getRolloutHistory, { namespace: 'shop', name: 'checkout' }, kube.context());
    expect(output.text).toContain('No ReplicaSet matches the current pod template yet');
    expect((output.structured as GetRolloutHistoryOutput).revisions[0]!.current).toBe(false);
  });
});
