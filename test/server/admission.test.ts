/**
 * Admission control (server/admission.ts) through a real `sentinel serve`: a flood of reads from one
 * identity gets 429 with Retry-After and a JSON-RPC error beyond its concurrency and queue, while a
 * held → approved → executed cycle of a destructive call runs to the end with every admitted read
 * still blocked (its lane and the approvals API never wait behind reads). Ordering, never timing.
 */
import { join } from 'node:path';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { admissionLimitsFromEnv, DEFAULT_ADMISSION_LIMITS } from '../../server/admission.ts';
import { parseServeOptions } from '../../server/config.ts';
import { createIdentityStore } from '../../server/identity-store.ts';
import { startServe } from '../../server/serve.ts';
import { createRegistry, defineTool, toolInput } from '../../tools/index.ts';
import { FakeCluster } from './gate/fixtures/fake-cluster.ts';
import { fixtureDeployment, scaleDeployment } from './gate/fixtures/tools.ts';
import { mcpHeaders, rawRequest, tempDataDir, type RawResponse } from '../helpers/server.ts';

/** A read tool that answers only once `release()` is called. */
function blockingRead() {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let entered = 0;
  const tool = defineTool({
    name: 'slow_read',
    title: 'Slow read (fixture)',
    description: 'Fixture: a read that waits until the test releases it.',
    risk: 'read',
    input: toolInput({ n: z.number().int().describe('Sequence number.') }),
    async handler() {
      entered += 1;
      await released;
      return { text: 'read done' };
    },
  });
  return { tool, release, entered: () => entered };
}

const call = (name: string, args: Record<string, unknown>, id = 1) =>
  JSON.stringify({ jsonrpc: '2.0', id, method: 'tools/call', params: { name, arguments: args } });

describe('admission control', () => {
  it('floods of reads get 429 + Retry-After; an approve → execute cycle completes meanwhile', async () => {
    const data = tempDataDir();
    const identities = createIdentityStore({ tokensFile: join(data.dir, 'tokens.yaml') });
    const agent = identities.add({ name: 'agent', roles: ['caller'] }).token;
    const alice = identities.add({ name: 'alice', roles: ['approver'] }).token;
    const cluster = new FakeCluster();
    cluster.add(fixtureDeployment('shop', 'checkout'));
    const slow = blockingRead();
    const server = await startServe(
      parseServeOptions({ port: 0, dataDir: data.dir, maxConcurrentReads: 2, readQueue: 2 }),
      { stderr: () => {}, env: { SENTINEL_RETRY_AFTER_SECONDS: '3' } },
      {
        registry: createRegistry([slow.tool, scaleDeployment]),
        kube: { configured: true, cluster: cluster.cluster, reader: cluster.reader, writer: cluster.writer },
        logger: pino({ level: 'silent' }),
      },
    );
    const url = `${server.url}/mcp`;
    const post = (token: string, body: string) =>
      rawRequest(url, { method: 'POST', headers: mcpHeaders(token), body });
    const api = async (token: string, path: string) => {
      const response = await rawRequest(`${server.url}${path}`, {
        method: 'POST',
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: '{}',
      });
      return response;
    };
    try {
      const order: string[] = [];
      let refusedCount = 0;
      let allRefused!: () => void;
      const eightRefused = new Promise<void>((resolve) => (allRefused = resolve));
      const reads: Promise<RawResponse>[] = Array.from({ length: 12 }, (_, n) =>
        post(agent, call('slow_read', { n }, n)).then((response) => {
          if (response.status === 429 && ++refusedCount === 8) allRefused();
          if (response.status === 200) order.push('read');
          return response;
        }),
      );
      // 2 running + 2 queued; the other 8 are refused without waiting.
      await eightRefused;

      // The destructive call, its approval and its execution, while every admitted read is blocked.
      const args = { namespace: 'shop', name: 'checkout', replicas: 5 };
      const held = await post(agent, call('scale_deployment', args));
      const id = (held.json as { result: { _meta: { approval_request_id: string } } }).result._meta
        .approval_request_id;
      const approved = await api(alice, `/approvals/${id}/approve`);
      expect(approved.status, approved.body + held.body).toBe(200);
      const executed = await post(agent, call('scale_deployment', args));
      expect(
        (executed.json as { result: { _meta: { approval_status: string } } }).result._meta,
      ).toMatchObject({
        approval_status: 'executed',
      });
      order.push('executed');
      expect(slow.entered()).toBeLessThanOrEqual(2);

      slow.release();
      const answers = await Promise.all(reads);
      expect(answers.filter((r) => r.status === 200)).toHaveLength(4);
      const throttled = answers.filter((r) => r.status === 429);
      expect(throttled).toHaveLength(8);
      for (const response of throttled) {
        expect(response.headers['retry-after']).toBe('3');
        expect(response.json).toMatchObject({ jsonrpc: '2.0', error: { code: -32000 } });
        expect((response.json as { error: { message: string } }).error.message).toContain("identity 'agent'");
      }
      expect(order).toEqual(['executed', 'read', 'read', 'read', 'read']);
      expect(slow.entered()).toBe(4);
    } finally {
      slow.release();
      await server.close();
      data.cleanup();
    }
  });
});

describe('admission limits', () => {
  it('come from flags over env over defaults, and a bad value names the variable', () => {
    expect(admissionLimitsFromEnv({})).toEqual(DEFAULT_ADMISSION_LIMITS);
    expect(
      admissionLimitsFromEnv(
        { SENTINEL_MAX_CONCURRENT_READS: '3', SENTINEL_READ_QUEUE: '0' },
        { readQueue: 5 },
      ),
    ).toEqual({
      ...DEFAULT_ADMISSION_LIMITS,
      maxConcurrentReads: 3,
      readQueue: 5,
    });
    expect(() => admissionLimitsFromEnv({ SENTINEL_MAX_CONCURRENT_READS: '0' })).toThrow(
      /SENTINEL_MAX_CONCURRENT_READS must be a whole number >= 1, got '0'/,
    );
    expect(() => parseServeOptions({ readQueue: '-1' })).toThrow(/--read-queue/);
  });
});
