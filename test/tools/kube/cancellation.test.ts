/**
 * A cancelled read or preview cancels its Kubernetes reads (in flight, between retries, not yet
 * sent); an execution and a write already sent are never cut short.
 */
import { createServer, type RequestListener } from 'node:http';
import { describe, expect, it } from 'vitest';
import { withCallSignal } from '../../../tools/kube/cancellation.ts';
import { type KubeReader, type KubeWriter } from '../../../tools/kube/index.ts';
import { connectKube } from '../../../tools/kube/connect.ts';
import { getDeployment } from '../../../tools/investigate/get-deployment.ts';
import { pauseRollout } from '../../../tools/remediate/pause-rollout.ts';
import {
  caughtSentinelError,
  mockApi,
  statusBody,
  useMockedCluster,
  writeKubeconfig,
} from '../../helpers/kube.ts';
import { recordUnexpectedRequests } from '../../helpers/remediation.ts';

const PATH = '/apis/apps/v1/namespaces/prod/deployments/web';
const web = {
  apiVersion: 'apps/v1',
  kind: 'Deployment',
  metadata: { name: 'web', namespace: 'prod', generation: 1 },
  spec: { replicas: 1, selector: { matchLabels: { app: 'web' } }, template: { spec: { containers: [] } } },
};

const kube = useMockedCluster();

/** Runs `use` against a loopback API server answering with `listener`; closes it afterwards. */
async function withApiServer(
  listener: RequestListener,
  use: (clients: { reader: KubeReader; writer: KubeWriter }) => Promise<void>,
): Promise<void> {
  const server = createServer(listener);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const file = writeKubeconfig({ server: `http://127.0.0.1:${(server.address() as { port: number }).port}` });
  try {
    const connection = connectKube({ kubeconfig: file.path });
    if (!connection.configured) throw new Error(connection.reason);
    await use(connection);
  } finally {
    file.remove();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
  }
}

const caught = caughtSentinelError;

describe('cancellation of a tool call', () => {
  it('aborts a read in flight (the API server has not answered) with cancelled', async () => {
    // The server never answers, and the request timeout (10 s) outlasts the test's: only the abort ends it.
    await withApiServer(
      () => {},
      async ({ reader }) => {
        const controller = new AbortController();
        const pending = withCallSignal(controller.signal, () => reader.getDeployment('prod', 'web'));
        setTimeout(() => controller.abort(), 20);
        const error = await caught(pending);
        expect(error.code).toBe('cancelled');
        expect(error.message).toBe(
          `The request was cancelled, so get deployments (API group "apps") of 'web' in namespace 'prod' was abandoned.`,
        );
      },
    );
  });

  it('stops retrying a read once cancelled', async () => {
    mockApi()
      .get(PATH)
      .reply(503, statusBody(503, 'ServiceUnavailable', 'busy'), { 'Retry-After': '60' });
    const controller = new AbortController();
    const pending = withCallSignal(controller.signal, () => kube.reader.getDeployment('prod', 'web'));
    setTimeout(() => controller.abort(), 50);
    expect((await caught(pending)).code).toBe('cancelled');
  });

  it('through a tool: the handler runs with the call signal, so an aborted call sends no read', async () => {
    const recorder = recordUnexpectedRequests();
    const controller = new AbortController();
    controller.abort();
    const error = await caught(
      getDeployment.handler(
        { namespace: 'prod', name: 'web', autoscalers: true },
        { ...kube.context(), signal: controller.signal },
      ),
    );
    recorder.stop();
    expect(error.code).toBe('cancelled');
    expect(recorder.requests).toEqual([]);
  });

  it('through a tool: an execution (a call holding a writer) runs to the end despite a cancellation', async () => {
    const controller = new AbortController();
    controller.abort();
    const paused = { ...web, spec: { ...web.spec, paused: true } };
    mockApi()
      .get(PATH)
      .reply(200, web)
      .get('/apis/apps/v1/namespaces/prod/replicasets')
      .query(true)
      .reply(200, { items: [] })
      .patch(PATH)
      .query({ fieldManager: 'sentinel' })
      .reply(200, paused);
    const output = await pauseRollout.handler(
      { namespace: 'prod', name: 'web', dry_run: false },
      { ...kube.context(), writer: kube.writer, signal: controller.signal },
    );
    expect(output.structured).toMatchObject({ status: 'applied' });
  });

  it('never aborts a write already sent: its outcome is known', async () => {
    const controller = new AbortController();
    await withApiServer(
      (request, response) => {
        // The call is cancelled while the API server is applying the patch.
        controller.abort();
        setTimeout(() => {
          response.writeHead(200, { 'content-type': 'application/json' });
          response.end(JSON.stringify({ ...web, spec: { ...web.spec, paused: true } }));
        }, 50);
      },
      async ({ writer }) => {
        const written = await withCallSignal(controller.signal, () =>
          writer.patchDeploymentStrategic(
            'prod',
            'web',
            { spec: { paused: true } },
            { fieldManager: 'sentinel' },
          ),
        );
        expect(controller.signal.aborted).toBe(true);
        expect(written.spec?.paused).toBe(true);
      },
    );
  });
});
