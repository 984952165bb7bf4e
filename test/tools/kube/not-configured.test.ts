import { describe, expect, it } from 'vitest';
import { allTools } from '../../../tools/index.ts';
import {
  NO_CLUSTER,
  READER_OPERATIONS,
  notConfiguredReader,
  notConfiguredWriter,
} from '../../../tools/kube/index.ts';
import { callToolError } from '../../helpers/tools.ts';

const reason = 'No Kubernetes cluster is configured. Point Sentinel at a cluster with --kubeconfig <file>.';

describe('no-cluster mode', () => {
  it('every reader and writer method rejects with unavailable and the reason', async () => {
    const reader = notConfiguredReader(reason);
    expect(reader.cluster).toBe(NO_CLUSTER);
    for (const method of Object.keys(READER_OPERATIONS) as (keyof typeof READER_OPERATIONS)[]) {
      await expect(reader[method]('ns' as never, 'name' as never)).rejects.toMatchObject({
        code: 'unavailable',
        message: reason,
      });
    }
    const writer = notConfiguredWriter(reason);
    await expect(
      writer.patchDeploymentScale('ns', 'web', {}, { fieldManager: 'sentinel' }),
    ).rejects.toMatchObject({
      code: 'unavailable',
    });
  });

  it('every read tool answers unavailable with how to configure a cluster', async () => {
    const ctx = {
      kube: notConfiguredReader(reason),
      cluster: NO_CLUSTER,
      signal: new AbortController().signal,
      dryRun: false,
    };
    const samples: Record<string, Record<string, unknown>> = {
      get_cluster_version: {},
      list_namespaces: {},
      get_deployment: { namespace: 'shop', name: 'web' },
      get_rollout_history: { namespace: 'shop', name: 'web' },
      get_service: { namespace: 'shop', name: 'web' },
      get_rollout_status: { namespace: 'shop', name: 'web' },
      get_pod_logs: { namespace: 'shop', pod: 'web-1' },
    };
    const readTools = allTools.filter((t) => t.risk === 'read');
    expect(readTools.length).toBeGreaterThan(0);
    for (const tool of readTools) {
      const error = await callToolError(tool, samples[tool.name] ?? { namespace: 'shop' }, ctx);
      expect(error.code, tool.name).toBe('unavailable');
      expect(error.message, tool.name).toBe(reason);
    }
  });
});
