import { describe, expect, it } from 'vitest';
import { listDeployments } from '../../../tools/investigate/list-deployments.ts';
import { NOW, deployment } from '../../helpers/fixtures.ts';
import { TEST_CONTEXT, TEST_SERVER, mockApi, useMockedCluster } from '../../helpers/kube.ts';
import { callTool } from '../../helpers/tools.ts';

const path = '/apis/apps/v1/namespaces/shop/deployments';
const kube = useMockedCluster({ now: NOW });

describe('list_deployments', () => {
  it('shows kubectl-style columns plus revision, conditions and paused, sorted by name', async () => {
    mockApi()
      .get(path)
      .query({ limit: '500' })
      .reply(200, {
        items: [
          deployment({
            name: 'web',
            image: 'shop/web:3',
            revision: 11,
            ready: 1,
            available: 1,
            updated: 1,
            conditions: [
              { type: 'Available', status: 'False', reason: 'MinimumReplicasUnavailable' },
              { type: 'Progressing', status: 'False', reason: 'ProgressDeadlineExceeded' },
            ],
            createdMinutesAgo: 90,
          }),
          deployment({
            name: 'api',
            images: ['shop/api:7', 'envoy:1.30'],
            revision: 4,
            paused: true,
            createdMinutesAgo: 3 * 24 * 60,
          }),
        ],
      });
    const output = await callTool(listDeployments, { namespace: 'shop' }, kube.context());
    const lines = output.text.split('\n');
    expect(lines[0]).toBe(`Cluster '${TEST_CONTEXT}' (${TEST_SERVER}) — 2 Deployment(s) in namespace 'shop'`);
    expect(lines[1]!.split(/\s{2,}/)).toEqual([
      'NAME',
      'READY',
      'UP-TO-DATE',
      'AVAILABLE',
      'REVISION',
      'IMAGES',
      'CONDITIONS',
      'PAUSED',
      'AGE',
    ]);
    expect(lines[2]!.split(/\s{2,}/)).toEqual([
      'api',
      '3/3',
      '3',
      '3',
      '4',
      'shop/api:7,envoy:1.30',
      'Available=True/MinimumReplicasAvailable Progressing=True/NewReplicaSetAvailable',
      'yes',
      '3d',
    ]);
    expect(lines[3]!.split(/\s{2,}/)).toEqual([
      'web',
      '1/3',
      '1',
      '1',
      '11',
      'shop/web:3',
      'Available=False/MinimumReplicasUnavailable Progressing=False/ProgressDeadlineExceeded',
      'no',
      '90m',
    ]);
    expect(output.structured).toMatchObject({
      cluster: { context: TEST_CONTEXT, server: TEST_SERVER },
      namespace: 'shop',
      total: 2,
      omitted: 0,
      deployments: [
        {
          name: 'api',
          desired: 3,
          ready: 3,
          revision: 4,
          images: ['shop/api:7', 'envoy:1.30'],
          paused: true,
        },
        { name: 'web', desired: 3, ready: 1, updated: 1, available: 1, revision: 11, paused: false },
      ],
    });
  });

  it('passes the label selector and follows continue across pages', async () => {
    mockApi()
      .get(path)
      .query({ limit: '500', labelSelector: 'tier=frontend' })
      .reply(200, { items: [deployment({ name: 'a' })], metadata: { continue: 'next' } })
      .get(path)
      .query({ limit: '500', labelSelector: 'tier=frontend', continue: 'next' })
      .reply(200, { items: [deployment({ name: 'b' })], metadata: {} });
    const output = await callTool(
      listDeployments,
      { namespace: 'shop', label_selector: 'tier=frontend' },
      kube.context(),
    );
    expect((output.structured as { deployments: { name: string }[] }).deployments.map((d) => d.name)).toEqual(
      ['a', 'b'],
    );
    expect(output.text.split('\n')[0]).toContain("in namespace 'shop' matching 'tier=frontend'");
  });

  it('bounds the list with an explicit "N more" line', async () => {
    const items = Array.from({ length: 60 }, (_, i) =>
      deployment({ name: `svc-${String(i).padStart(2, '0')}` }),
    );
    mockApi().get(path).query(true).reply(200, { items });
    const output = await callTool(listDeployments, { namespace: 'shop' }, kube.context());
    const lines = output.text.split('\n');
    expect(lines).toHaveLength(2 + 50 + 1);
    expect(lines.at(-1)).toBe(
      "… 10 more Deployments in namespace 'shop' not shown (narrow with label_selector).",
    );
    expect(output.structured).toMatchObject({ total: 60, omitted: 10 });
    expect((output.structured as { deployments: unknown[] }).deployments).toHaveLength(50);
  });

  it('says so when nothing matches', async () => {
    mockApi().get(path).query(true).reply(200, { items: [] });
    const output = await callTool(listDeployments, { namespace: 'shop' }, kube.context());
    expect(output.text.split('\n')[1]).toBe("No Deployments in namespace 'shop'.");
  });

  it('rejects a malformed label selector before calling the API', () => {
    const result = listDeployments.input.safeParse({ namespace: 'shop', label_selector: 'app in web' });
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.path).toEqual(['label_selector']);
  });
});
