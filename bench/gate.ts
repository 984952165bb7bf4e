/**
 * Benchmark: what the approval gate costs a read tool. `tools/call` of `get_cluster_version` through
 * the full MCP Streamable HTTP path (SDK client → Express → auth → MCP server → pipeline → handler),
 * against an in-process fake of the Kubernetes call, on two servers in the same process and run:
 * gate off (no middleware) and gate on (the production plugins of `sentinel serve`: metrics and the
 * hash-chained audit log, which write one SQLite record per call, then the gate with the shipped
 * policy and its SQLite store).
 *
 * Rounds alternate off/on so drift hits both alike. Latency is measured one call at a time (p50/p99
 * in ms, pooled over rounds); throughput with `BENCH_CONCURRENCY` clients for `BENCH_SECONDS` per
 * round (calls/s, median of rounds; the cost is the median of the paired rounds' ratios).
 * The gate middleware is also timed alone, in process, with a handler that returns at once: its CPU
 * cost per read call, free of the scheduling noise that dominates end-to-end p99 on a shared
 * machine. Budget (issue 6): the gate adds under 1 ms at p99 and costs under 10% of throughput;
 * judged on the gate's own p99 and the paired end-to-end throughput. Exit code 1 when missed.
 *
 *   npm run bench                    # defaults: 6 rounds, 1000 latency calls and 2 s throughput each
 *   BENCH_ROUNDS=5 BENCH_SECONDS=5 node bench/gate.ts
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pino from 'pino';
import { createServerApp } from '../server/app.ts';
import { createApprovalsHub } from '../server/gate/events.ts';
import { gatePlugin } from '../server/gate/plugin.ts';
import { createIdentityStore } from '../server/identity-store.ts';
import { listen } from '../server/listen.ts';
import { serverPlugins, startPlugins, type ServerPluginParts } from '../server/plugins.ts';
import { allTools, createRegistry } from '../tools/index.ts';
import type { KubeConnection, KubeReader, KubeWriter } from '../tools/kube/types.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const LATENCY_CALLS = Number(process.env.BENCH_LATENCY_CALLS ?? 1000);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 2);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 8);
const TOKEN = 'bench-token-0123456789abcdef';
const TOOL = 'get_cluster_version';

const cluster = { context: 'bench', server: 'https://127.0.0.1:6443' };
const version = { major: '1', minor: '31', gitVersion: 'v1.31.0', platform: 'linux/amd64' };
const kube: KubeConnection = {
  configured: true,
  cluster,
  reader: { cluster, getVersion: async () => version } as unknown as KubeReader,
  writer: {} as KubeWriter,
};

async function startServer(dataDir: string, gate: boolean) {
  const logger = pino({ level: 'silent' });
  const registry = createRegistry(allTools);
  const identities = createIdentityStore({ tokensFile: join(dataDir, 'tokens.yaml'), startupToken: TOKEN });
  const parts: ServerPluginParts = gate
    ? await startPlugins(serverPlugins, {
        dataDir,
        policyFile: undefined,
        registry,
        identities,
        kube: () => kube,
        logger,
        transport: 'http',
        approvals: createApprovalsHub(logger),
      })
    : {};
  const { app } = createServerApp({
    identities,
    allowedHosts: ['127.0.0.1', 'localhost'],
    registry,
    kube,
    logger,
    middlewares: parts.middlewares ?? [],
    extraRoutes: parts.routes ?? [],
  });
  const server = await listen(app, { host: '127.0.0.1', port: 0 });
  return {
    url: server.url,
    close: async () => {
      await server.close();
      await parts.close?.();
    },
  };
}

async function connect(url: string): Promise<Client> {
  const client = new Client({ name: 'sentinel-bench', version: '1' });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${url}/mcp`), {
      requestInit: { headers: { Authorization: `Bearer ${TOKEN}` } },
    }),
  );
  return client;
}

async function call(client: Client): Promise<void> {
  const result = await client.callTool({ name: TOOL, arguments: {} });
  if (result.isError) throw new Error(`bench call failed: ${JSON.stringify(result.content)}`);
}

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

async function latencies(client: Client, count: number): Promise<number[]> {
  const samples: number[] = [];
  for (let i = 0; i < count; i += 1) {
    const started = performance.now();
    await call(client);
    samples.push(performance.now() - started);
  }
  return samples;
}

async function throughput(clients: Client[], seconds: number): Promise<number> {
  const deadline = performance.now() + seconds * 1000;
  let calls = 0;
  await Promise.all(
    clients.map(async (client) => {
      while (performance.now() < deadline) {
        await call(client);
        calls += 1;
      }
    }),
  );
  return calls / seconds;
}

/**
 * The gate middleware alone, in process: CPU cost of a read call's pass through the gate (policy
 * evaluation and the fast path), with a handler that returns at once. Mean and p99 in microseconds.
 */
