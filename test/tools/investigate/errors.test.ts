/**
 * Every investigation tool against every error class of the Kubernetes layer: the tool fails with
 * the layer's typed error (never a crash, never a stack), and bad input fails before any API call.
 */
import { createServer as createHttpServer, type Server } from 'node:http';
import { createServer } from 'node:net';
import nock from 'nock';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { allTools } from '../../../tools/index.ts';
import { connectKube } from '../../../tools/kube/connect.ts';
import {
  TEST_SERVER,
  connectTestCluster,
  isolateNetwork,
  statusBody,
  writeKubeconfig,
  type TestCluster,
} from '../../helpers/kube.ts';
import { callToolError } from '../../helpers/tools.ts';

/** Valid arguments for each tool. */
const ARGS: Record<string, Record<string, unknown>> = {
  get_cluster_version: {},
  list_namespaces: {},
  triage_namespace: { namespace: 'shop' },
  list_deployments: { namespace: 'shop' },
  get_deployment: { namespace: 'shop', name: 'web' },
  get_rollout_history: { namespace: 'shop', name: 'web' },
  get_service: { namespace: 'shop', name: 'web' },
  get_rollout_status: { namespace: 'shop', name: 'web' },
  list_pods: { namespace: 'shop' },
  get_pod_logs: { namespace: 'shop', pod: 'web-1' },
  list_events: { namespace: 'shop' },
};
const readTools = allTools.filter((t) => t.risk === 'read');

let kube: TestCluster;
beforeAll(() => {
  isolateNetwork();
  kube = connectTestCluster();
});
afterEach(() => nock.cleanAll());
afterAll(() => kube.remove());

it('has sample arguments for every read tool', () => {
  expect(readTools.map((t) => t.name).sort()).toEqual(Object.keys(ARGS).sort());
});

describe.each([
  [401, 'unauthorized', 'Unauthorized'],
  [403, 'forbidden', 'User "system:serviceaccount:ops:sentinel" cannot do this'],
  [404, 'not_found', 'not found'],
  [503, 'unavailable', 'etcdserver: leader changed'],
])('HTTP %i from the API server', (status, code, message) => {
  it.each(readTools.map((t) => [t.name, t] as const))(`%s fails with ${code}`, async (_name, tool) => {
    const scope = nock(TEST_SERVER)
      .get(/.*/)
      .query(true)
      .reply(status, statusBody(status, 'X', message))
      .persist();
    const error = await callToolError(tool, ARGS[tool.name]!, kube.context());
    expect(error.code).toBe(code);
    expect(error.message).not.toMatch(/\n\s+at /);
    expect(scope.isDone()).toBe(true);
  });
});

describe('transport failures', () => {
  let silent: Server;
  let silentUrl: string;
  let closedUrl: string;
  const files: (() => void)[] = [];
  beforeAll(async () => {
    silent = createHttpServer(() => {});
    await new Promise<void>((resolve) => silent.listen(0, '127.0.0.1', resolve));
    silentUrl = `http://127.0.0.1:${(silent.address() as { port: number }).port}`;
    const probe = createServer();
    await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
    closedUrl = `http://127.0.0.1:${(probe.address() as { port: number }).port}`;
    await new Promise<void>((resolve) => probe.close(() => resolve()));
  });
  afterAll(async () => {
    silent.closeAllConnections();
    await new Promise<void>((resolve) => silent.close(() => resolve()));
    for (const remove of files) remove();
  });

  // The silent server needs a short request timeout to time out at all; a refused connection fails at
  // once, so it gets a long one (a short one raced the refusal on a loaded machine and won: 'timeout').
  function contextFor(server: string, requestTimeoutMs = 100) {
    const file = writeKubeconfig({ server });
    files.push(file.remove);
    const connection = connectKube({ kubeconfig: file.path, requestTimeoutMs });
    if (!connection.configured) throw new Error(connection.reason);
    return {
      kube: connection.reader,
      cluster: connection.cluster,
      signal: new AbortController().signal,
      dryRun: false,
    };
  }

  it.each(readTools.map((t) => [t.name, t] as const))(
    '%s: timeout when the API server does not answer',
    async (_name, tool) => {
      const error = await callToolError(tool, ARGS[tool.name]!, contextFor(silentUrl));
      expect(error.code).toBe('timeout');
      expect(error.message).toContain('within 0.1 s');
    },
  );

  it.each(readTools.map((t) => [t.name, t] as const))(
    '%s: unavailable when the cluster is unreachable',
    async (_name, tool) => {
      const error = await callToolError(tool, ARGS[tool.name]!, contextFor(closedUrl, 60_000));
      expect(error.code).toBe('unavailable');
      expect(error.message).toContain('Cannot reach the Kubernetes API server');
    },
  );
});

describe('bad input is rejected before any API call, naming the field', () => {
  it.each(readTools.filter((t) => 'namespace' in t.input.shape).map((t) => [t.name, t] as const))(
    '%s rejects an invalid namespace and unknown arguments',
    (_name, tool) => {
      const bad = tool.input.safeParse({ ...ARGS[tool.name], namespace: 'Not_Valid' });
      expect(bad.success).toBe(false);
      expect(bad.error!.issues[0]!.path).toEqual(['namespace']);
      expect(bad.error!.issues[0]!.message).toContain('DNS-1123 label');
      expect(tool.input.safeParse({ ...ARGS[tool.name], namespcae: 'shop' }).success).toBe(false);
    },
  );
});
