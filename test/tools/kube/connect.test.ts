import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { delimiter, join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { IN_CLUSTER_CONTEXT, connectKube } from '../../../tools/kube/connect.ts';
import { connectKube as connectKubeLazily } from '../../../tools/kube/index.ts';
import { TEST_CONTEXT, TEST_SERVER, writeKubeconfig } from '../../helpers/kube.ts';

let home: string;
const cleanups: (() => void)[] = [];
beforeEach(() => {
  // An empty home and no KUBECONFIG / in-cluster variables: nothing configured unless a test says so.
  home = mkdtempSync(join(tmpdir(), 'sentinel-home-'));
  vi.stubEnv('HOME', home);
  vi.stubEnv('KUBECONFIG', '');
  vi.stubEnv('KUBERNETES_SERVICE_HOST', '');
  vi.stubEnv('KUBERNETES_SERVICE_PORT', '');
});
afterEach(() => {
  vi.unstubAllEnvs();
  rmSync(home, { recursive: true, force: true });
  for (const cleanup of cleanups.splice(0)) cleanup();
});

function kubeconfig(options?: Parameters<typeof writeKubeconfig>[0]): string {
  const file = writeKubeconfig(options);
  cleanups.push(file.remove);
  return file.path;
}

describe('connectKube', () => {
  it('with no configuration reports not configured and how to configure — no localhost:8080 fallback', () => {
    const connection = connectKube();
    expect(connection.configured).toBe(false);
    if (connection.configured) return;
    expect(connection.reason).toContain('No Kubernetes cluster is configured');
    expect(connection.reason).toContain('--kubeconfig');
    expect(connection.reason).toContain('KUBECONFIG');
    expect(connection.reason).not.toContain('localhost:8080');
  });

  it('uses --kubeconfig and its current context, naming the cluster', () => {
    const connection = connectKube({ kubeconfig: kubeconfig() });
    expect(connection).toMatchObject({
      configured: true,
      cluster: { context: TEST_CONTEXT, server: TEST_SERVER },
    });
    if (connection.configured) expect(connection.reader.cluster).toEqual(connection.cluster);
  });

  it('--context selects another context of the file', () => {
    const connection = connectKube({
      kubeconfig: kubeconfig({ extraContexts: ['other'] }),
      context: 'other',
    });
    expect(connection).toMatchObject({ configured: true, cluster: { context: 'other' } });
  });

  it('an unknown --context is reported with the contexts that exist', () => {
    const connection = connectKube({ kubeconfig: kubeconfig({ extraContexts: ['other'] }), context: 'prod' });
    expect(connection.configured).toBe(false);
    if (!connection.configured) expect(connection.reason).toContain(`Context 'prod' is not in kubeconfig`);
    if (!connection.configured) expect(connection.reason).toContain(`it has '${TEST_CONTEXT}', 'other'`);
  });

  it('a missing --kubeconfig file is reported, not ignored', () => {
    const connection = connectKube({ kubeconfig: join(home, 'nope') });
    expect(connection.configured).toBe(false);
    if (!connection.configured)
      expect(connection.reason).toContain(`kubeconfig file '${join(home, 'nope')}' does not exist`);
  });

  it('reads KUBECONFIG, skipping listed files that do not exist; the first current-context wins', () => {
    const first = kubeconfig({ context: 'first', server: 'https://first.test' });
    vi.stubEnv('KUBECONFIG', [join(home, 'missing'), first].join(delimiter));
    expect(connectKube()).toMatchObject({
      configured: true,
      cluster: { context: 'first', server: 'https://first.test' },
    });
  });

  it('KUBECONFIG naming only missing files is reported', () => {
    vi.stubEnv('KUBECONFIG', join(home, 'missing'));
    const connection = connectKube();
    expect(connection.configured).toBe(false);
    if (!connection.configured) expect(connection.reason).toContain('none of the KUBECONFIG files exist');
  });

  it('falls back to ~/.kube/config', () => {
    mkdirSync(join(home, '.kube'));
    const source = writeKubeconfig({ context: 'home-ctx' });
    cleanups.push(source.remove);
    writeFileSync(join(home, '.kube', 'config'), readText(source.path));
    expect(connectKube()).toMatchObject({
      configured: true,
      cluster: { context: 'home-ctx' },
      source: `kubeconfig '${join(home, '.kube', 'config')}'`,
    });
  });

  it('uses the in-cluster service account inside a Pod', () => {
    const root = mkdtempSync(join(tmpdir(), 'sentinel-pod-'));
    cleanups.push(() => rmSync(root, { recursive: true, force: true }));
    const saDir = join(root, 'var/run/secrets/kubernetes.io/serviceaccount');
    mkdirSync(saDir, { recursive: true });
    writeFileSync(join(saDir, 'token'), 'sa-token');
    writeFileSync(join(saDir, 'namespace'), 'ops');
    vi.stubEnv('KUBERNETES_SERVICE_HOST', '10.96.0.1');
    vi.stubEnv('KUBERNETES_SERVICE_PORT', '443');
    expect(connectKube({ inClusterPathPrefix: root })).toMatchObject({
      configured: true,
      cluster: { context: IN_CLUSTER_CONTEXT, server: 'https://10.96.0.1:443' },
      source: 'the in-cluster service account',
    });
  });

  it('a context whose cluster has no server is reported', () => {
    const path = kubeconfig({ server: '' });
    const connection = connectKube({ kubeconfig: path });
    expect(connection.configured).toBe(false);
  });
});

describe("the Kubernetes layer's connectKube (tools/kube/index.ts, which loads the client on first use)", () => {
  it('resolves to what connect.ts answers: a cluster, a bad context, no configuration', async () => {
    const path = kubeconfig({ extraContexts: ['other'] });
    expect(await connectKubeLazily({ kubeconfig: path, context: 'other' })).toMatchObject({
      configured: true,
      cluster: { context: 'other', server: TEST_SERVER },
      source: `kubeconfig '${path}'`,
    });
    const unknown = { kubeconfig: path, context: 'prod' };
    expect(await connectKubeLazily(unknown)).toEqual(connectKube(unknown));
    expect(await connectKubeLazily()).toEqual(connectKube());
    const missing = { kubeconfig: join(home, 'nope') };
    expect(await connectKubeLazily(missing)).toEqual(connectKube(missing));
  });
});

function readText(path: string): string {
  return readFileSync(path, 'utf8');
}
