import { describe, expect, it } from 'vitest';
import { getService, type GetServiceOutput } from '../../../tools/investigate/get-service.ts';
import { NOW, deployment, pod, replicaSet } from '../../helpers/fixtures.ts';
import { TEST_CONTEXT, mockApi, statusBody, useMockedCluster } from '../../helpers/kube.ts';
import { callTool, callToolError } from '../../helpers/tools.ts';

const kube = useMockedCluster({ now: NOW });
const servicePath = '/api/v1/namespaces/shop/services/db';
const podsPath = '/api/v1/namespaces/shop/pods';
const rsPath = '/apis/apps/v1/namespaces/shop/replicasets';

function service(selector?: Record<string, string>) {
  return {
    apiVersion: 'v1',
    kind: 'Service',
    metadata: { name: 'db', namespace: 'shop', uid: 'uid-svc-db' },
    spec: {
      type: 'ClusterIP',
      clusterIP: '10.96.40.12',
      ...(selector && { selector }),
      ports: [{ name: 'pg', port: 5432, targetPort: 5432, protocol: 'TCP' }],
    },
  };
}

/** A StatefulSet's Pod (controller owner reference to the StatefulSet). */
function statefulPod(name: string, ready: boolean) {
  const p = pod({ name, labels: { app: 'postgres' }, containers: [{ name: 'postgres', ready }] });
  const meta = p.metadata as { ownerReferences?: unknown[] };
  meta.ownerReferences = [
    { apiVersion: 'apps/v1', kind: 'StatefulSet', name: 'postgres', uid: 'uid-sts', controller: true },
  ];
  return p;
}

describe('get_service', () => {
  it('follows the selector to the Pods and the StatefulSet that owns them, whatever its name', async () => {
    const terminating = statefulPod('postgres-2', true);
    (terminating.metadata as Record<string, unknown>)['deletionTimestamp'] = new Date(NOW).toISOString();
    mockApi()
      .get(servicePath)
      .reply(200, service({ app: 'postgres' }));
    mockApi()
      .get(podsPath)
      .query({ limit: '500', labelSelector: 'app=postgres' })
      .reply(200, {
        items: [statefulPod('postgres-0', false), statefulPod('postgres-1', true), terminating],
      });
    mockApi().get(rsPath).query({ limit: '500', labelSelector: 'app=postgres' }).reply(200, { items: [] });
    const output = await callTool(getService, { namespace: 'shop', name: 'db' }, kube.context());
    const s = output.structured as GetServiceOutput;
    expect(s).toMatchObject({
      name: 'db',
      type: 'ClusterIP',
      cluster_ip: '10.96.40.12',
      ports: ['5432/TCP → 5432 (pg)'],
      selector: 'app=postgres',
      pods: { matched: 2, ready: 1 },
      backends: [{ kind: 'StatefulSet', name: 'postgres', pods: 2, ready: 1 }],
      omitted: 0,
    });
    expect(output.text).toContain('Service shop/db (ClusterIP 10.96.40.12)');
    expect(output.text).toMatch(/StatefulSet\s+postgres\s+2\s+1/);
  });

  it('names the Deployment behind a ReplicaSet-owned Pod, and a bare Pod as itself', async () => {
    const d = deployment({ name: 'api', image: 'shop/api:1' });
    const rs = replicaSet({ deployment: d, revision: 2, hash: 'abc12', replicas: 1 });
    mockApi()
      .get(servicePath)
      .reply(200, service({ app: 'api' }));
    mockApi()
      .get(podsPath)
      .query({ limit: '500', labelSelector: 'app=api' })
      .reply(200, {
        items: [pod({ name: 'api-abc12-x1', owner: rs }), pod({ name: 'debug', labels: { app: 'api' } })],
      });
    mockApi()
      .get(rsPath)
      .query({ limit: '500', labelSelector: 'app=api' })
      .reply(200, { items: [rs] });
    const s = (await callTool(getService, { namespace: 'shop', name: 'db' }, kube.context()))
      .structured as GetServiceOutput;
    expect(s.backends).toEqual([
      { kind: 'Deployment', name: 'api', pods: 1, ready: 1 },
      { kind: 'Pod', name: 'debug', pods: 1, ready: 1 },
    ]);
  });

  it('makes one call for a Service without a selector and says its endpoints are managed elsewhere', async () => {
    mockApi().get(servicePath).reply(200, service());
    const output = await callTool(getService, { namespace: 'shop', name: 'db' }, kube.context());
    expect(output.structured).toMatchObject({ selector: null, backends: [], pods: { matched: 0, ready: 0 } });
    expect(output.text).toContain('Selector: (none)');
  });

  it('not found names the Service', async () => {
    mockApi()
      .get(servicePath)
      .reply(404, statusBody(404, 'NotFound', 'services "db" not found'));
    const error = await callToolError(getService, { namespace: 'shop', name: 'db' }, kube.context());
    expect(error.code).toBe('not_found');
    expect(error.message).toContain(
      `Service 'db' in namespace 'shop' not found on cluster '${TEST_CONTEXT}'`,
    );
  });

  it('rejects a name that is not a DNS-1123 subdomain before any call', () => {
    const result = getService.input.safeParse({ namespace: 'shop', name: 'DB:5432' });
    expect(result.success).toBe(false);
    expect(result.error!.issues[0]!.path).toEqual(['name']);
  });
});
