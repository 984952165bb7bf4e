import { createServer as createHttpServer } from 'node:http';
import { createServer } from 'node:net';
import nock from 'nock';
import { describe, expect, it } from 'vitest';
import { connectKube } from '../../../tools/kube/connect.ts';
import {
  TEST_CONTEXT,
  TEST_SERVER,
  TEST_TOKEN,
  caughtSentinelError,
  mockApi,
  statusBody,
  writeKubeconfig,
  useMockedCluster,
} from '../../helpers/kube.ts';

const deployment = (name: string) => ({
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name, namespace: 'prod', generation: 1 },
  spec: { replicas: 1, selector: { matchLabels: { app: name } }, template: { spec: { containers: [] } } },
});
const pod = (name: string) => ({ metadata: { name, namespace: 'prod' }, spec: { containers: [] } });

const caught = caughtSentinelError;

const kube = useMockedCluster();

describe('reads', () => {
  it('GET /version with the kubeconfig bearer token, and names the cluster', async () => {
    mockApi()
      .get('/version')
      .matchHeader('authorization', `Bearer ${TEST_TOKEN}`)
      .reply(200, { major: '1', minor: '31', gitVersion: 'v1.31.2' });
    const version = await kube.reader.getVersion();
    expect(version.gitVersion).toBe('v1.31.2');
    expect(kube.reader.cluster).toEqual({ context: TEST_CONTEXT, server: TEST_SERVER });
  });

  it('reads a Deployment by namespace and name', async () => {
    mockApi().get('/apis/apps/v1/namespaces/prod/deployments/web').reply(200, deployment('web'));
    const result = await kube.reader.getDeployment('prod', 'web');
    expect(result.metadata?.name).toBe('web');
    expect(result.spec?.selector.matchLabels).toEqual({ app: 'web' });
  });

  it('follows `continue` until the last page, sending limit and selectors on every page', async () => {
    const path = '/api/v1/namespaces/prod/pods';
    mockApi()
      .get(path)
      .query({ labelSelector: 'app=web', limit: '2' })
      .reply(200, { items: [pod('a'), pod('b')], metadata: { continue: 'page2' } })
      .get(path)
      .query({ labelSelector: 'app=web', limit: '2', continue: 'page2' })
      .reply(200, { items: [pod('c'), pod('d')], metadata: { continue: 'page3' } })
      .get(path)
      .query({ labelSelector: 'app=web', limit: '2', continue: 'page3' })
      .reply(200, { items: [pod('e')], metadata: {} });
    const pods = await kube.reader.listPods('prod', { labelSelector: 'app=web', pageSize: 2 });
    expect(pods.map((p) => p.metadata?.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
  });

  it('lists events from both the core and events.k8s.io APIs on their own paths', async () => {
    mockApi()
      .get('/api/v1/namespaces/prod/events')
      .query({ limit: '500', fieldSelector: 'involvedObject.name=web' })
      .reply(200, { items: [{ metadata: { name: 'e1' }, involvedObject: {} }] })
      .get('/apis/events.k8s.io/v1/namespaces/prod/events')
      .query({ limit: '500' })
      .reply(200, { items: [{ metadata: { name: 'e2' }, eventTime: '2024-01-01T00:00:00.000000Z' }] });
    expect(
      (await kube.reader.listEvents('prod', { fieldSelector: 'involvedObject.name=web' })).map(
        (e) => e.metadata.name,
      ),
    ).toEqual(['e1']);
    expect((await kube.reader.listEventsV1('prod')).map((e) => e.metadata?.name)).toEqual(['e2']);
  });

  it('reads container logs with the pods/log query parameters', async () => {
    mockApi()
      .get('/api/v1/namespaces/prod/pods/web-1/log')
      .query({
        container: 'app',
        previous: 'true',
        tailLines: '200',
        limitBytes: '65536',
        sinceSeconds: '60',
      })
      .reply(200, 'line 1\nline 2\n', { 'content-type': 'text/plain' });
    const text = await kube.reader.readPodLog('prod', 'web-1', {
      container: 'app',
      previous: true,
      tailLines: 200,
      limitBytes: 65536,
      sinceSeconds: 60,
    });
    expect(text).toBe('line 1\nline 2\n');
  });

  it('lists ReplicaSets, Services and HorizontalPodAutoscalers on their API paths', async () => {
    mockApi()
      .get('/apis/apps/v1/namespaces/prod/replicasets')
      .query(true)
      .reply(200, { items: [{ metadata: { name: 'web-1' } }] })
      .get('/api/v1/namespaces/prod/services')
      .query(true)
      .reply(200, { items: [{ metadata: { name: 'web' } }] })
      .get('/api/v1/namespaces/prod/services/web')
      .reply(200, { metadata: { name: 'web' } })
      .get('/apis/autoscaling/v2/namespaces/prod/horizontalpodautoscalers')
      .query(true)
      .reply(200, {
        items: [
          {
            metadata: { name: 'web' },
            spec: { maxReplicas: 3, scaleTargetRef: { kind: 'Deployment', name: 'web' } },
          },
        ],
      })
      .get('/api/v1/namespaces/prod/pods/web-1')
      .reply(200, pod('web-1'));
    expect((await kube.reader.listReplicaSets('prod')).length).toBe(1);
    expect((await kube.reader.listServices('prod')).length).toBe(1);
    expect((await kube.reader.getService('prod', 'web')).metadata?.name).toBe('web');
    expect((await kube.reader.listHorizontalPodAutoscalers('prod'))[0]?.spec?.maxReplicas).toBe(3);
    expect((await kube.reader.getPod('prod', 'web-1')).metadata?.name).toBe('web-1');
  });
});

describe('reads as sent', () => {
  // A field @kubernetes/client-node's models do not declare (e.g. a pod-spec field newer than the library).
  const withUnknown = (name: string) => {
    const object = deployment(name) as ReturnType<typeof deployment> & { metadata: Record<string, unknown> };
    object.spec.template.spec = { containers: [], futurePodField: { on: true } } as never;
    object.metadata.creationTimestamp = '2024-05-01T10:00:00Z';
    return object;
  };

  it('reads are the JSON as sent (no model conversion): undeclared fields kept, timestamps as strings', async () => {
    const path = '/apis/apps/v1/namespaces/prod/deployments/web';
    mockApi().get(path).reply(200, withUnknown('web')).get(path).reply(200, withUnknown('web'));
    const typed = await kube.reader.getDeployment('prod', 'web');
    expect(typed).toEqual(withUnknown('web'));
    expect(typed.metadata?.creationTimestamp).toBe('2024-05-01T10:00:00Z');
    expect(await kube.reader.getDeploymentAsSent('prod', 'web')).toEqual(withUnknown('web'));
  });

  it('lists as sent across pages, with selectors, and retries like any read', async () => {
    const path = '/apis/apps/v1/namespaces/prod/replicasets';
    mockApi()
      .get(path)
      .query({ labelSelector: 'app=web', limit: '1' })
      .reply(503, statusBody(503, 'ServiceUnavailable', 'busy'))
      .get(path)
      .query({ labelSelector: 'app=web', limit: '1' })
      .reply(200, { items: [withUnknown('a')], metadata: { continue: 'page2' } })
      .get(path)
      .query({ labelSelector: 'app=web', limit: '1', continue: 'page2' })
      .reply(200, { items: [withUnknown('b')], metadata: {} });
    const items = await kube.reader.listReplicaSetsAsSent('prod', { labelSelector: 'app=web', pageSize: 1 });
    expect(items).toEqual([withUnknown('a'), withUnknown('b')]);
  });

  it('errors are the same typed errors as a typed read', async () => {
    mockApi()
      .get('/apis/apps/v1/namespaces/prod/deployments/gone')
      .reply(404, statusBody(404, 'NotFound', 'deployments.apps "gone" not found'));
    const error = await caught(kube.reader.getDeploymentAsSent('prod', 'gone'));
    expect(error.code).toBe('not_found');
    expect(error.toJSON()).toMatchObject({ kind: 'Deployment', namespace: 'prod', name: 'gone' });
  });
});

describe('errors name the resource and the cause', () => {
  it('404 → not_found naming the Deployment, namespace and cluster, with what to do next', async () => {
    mockApi()
      .get('/apis/apps/v1/namespaces/prod/deployments/web')
      .reply(404, statusBody(404, 'NotFound', 'deployments.apps "web" not found'));
    const error = await caught(kube.reader.getDeployment('prod', 'web'));
    expect(error.code).toBe('not_found');
    expect(error.message).toBe(
      `Deployment 'web' in namespace 'prod' not found on cluster '${TEST_CONTEXT}'. list_deployments shows the Deployments that exist.`,
    );
    expect(error.toJSON()).toMatchObject({ kind: 'Deployment', namespace: 'prod', name: 'web' });
  });

  it('403 → forbidden naming the verb and resource the role lacks, with the server message', async () => {
    const message =
      'pods "web-1" is forbidden: User "system:serviceaccount:ops:sentinel" cannot get resource "pods/log" in API group "" in the namespace "prod"';
    mockApi()
      .get('/api/v1/namespaces/prod/pods/web-1/log')
      .reply(403, statusBody(403, 'Forbidden', message));
    const error = await caught(kube.reader.readPodLog('prod', 'web-1'));
    expect(error.code).toBe('forbidden');
    expect(error.message).toContain("may not get pods/log (API group core) in namespace 'prod'");
    expect(error.message).toContain(message);
    expect(error.details).toMatchObject({ verb: 'get', resource: 'pods/log', group: '' });
  });

  it('401 → unauthorized, not retried', async () => {
    mockApi()
      .get('/apis/apps/v1/namespaces/prod/deployments')
      .query(true)
      .reply(401, statusBody(401, 'Unauthorized', 'Unauthorized'));
    const error = await caught(kube.reader.listDeployments('prod'));
    expect(error.code).toBe('unauthorized');
    expect(error.message).toContain(
      `Cluster '${TEST_CONTEXT}' (${TEST_SERVER}) rejected Sentinel's credentials`,
    );
  });

  it('400/422 → invalid_input with the server message', async () => {
    mockApi()
      .get('/api/v1/namespaces/prod/pods')
      .query(true)
      .reply(400, statusBody(400, 'BadRequest', "unable to parse requirement: found '('"));
    const error = await caught(kube.reader.listPods('prod', { labelSelector: 'a in (' }));
    expect(error.code).toBe('invalid_input');
    expect(error.message).toContain('unable to parse requirement');
  });

  it('410 Gone while paging → conflict telling the caller to retry', async () => {
    mockApi()
      .get('/api/v1/namespaces/prod/pods')
      .query({ limit: '500' })
      .reply(200, { items: [pod('a')], metadata: { continue: 'stale' } })
      .get('/api/v1/namespaces/prod/pods')
      .query({ limit: '500', continue: 'stale' })
      .reply(410, statusBody(410, 'Expired', 'The provided continue parameter is too old'));
    const error = await caught(kube.reader.listPods('prod'));
    expect(error.code).toBe('conflict');
    expect(error.message).toContain('410 Gone');
  });

  it('a request with no answer within the timeout → timeout, naming the server and the limit', async () => {
    // A loopback server that accepts the request and never answers.
    const silent = createHttpServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    const server = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
    const file = writeKubeconfig({ server });
    try {
      const connection = connectKube({ kubeconfig: file.path, requestTimeoutMs: 50 });
      if (!connection.configured) throw new Error(connection.reason);
      const error = await caught(connection.reader.getDeployment('prod', 'web'));
      expect(error.code).toBe('timeout');
      expect(error.message).toContain(
        `No answer from the Kubernetes API server of cluster '${TEST_CONTEXT}' (${server}) within 0.05 s for get deployments (API group "apps") on Deployment 'web' in namespace 'prod'.`,
      );
      // GET /version takes no parameters; its options must still carry the timeout.
      expect((await caught(connection.reader.getVersion())).code).toBe('timeout');
    } finally {
      file.remove();
      silent.closeAllConnections();
      await new Promise<void>((resolve) => silent.close(() => resolve()));
    }
  });

  it('an unreachable API server → unavailable saying so', async () => {
    const port = await closedPort();
    const file = writeKubeconfig({ server: `http://127.0.0.1:${port}` });
    try {
      const connection = connectKube({ kubeconfig: file.path, retry: { minDelayMs: 1, maxDelayMs: 1 } });
      if (!connection.configured) throw new Error(connection.reason);
      const error = await caught(connection.reader.getVersion());
      expect(error.code).toBe('unavailable');
      expect(error.message).toBe(
        `Cannot reach the Kubernetes API server of cluster '${TEST_CONTEXT}' (http://127.0.0.1:${port}): ECONNREFUSED. Check that the cluster is running and that the kubeconfig context points to it; a running \`sentinel serve\` read the kubeconfig when it started, so restart it after the kubeconfig changes (e.g. after restarting \`sentinel sim\`, which moves the API server to a new port).`,
      );
    } finally {
      file.remove();
    }
  });
});

describe('read retries', () => {
  it('retries 5xx and 429 and returns the eventual answer', async () => {
    mockApi()
      .get('/apis/apps/v1/namespaces/prod/deployments/web')
      .reply(503, statusBody(503, 'ServiceUnavailable', 'etcd leader changed'))
      .get('/apis/apps/v1/namespaces/prod/deployments/web')
      .reply(429, statusBody(429, 'TooManyRequests', 'slow down'))
      .get('/apis/apps/v1/namespaces/prod/deployments/web')
      .reply(200, deployment('web'));
    expect((await kube.reader.getDeployment('prod', 'web')).metadata?.name).toBe('web');
  });

  it('retries a connection reset', async () => {
    mockApi()
      .get('/version')
      .replyWithError(Object.assign(new Error('socket hang up'), { code: 'ECONNRESET' }))
      .get('/version')
      .reply(200, { gitVersion: 'v1.30.0' });
    expect((await kube.reader.getVersion()).gitVersion).toBe('v1.30.0');
  });

  it('gives up after the bounded number of retries (1 + 3 requests) with unavailable', async () => {
    mockApi()
      .get('/api/v1/namespaces/prod/pods/web-1')
      .times(4)
      .reply(500, statusBody(500, 'InternalError', 'boom'));
    const error = await caught(kube.reader.getPod('prod', 'web-1'));
    expect(error.code).toBe('unavailable');
    expect(error.message).toContain('(500 InternalError)');
  });

  it('waits at least what Retry-After asks before retrying', async () => {
    mockApi()
      .get('/version')
      .reply(429, statusBody(429, 'TooManyRequests', 'slow down'), { 'Retry-After': '1' })
      .get('/version')
      .reply(200, { gitVersion: 'v1.30.0' });
    const started = performance.now();
    await kube.reader.getVersion();
    expect(performance.now() - started).toBeGreaterThanOrEqual(950);
  });

  it.each([
    [404, 'not_found'],
    [403, 'forbidden'],
    [401, 'unauthorized'],
    [409, 'conflict'],
  ])('does not retry %i', async (status, code) => {
    const scope = mockApi()
      .get('/api/v1/namespaces/prod/pods/web-1')
      .times(2)
      .reply(status, statusBody(status, 'X', 'no'));
    expect((await caught(kube.reader.getPod('prod', 'web-1'))).code).toBe(code);
    expect(scope.pendingMocks()).toHaveLength(1);
    nock.cleanAll();
  });
});

describe('writes', () => {
  const path = '/apis/apps/v1/namespaces/prod/deployments/web';

  it('patchDeploymentJson sends application/json-patch+json with the field manager', async () => {
    const ops = [{ op: 'replace' as const, path: '/spec/template', value: { spec: { containers: [] } } }];
    mockApi()
      .patch(path, ops)
      .query({ fieldManager: 'sentinel' })
      .matchHeader('content-type', 'application/json-patch+json')
      .reply(200, deployment('web'));
    const result = await kube.writer.patchDeploymentJson('prod', 'web', ops, { fieldManager: 'sentinel' });
    expect(result.metadata?.name).toBe('web');
  });

  it('patchDeploymentStrategic sends application/strategic-merge-patch+json', async () => {
    const patch = {
      spec: { template: { metadata: { annotations: { 'kubectl.kubernetes.io/restartedAt': 'now' } } } },
    };
    mockApi()
      .patch(path, patch)
      .query({ fieldManager: 'sentinel' })
      .matchHeader('content-type', 'application/strategic-merge-patch+json')
      .reply(200, deployment('web'));
    await kube.writer.patchDeploymentStrategic('prod', 'web', patch, { fieldManager: 'sentinel' });
  });

  it('patchDeploymentScale sends a merge patch to deployments/{name}/scale', async () => {
    mockApi()
      .patch(`${path}/scale`, { spec: { replicas: 4 } })
      .query({ fieldManager: 'sentinel' })
      .matchHeader('content-type', 'application/merge-patch+json')
      .reply(200, { kind: 'Scale', metadata: { name: 'web' }, spec: { replicas: 4 } });
    const scale = await kube.writer.patchDeploymentScale(
      'prod',
      'web',
      { spec: { replicas: 4 } },
      { fieldManager: 'sentinel' },
    );
    expect(scale.spec?.replicas).toBe(4);
  });

  it('never retries a write, even on 503', async () => {
    mockApi()
      .patch(path)
      .query(true)
      .once()
      .reply(503, statusBody(503, 'ServiceUnavailable', 'try later'));
    const error = await caught(
      kube.writer.patchDeploymentStrategic('prod', 'web', {}, { fieldManager: 'sentinel' }),
    );
    expect(error.code).toBe('unavailable');
  });

  it('409 → conflict naming the Deployment', async () => {
    mockApi()
      .patch(path)
      .query(true)
      .reply(
        409,
        statusBody(
          409,
          'Conflict',
          'Operation cannot be fulfilled on deployments.apps "web": the object has been modified',
        ),
      );
    const error = await caught(
      kube.writer.patchDeploymentJson('prod', 'web', [], { fieldManager: 'sentinel' }),
    );
    expect(error.code).toBe('conflict');
    expect(error.message).toContain(`Conflict on Deployment 'web' in namespace 'prod'`);
  });

  it('422 from the API server → invalid_input with the causes', async () => {
    mockApi()
      .patch(`${path}/scale`)
      .query(true)
      .reply(
        422,
        statusBody(422, 'Invalid', 'Scale.autoscaling "web" is invalid', {
          causes: [{ field: 'spec.replicas', message: 'must be greater than or equal to 0' }],
        }),
      );
    const error = await caught(
      kube.writer.patchDeploymentScale(
        'prod',
        'web',
        { spec: { replicas: -1 } },
        { fieldManager: 'sentinel' },
      ),
    );
    expect(error.code).toBe('invalid_input');
    expect(error.details).toMatchObject({ causes: [{ field: 'spec.replicas' }], httpStatus: 422 });
  });
});

/** A loopback port nothing listens on. */
async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return port;
}
