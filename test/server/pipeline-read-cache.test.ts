/**
 * Which reader a tool call gets with `--read-cache watch` (server/pipeline.ts): read tools the
 * cached one; a remediation tool's dry run (the preview an approver sees) and its execution (with
 * the gate's re-read of the target) only the live one, never the cache.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type Simulator } from '../../deploy/sim/index.ts';
import { connectKube } from '../../tools/kube/connect.ts';
import type { KubeConnection, KubeReader } from '../../tools/kube/index.ts';
import { connectClient, startTestServer, type TestServer } from '../helpers/server.ts';

type Connected = Extract<KubeConnection, { configured: true }>;

/** `reader` recording the name of every method called on it. */
function recording(reader: KubeReader, calls: string[]): KubeReader {
  // A copy, not a Proxy: the reader is frozen, and a Proxy must answer a frozen property as it is.
  const copy: Record<string, unknown> = { cluster: reader.cluster };
  for (const [name, value] of Object.entries(reader)) {
    if (typeof value !== 'function') continue;
    copy[name] = (...args: unknown[]) => {
      calls.push(name);
      return (value as (...a: unknown[]) => unknown)(...args);
    };
  }
  return copy as unknown as KubeReader;
}

describe('tool calls with the read cache on', () => {
  let dir: string;
  let sim: Simulator;
  let connection: Connected;
  let server: TestServer;
  let client: Client;
  const cachedCalls: string[] = [];
  const liveCalls: string[] = [];

  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'sentinel-pipeline-cache-'));
    sim = await startSimulator({
      scenario: 'bad-image-rollout',
      timeScale: 0,
      kubeconfigPath: join(dir, 'kc'),
    });
    const connected = connectKube({ kubeconfig: sim.kubeconfigPath!, readCache: 'watch' });
    if (!connected.configured) throw new Error(connected.reason);
    connection = {
      ...connected,
      reader: recording(connected.reader, liveCalls),
      cachedReader: recording(connected.cachedReader!, cachedCalls),
    };
    server = await startTestServer({ kube: connection });
    client = await connectClient(server.url, server.token);
  });

  afterAll(async () => {
    await client?.close();
    await server?.close();
    await connection?.close?.();
    await sim?.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const call = async (name: string, args: Record<string, unknown>) => {
    const result = await client.callTool({ name, arguments: args });
    expect(result.isError, JSON.stringify(result.content)).toBeFalsy();
    return result;
  };

  it('gives read tools the cached reader', async () => {
    cachedCalls.length = 0;
    liveCalls.length = 0;
    await call('get_deployment', { namespace: 'shop', name: 'checkout' });
    await call('list_pods', { namespace: 'shop' });
    expect(cachedCalls).toContain('getDeploymentAsSent');
    expect(cachedCalls).toContain('listPods');
  });

  it('never gives a remediation tool the cache: not for its preview, not for its execution', async () => {
    const args = { namespace: 'shop', name: 'checkout', replicas: 4, reason: 'load' };
    cachedCalls.length = 0;
    liveCalls.length = 0;
    await call('scale_deployment', { ...args, dry_run: true });
    await call('scale_deployment', args);
    expect(cachedCalls).toEqual([]);
    expect(liveCalls).toContain('getDeployment');
    // And a read after it shows the new replicas (read-your-writes through the cache).
    const after = await call('get_deployment', { namespace: 'shop', name: 'checkout' });
    expect(after.structuredContent).toMatchObject({ replicas: { desired: 4 } });
  });
});
