/**
 * `sentinel serve --workers 2` as one server on the SQLite store of its data directory: the real
 * CLI in its own processes (a primary and two workers sharing the port), the embedded simulator as
 * the cluster, counting what the cluster actually received — the replica suite's concurrency test
 * with workers instead of replicas.
 */
import type { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readdirSync, readFileSync } from 'node:fs';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { startSimulator, type MutationRecord, type Simulator } from '../../deploy/sim/index.ts';
import { openAuditLog } from '../../server/audit/store.ts';
import { PendingResultMetaSchema } from '../../server/gate/index.ts';
import { createIdentityStore } from '../../server/identity-store.ts';
import { SINGLE_THREADED_GC_FLAG } from '../../server/worker-gc.ts';
import { connectClient, mcpHeaders, rawRequest, tempDataDir } from '../helpers/server.ts';

const BIN = fileURLToPath(new URL('../../bin/sentinel.js', import.meta.url));
const checkout = { namespace: 'shop', name: 'checkout' };

/** A `sentinel serve --workers <n>` process tree; resolves once every worker listens. */
async function startWorkers(dataDir: string, kubeconfig: string, workers: number) {
  const env = { ...process.env };
  delete env.SENTINEL_TOKEN;
  delete env.SENTINEL_STORE_URL;
  env.SENTINEL_LOG_LEVEL = 'info'; // the test reads which worker logged each tool call
  const child = spawn(
    process.execPath,
    [
      BIN,
      'serve',
      '--port',
      '0',
      '--workers',
      String(workers),
      '--data-dir',
      dataDir,
      '--kubeconfig',
      kubeconfig,
    ],
    { env, stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  let stdout = '';
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  while (!/All \d+ workers listening/.test(stderr)) {
    if (child.exitCode !== null) throw new Error(`serve --workers exited ${child.exitCode}: ${stderr}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  const url = /listening on (http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(stderr)![1]!;
  return { child, url, stderr: () => stderr, stdout: () => stdout };
}

describe('sentinel serve --workers 2 on the SQLite store', () => {
  let sim: Simulator;
  const data = tempDataDir();
  const kubeconfig = join(data.dir, 'kubeconfig');
  const children: ChildProcess[] = [];
  beforeAll(async () => {
    sim = await startSimulator({ scenario: 'bad-image-rollout', timeScale: 0, kubeconfigPath: kubeconfig });
  });
  afterAll(async () => {
    for (const child of children)
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await sim?.close();
    data.cleanup();
  });
  /** Scales that reached the cluster (the tool's annotation patch before each is not counted). */
  const scalesOf = (name: string) =>
    sim.mutationLog.filter(
      (m: MutationRecord) =>
        m.verb === 'patch' &&
        m.resource === 'deployments.apps' &&
        m.subresource === 'scale' &&
        m.name === name &&
        !m.path.includes('dryRun'),
    );

  it(
    'executes 150 concurrent identical retries of one approved call, spread over both workers, exactly once; the audit chain stays linear; one discovery file',
    { timeout: 300_000 },
    async () => {
      const dir = join(data.dir, 'server');
      const identities = createIdentityStore({ tokensFile: join(dir, 'tokens.yaml') });
      const agentToken = identities.add({ name: 'agent', roles: ['caller'] }).token;
      const aliceToken = identities.add({ name: 'alice', roles: ['approver'] }).token;
      const server = await startWorkers(dir, kubeconfig, 2);
      children.push(server.child);
      const api = async (method: string, path: string) => {
        const response = await fetch(`${server.url}${path}`, {
          method,
          headers: { authorization: `Bearer ${aliceToken}`, connection: 'close' },
        });
        return (await response.json()) as Record<string, unknown>;
      };
      const clients: Client[] = [];
      try {
        // One discovery file, written by the primary (which outlives the workers), for the lead's URL.
        const [entry] = readdirServers(dir);
        expect(entry).toMatchObject({ url: server.url, pid: server.child.pid, kind: 'serve' });
        expect(server.stderr().match(/Sentinel MCP server listening on/g)).toHaveLength(1);
        expect(server.stderr()).toMatch(/Workers: 2 processes share this port/);
        // Two workers on a machine of at most two cores: each collects garbage on its own main thread.
        const workerPids = /All 2 workers listening \(pids (\d+), (\d+);/.exec(server.stderr())!.slice(1);
        for (const pid of workerPids) {
          const argv = readFileSync(`/proc/${pid}/cmdline`, 'utf8').split('\0');
          expect(argv.includes(SINGLE_THREADED_GC_FLAG), argv.join(' ')).toBe(availableParallelism() <= 2);
        }

        const agent = await connectClient(server.url, agentToken);
        clients.push(agent);
        const call = (client: Client) =>
          // No client-side timeout: a loaded machine is slow, and speed is the bench's business.
          client.callTool({ name: 'scale_deployment', arguments: { ...checkout, replicas: 6 } }, undefined, {
            timeout: 290_000,
          });
        const id = PendingResultMetaSchema.parse((await call(agent))._meta).approval_request_id;
        expect((await api('POST', `/approvals/${id}/approve`)).status).toBe('approved');
        const before = scalesOf('checkout').length;
        for (let i = 0; i < 6; i += 1) clients.push(await connectClient(server.url, agentToken));
        const results = await Promise.all(
          Array.from({ length: 150 }, (_, i) => call(clients[1 + (i % (clients.length - 1))]!)),
        );
        expect(scalesOf('checkout').length - before, JSON.stringify(scalesOf('checkout'))).toBe(1);
        const statuses = results.map((r) => (r._meta as { approval_status?: string }).approval_status);
        expect(statuses.filter((status) => status === 'executed')).toHaveLength(1);
        expect(results.filter((r) => r.isError).map((r) => JSON.stringify(r.content))).toEqual([]);
        expect(await api('GET', `/approvals/${id}`)).toMatchObject({
          status: 'executed',
          executions: [{ status: 'succeeded' }],
        });
        await Promise.all(clients.splice(0).map((client) => client.close()));

        server.child.kill('SIGTERM');
        await once(server.child, 'exit');
        expect(server.child.exitCode).toBe(0);
        // Both workers answered retries (each logs its tool calls with its own pid; flushed at exit).
        const pids = new Set(
          server
            .stdout()
            .split('\n')
            .filter((line) => line.includes('"tool":"scale_deployment"'))
            .map((line) => (JSON.parse(line) as { pid: number }).pid),
        );
        expect(pids.size).toBe(2);
        expect(pids.has(server.child.pid!)).toBe(false);

        expect(readdirServers(dir)).toEqual([]);
        const audit = openAuditLog(dir);
        expect(audit.verify().broken).toBeUndefined();
        const calls = audit.records().filter((r) => r.kind === 'tool_call' && r.tool === 'scale_deployment');
        expect(calls).toHaveLength(151);
        await audit.close();
      } finally {
        await Promise.all(clients.map((client) => client.close()));
      }
    },
  );

  it(
    'stops on SIGTERM while its workers are still starting: no worker left running, no discovery file',
    { timeout: 120_000 },
    async () => {
      const dir = join(data.dir, 'stop-while-starting');
      const env = { ...process.env };
      delete env.SENTINEL_TOKEN;
      delete env.SENTINEL_STORE_URL;
      const child = spawn(
        process.execPath,
        [BIN, 'serve', '--port', '0', '--workers', '4', '--data-dir', dir, '--kubeconfig', kubeconfig],
        { env, stdio: ['ignore', 'ignore', 'pipe'] },
      );
      children.push(child);
      let stderr = '';
      child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
      // The lead's banner: the primary is forking the other three now (a new user's SIGTERM here
      // left them serving on, with the discovery file naming the stopped lead's port).
      while (!/Sentinel MCP server listening on/.test(stderr)) {
        if (child.exitCode !== null) throw new Error(`serve exited ${child.exitCode}: ${stderr}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      child.kill('SIGTERM');
      await once(child, 'exit');
      expect(child.exitCode, stderr).toBe(0);
      // Workers exit after the primary has seen them go; give a straggler the time to be reaped.
      for (let i = 0; i < 100 && processesNaming(dir).length > 0; i += 1) {
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      expect(processesNaming(dir)).toEqual([]);
      expect(readdirServers(dir)).toEqual([]);
    },
  );

  it(
    'answers /metrics on every worker with the counters summed over both workers',
    { timeout: 300_000 },
    async () => {
      const dir = join(data.dir, 'metrics');
      const identities = createIdentityStore({ tokensFile: join(dir, 'tokens.yaml') });
      const agentToken = identities.add({ name: 'agent', roles: ['caller'] }).token;
      const server = await startWorkers(dir, kubeconfig, 2);
      children.push(server.child);
      const calls = 12;
      // A connection per request (`connection: close`): the primary hands each new connection to
      // the next worker, so both serve calls and both answer scrapes.
      for (let id = 1; id <= calls; id += 1) {
        const response = await rawRequest(`${server.url}/mcp`, {
          method: 'POST',
          headers: { ...mcpHeaders(agentToken), connection: 'close' },
          body: JSON.stringify({
            jsonrpc: '2.0',
            id,
            method: 'tools/call',
            params: { name: 'get_deployment', arguments: checkout },
          }),
        });
        expect(response.status).toBe(200);
        expect(response.body).toContain('"result"');
        expect(response.body).not.toContain('"isError":true');
      }
      /** The sum of `name`'s samples for get_deployment (every outcome). */
      const counted = (text: string, name: string) =>
        text
          .split('\n')
          .filter((line) => line.startsWith(`${name}{`) && line.includes('tool="get_deployment"'))
          .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
      for (let i = 0; i < 4; i += 1) {
        const response = await rawRequest(`${server.url}/metrics`, {
          headers: { authorization: `Bearer ${agentToken}`, connection: 'close' },
        });
        expect(response.status).toBe(200);
        expect(response.headers['content-type']).toMatch(/^text\/plain/);
        expect(counted(response.body, 'sentinel_tool_calls_total')).toBe(calls);
        expect(counted(response.body, 'sentinel_tool_call_duration_seconds_count')).toBe(calls);
      }
      server.child.kill('SIGTERM');
      await once(server.child, 'exit');
      // Both workers served calls (each logs its tool calls with its own pid; flushed at exit), so
      // no single worker's own counters could have shown the total.
      const pids = new Set(
        server
          .stdout()
          .split('\n')
          .filter((line) => line.includes('"tool":"get_deployment"'))
          .map((line) => (JSON.parse(line) as { pid: number }).pid),
      );
      expect(pids.size).toBe(2);
    },
  );
});

/** Pids of live processes whose command line names `dataDir` (Linux /proc). */
function processesNaming(dataDir: string): number[] {
  const pids: number[] = [];
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      const cmdline = readFileSync(`/proc/${entry}/cmdline`, 'utf8');
      const state = /^State:\s+(\S)/m.exec(readFileSync(`/proc/${entry}/status`, 'utf8'))?.[1];
      if (cmdline.split('\0').includes(dataDir) && state !== 'Z') pids.push(Number(entry));
    } catch {
      // gone meanwhile
    }
  }
  return pids;
}

/** The discovery files of `dataDir` (`servers/<port>.json`), parsed. */
function readdirServers(dataDir: string): Record<string, unknown>[] {
  try {
    return readdirSync(join(dataDir, 'servers'))
      .filter((name) => name.endsWith('.json'))
      .map(
        (name) => JSON.parse(readFileSync(join(dataDir, 'servers', name), 'utf8')) as Record<string, unknown>,
      );
  } catch {
    return [];
  }
}
