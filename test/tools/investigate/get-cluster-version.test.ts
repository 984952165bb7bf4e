import { describe, expect, it } from 'vitest';
import { getClusterVersion } from '../../../tools/investigate/get-cluster-version.ts';
import { SentinelError } from '../../../tools/errors.ts';
import { fakeKube, TEST_CLUSTER } from '../../helpers/server.ts';

const version = {
  major: '1',
  minor: '31',
  gitVersion: 'v1.31.2',
  gitCommit: 'abc',
  gitTreeState: 'clean',
  buildDate: '2024-10-22T20:28:14Z',
  goVersion: 'go1.22.8',
  compiler: 'gc',
  platform: 'linux/amd64',
};

function context(getVersion: () => Promise<typeof version>) {
  const kube = fakeKube({ getVersion });
  return { kube: kube.reader, cluster: kube.cluster, signal: new AbortController().signal, dryRun: false };
}

describe('get_cluster_version', () => {
  it('is a read tool without arguments', () => {
    expect(getClusterVersion.risk).toBe('read');
    expect(() => getClusterVersion.input.parse({ namespace: 'x' })).toThrow();
  });

  it('reports the version with the context and API server', async () => {
    const output = await getClusterVersion.handler(
      {},
      context(async () => version),
    );
    expect(output.text).toBe(
      `Cluster '${TEST_CLUSTER.context}' (${TEST_CLUSTER.server})\nKubernetes v1.31.2 (linux/amd64)`,
    );
    expect(getClusterVersion.output!.parse(output.structured)).toEqual({
      cluster: { context: 'test-context', server: 'https://127.0.0.1:6443' },
      git_version: 'v1.31.2',
      major: '1',
      minor: '31',
      platform: 'linux/amd64',
    });
  });

  it('passes the Kubernetes layer error through', async () => {
    const unreachable = new SentinelError('unavailable', 'Cluster test-context is unreachable.');
    await expect(
      getClusterVersion.handler(
        {},
        context(async () => {
          throw unreachable;
        }),
      ),
    ).rejects.toBe(unreachable);
  });
});
