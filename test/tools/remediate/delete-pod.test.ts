import { describe, expect, it } from 'vitest';
import { deletePod } from '../../../tools/remediate/delete-pod.ts';
import { mockApi } from '../../helpers/kube.ts';
import {
  APPS,
  dryRunContext,
  executeContext,
  structured,
  useRemediationApi,
} from '../../helpers/remediation.ts';
import { callTool } from '../../helpers/tools.ts';
import { workload } from '../../helpers/workloads.ts';

const api = useRemediationApi();
const POD = '/api/v1/namespaces/shop/pods';

function pod(name: string, owner?: { kind: string; name: string }, labels: Record<string, string> = {}) {
  return {
    apiVersion: 'v1',
    kind: 'Pod',
    metadata: {
      name,
      namespace: 'shop',
      uid: `uid-${name}`,
      labels,
      ...(owner && {
        ownerReferences: [{ apiVersion: 'apps/v1', ...owner, uid: `uid-${owner.name}`, controller: true }],
      }),
    },
    spec: {
      nodeName: 'node-1',
      terminationGracePeriodSeconds: 30,
      containers: [{ name: 'app', image: 'x:1' }],
    },
    status: { phase: 'Running' },
  };
}

const preview = async (name: string) =>
  structured(
    await callTool(deletePod, { namespace: 'shop', name, dry_run: true }, dryRunContext(api.cluster)),
  );

describe('delete_pod', () => {
  it('is destructive, rejects bad input, and bounds the grace period', () => {
    expect(deletePod.risk).toBe('destructive');
    const parse = (args: unknown) => deletePod.input.safeParse(args).success;
    expect(parse({ namespace: 'shop', name: 'web-0', grace_period_seconds: 0 })).toBe(true);
    expect(parse({ namespace: 'shop', name: 'web-0', grace_period_seconds: -1 })).toBe(false);
    expect(parse({ namespace: 'shop', name: 'web-0', grace_period_seconds: 1.5 })).toBe(false);
    expect(parse({ namespace: 'shop', name: 'web-0', force: true })).toBe(false);
  });

  it('says which controller recreates the Pod, or that nothing will', async () => {
    mockApi()
      .get(`${POD}/checkout-7d9f-abcde`)
      .reply(
        200,
        pod(
          'checkout-7d9f-abcde',
          { kind: 'ReplicaSet', name: 'checkout-7d9f' },
          { 'pod-template-hash': '7d9f' },
        ),
      );
    expect((await preview('checkout-7d9f-abcde')).summary).toBe(
      'Delete Pod shop/checkout-7d9f-abcde after its grace period (30 s); ReplicaSet shop/checkout-7d9f (of Deployment shop/checkout) recreates it as a new Pod with a new name',
    );
    mockApi()
      .get(`${POD}/agent-x1`)
      .reply(200, pod('agent-x1', { kind: 'DaemonSet', name: 'agent' }));
    expect((await preview('agent-x1')).summary).toContain(
      'DaemonSet shop/agent recreates it on the same node (node-1)',
    );
    mockApi().get(`${POD}/debug`).reply(200, pod('debug'));
    const bare = await preview('debug');
    expect(bare.summary).toContain('nothing recreates it: it is a bare Pod');
    expect(bare.warnings.map((w) => w.kind)).toEqual(['bare_pod']);
    expect(api.unexpected).toEqual([]);
  });

  it("warns, without refusing, when a StatefulSet Pod's claims would be orphaned", async () => {
    const sts = workload({
      kind: 'StatefulSet',
      name: 'db',
      image: 'pg:16',
      replicas: 2,
      volumeClaimTemplates: ['data'],
    });
    mockApi()
      .get(`${POD}/db-1`)
      .reply(200, pod('db-1', { kind: 'StatefulSet', name: 'db' }))
      .get(`${APPS}/shop/statefulsets/db`)
      .reply(200, sts);
    expect((await preview('db-1')).summary).toContain(
      'StatefulSet shop/db recreates it under the same name and claims data-db-1',
    );
    mockApi()
      .get(`${POD}/db-2`)
      .reply(200, pod('db-2', { kind: 'StatefulSet', name: 'db' }))
      .get(`${APPS}/shop/statefulsets/db`)
      .reply(200, sts);
    const outside = await preview('db-2');
    expect(outside.status).toBe('preview');
    expect(outside.summary).toContain(
      'nothing recreates it: StatefulSet shop/db has 2 replicas (ordinals 0-1)',
    );
    expect(outside.warnings[0]).toMatchObject({ kind: 'pvc_orphaned' });
    expect(outside.warnings[0]!.message).toContain('data-db-2');
  });

  it('deletes with the UID precondition and the grace period, and warns about a force deletion', async () => {
    mockApi()
      .get(`${POD}/web-0`)
      .reply(200, pod('web-0', { kind: 'StatefulSet', name: 'web' }))
      .get(`${APPS}/shop/statefulsets/web`)
      .reply(200, workload({ kind: 'StatefulSet', name: 'web', image: 'x:1' }));
    let body: Record<string, unknown> | undefined;
    const scope = mockApi()
      .delete(`${POD}/web-0`, (b: Record<string, unknown>) => ((body = b), true))
      .query({ gracePeriodSeconds: 0 })
      .reply(200, pod('web-0'));
    const output = await callTool(
      deletePod,
      { namespace: 'shop', name: 'web-0', grace_period_seconds: 0 },
      executeContext(api.cluster, 'apr_9'),
    );
    scope.done();
    expect(body).toEqual({ gracePeriodSeconds: 0, preconditions: { uid: 'uid-web-0' } });
    const result = structured(output);
    expect(result).toMatchObject({
      status: 'applied',
      target: { kind: 'Pod', name: 'web-0', uid: 'uid-web-0' },
    });
    expect(result.warnings.map((w) => w.kind)).toContain('force_delete');
    expect(result.recorded).toBeUndefined();
    expect(output.text).toContain('Verify with list_pods');
  });

  it('does nothing for a Pod already terminating', async () => {
    const terminating = pod('web-0');
    (terminating.metadata as Record<string, unknown>).deletionTimestamp = '2024-05-01T12:00:00Z';
    mockApi().get(`${POD}/web-0`).reply(200, terminating);
    const result = structured(
      await callTool(deletePod, { namespace: 'shop', name: 'web-0' }, executeContext(api.cluster)),
    );
    expect(result.status).toBe('no_op');
    expect(api.unexpected).toEqual([]);
  });
});
