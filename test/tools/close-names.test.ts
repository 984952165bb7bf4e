/**
 * A tool call naming a Deployment that does not exist lists the close names from its namespace
 * ("did you mean") — read from the cluster (the simulator, through the real Kubernetes layer) when
 * the call runs (`runTool`, the one way every handler runs).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../deploy/sim/index.ts';
import { runTool } from '../../server/run-tool.ts';
import { withCloseNames } from '../../tools/close-names.ts';
import { getDeployment } from '../../tools/investigate/get-deployment.ts';
import { getService } from '../../tools/investigate/get-service.ts';
import { listPods } from '../../tools/investigate/list-pods.ts';
import { triageNamespace } from '../../tools/investigate/triage-namespace.ts';
import { rollbackDeployment } from '../../tools/remediate/rollback-deployment.ts';
import type { KubeConnection } from '../../tools/kube/index.ts';
import { connectKube } from '../../tools/kube/connect.ts';
import { SentinelError } from '../../core/index.ts';
import { tempDataDir } from '../helpers/server.ts';

let sim: Simulator;
let connection: Extract<KubeConnection, { configured: true }>;
const data = tempDataDir();
beforeAll(async () => {
  const kubeconfig = join(data.dir, 'kubeconfig');
  sim = await startSimulator({ scenario: 'bad-image-rollout', timeScale: 0, kubeconfigPath: kubeconfig });
  const connected = await connectKube({ kubeconfig });
  if (!connected.configured) throw new Error(connected.reason);
  connection = connected;
});
afterAll(async () => {
  await sim?.close();
  data.cleanup();
});

const context = () => ({
  kube: connection.reader,
  cluster: connection.cluster,
  signal: new AbortController().signal,
  dryRun: false,
});

const failure = (promise: Promise<unknown>) =>
  promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (error: unknown) => error as SentinelError,
  );

describe('did you mean, for a Deployment or Service name', () => {
  it('get_deployment with a typo names the close Deployment of the namespace', async () => {
    const error = await failure(
      runTool(getDeployment, getDeployment.input.parse({ namespace: 'shop', name: 'checkuot' }), context()),
    );
    expect(error).toBeInstanceOf(SentinelError);
    expect(error.code).toBe('not_found');
    expect(error.message).toMatch(
      /^Deployment 'checkuot' in namespace 'shop' not found on cluster '[^']+'\./,
    );
    expect(error.message).toContain(
      "list_deployments shows the Deployments that exist. Did you mean 'checkout'?",
    );
    expect(error.toJSON()).toMatchObject({ kind: 'Deployment', namespace: 'shop', name: 'checkuot' });
  });

  it('get_service with a typo names the close Service', async () => {
    const error = await failure(
      runTool(getService, getService.input.parse({ namespace: 'shop', name: 'chekout' }), context()),
    );
    expect(error.message).toContain("Did you mean 'checkout'?");
  });

  it('says nothing more when no name is close, for other kinds, and for other errors', async () => {
    const far = await failure(
      runTool(
        getDeployment,
        getDeployment.input.parse({ namespace: 'shop', name: 'inventory-sync' }),
        context(),
      ),
    );
    expect(far.message).not.toContain('Did you mean');
    const pod = new SentinelError('not_found', "Pod 'checkuot' not found.", {
      kind: 'Pod',
      namespace: 'shop',
      name: 'checkuot',
    });
    expect(await withCloseNames(pod, connection.reader)).toBe(pod);
    const forbidden = new SentinelError('forbidden', 'no', {
      kind: 'Deployment',
      namespace: 'shop',
      name: 'checkuot',
    });
    expect(await withCloseNames(forbidden, connection.reader)).toBe(forbidden);
  });
});

describe('did you mean, for a Deployment name a remediation is given', () => {
  it('rollback_deployment (a preview) with a typo names the close Deployment', async () => {
    const error = await failure(
      runTool(
        rollbackDeployment,
        rollbackDeployment.input.parse({ namespace: 'shop', name: 'chekout', dry_run: true }),
        { ...context(), dryRun: true },
      ),
    );
    expect(error.code).toBe('not_found');
    expect(error.message).toContain("Did you mean 'checkout'?");
  });
});

describe('did you mean, for a namespace that does not exist', () => {
  it('get_deployment in a mistyped namespace says the namespace is missing and names the close one', async () => {
    const error = await failure(
      runTool(getDeployment, getDeployment.input.parse({ namespace: 'shpo', name: 'checkout' }), context()),
    );
    expect(error.code).toBe('not_found');
    expect(error.message).toBe(
      `Namespace 'shpo' not found on cluster '${connection.cluster.context}'. list_namespaces shows the namespaces that exist. Did you mean 'shop'?`,
    );
    expect(error.toJSON()).toMatchObject({ kind: 'Namespace', name: 'shpo' });
  });

  it('lists in a mistyped namespace (empty for Kubernetes) answer not found with the close namespace', async () => {
    for (const [tool, args] of [
      [listPods, { namespace: 'shpo' }],
      [triageNamespace, { namespace: 'shpo' }],
    ] as const) {
      const error = await failure(runTool(tool, tool.input.parse(args), context()));
      expect(error.code, tool.name).toBe('not_found');
      expect(error.message, tool.name).toContain("Namespace 'shpo' not found");
      expect(error.message, tool.name).toContain("Did you mean 'shop'?");
    }
  });

  it('a namespace far from every name is not found without a suggestion; an existing one lists', async () => {
    const error = await failure(
      runTool(listPods, listPods.input.parse({ namespace: 'payments' }), context()),
    );
    expect(error.message).toContain("Namespace 'payments' not found");
    expect(error.message).not.toContain('Did you mean');
    const shop = await runTool(listPods, listPods.input.parse({ namespace: 'shop' }), context());
    expect(shop.isError).toBeUndefined();
  });
});