async function middlewareAlone(dataDir: string, calls: number) {
  const logger = pino({ level: 'silent' });
  const registry = createRegistry(allTools);
  const identities = createIdentityStore({ tokensFile: join(dataDir, 'tokens.yaml'), startupToken: TOKEN });
  const parts = await gatePlugin({
    dataDir,
    policyFile: undefined,
    registry,
    identities,
    kube: () => kube,
    logger,
    transport: 'http',
    approvals: createApprovalsHub(logger),
  });
  const gate = parts.middlewares![0]!;
  const tool = registry.get(TOOL)!;
  const result = { content: [{ type: 'text' as const, text: 'ok' }] };
  const call = { requestId: 'bench', identity: identities.get('local')!, tool, args: {}, cluster, notes: {} };
  const next = async () => result;
  for (let i = 0; i < 20_000; i += 1) await gate(call, next);
  const samples = new Float64Array(calls);
  const started = performance.now();
  for (let i = 0; i < calls; i += 1) {
    const t0 = performance.now();
    await gate(call, next);
    samples[i] = performance.now() - t0;
  }
  const mean = (performance.now() - started) / calls;
  await parts.close?.();
  const sorted = [...samples].sort((a, b) => a - b);
  return { mean_us: mean * 1000, p99_us: percentile(sorted, 99) * 1000, calls };
}

async function main(): Promise<void> {
  const dir = mkdtempSync(join(tmpdir(), 'sentinel-bench-'));
  const alone = await middlewareAlone(join(dir, 'alone'), 200_000);
  const off = await startServer(join(dir, 'off'), false);
  const on = await startServer(join(dir, 'on'), true);
  const sides = { off, on } as const;
  const clients = {
    off: await Promise.all(Array.from({ length: CONCURRENCY }, () => connect(off.url))),
    on: await Promise.all(Array.from({ length: CONCURRENCY }, () => connect(on.url))),
  };
  const samples: Record<'off' | 'on', number[]> = { off: [], on: [] };
  const rates: Record<'off' | 'on', number[]> = { off: [], on: [] };
  try {
    for (const side of ['off', 'on'] as const) await latencies(clients[side][0]!, 300); // warm-up
    for (let round = 0; round < ROUNDS; round += 1) {
      for (const side of round % 2 === 0 ? (['off', 'on'] as const) : (['on', 'off'] as const)) {
        samples[side].push(...(await latencies(clients[side][0]!, LATENCY_CALLS)));
        rates[side].push(await throughput(clients[side], SECONDS));
      }
    }
  } finally {
    for (const side of ['off', 'on'] as const) {
      await Promise.all(clients[side].map((client) => client.close()));
      await sides[side].close();
    }
    rmSync(dir, { recursive: true, force: true });
  }

  const median = (values: number[]) =>
    percentile(
      [...values].sort((a, b) => a - b),
      50,
    );
  const summary = (side: 'off' | 'on') => {
    const sorted = [...samples[side]].sort((a, b) => a - b);
    return {
      p50_ms: percentile(sorted, 50),
      p99_ms: percentile(sorted, 99),
      calls_per_s: median(rates[side]),
    };
  };
  const gateOff = summary('off');
  const gateOn = summary('on');
  const addedP99 = gateOn.p99_ms - gateOff.p99_ms;
  // Paired rounds ran back to back: the median of their ratios resists load from other processes.
  const throughputLoss = 1 - median(rates.on.map((rate, round) => rate / rates.off[round]!));
  // End-to-end p99 on a shared 2-core machine swings by milliseconds between runs of the same
  // server; the gate's own cost (in process) is the stable measure of what it adds at p99.
  const withinBudget = alone.p99_us < 1000 && throughputLoss < 0.1;
  const row = (name: string, s: typeof gateOff) =>
    `${name.padEnd(9)} ${s.p50_ms.toFixed(3).padStart(8)} ${s.p99_ms.toFixed(3).padStart(8)} ${s.calls_per_s.toFixed(0).padStart(10)}`;
  process.stdout.write(
    [
      `tools/call ${TOOL} over MCP HTTP, ${ROUNDS} alternating rounds; latency ${LATENCY_CALLS} sequential calls/round, throughput ${CONCURRENCY} clients x ${SECONDS}s/round`,
      `${'gate'.padEnd(9)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'calls/s'.padStart(10)}`,
      row('off', gateOff),
      row('on', gateOn),
      `gate middleware alone (in process, no-op handler): mean ${alone.mean_us.toFixed(2)} µs, p99 ${alone.p99_us.toFixed(2)} µs over ${alone.calls} calls (budget: p99 < 1 ms)`,
      `end-to-end p99 difference on - off: ${addedP99.toFixed(3)} ms; throughput cost: ${(throughputLoss * 100).toFixed(1)}% (budget < 10%) → ${withinBudget ? 'within budget' : 'OVER BUDGET'}`,
      JSON.stringify({
        gate_off: gateOff,
        gate_on: gateOn,
        gate_alone: alone,
        added_p99_ms: addedP99,
        throughput_loss: throughputLoss,
        within_budget: withinBudget,
      }),
      '',
    ].join('\n'),
  );
  if (!withinBudget) process.exitCode = 1;
}

await main();
