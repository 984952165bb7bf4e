/**
 * Benchmark: what the approval gate costs a read tool. `tools/call` of `get_cluster_version` through
 * the full MCP Streamable HTTP path (SDK client → Express → auth → MCP server → pipeline → handler),
 * against an in-process fake of the Kubernetes call, on three servers in the same process and run:
 * no middleware; the gate plugin only (shipped policy, SQLite store); and every production plugin of
 * `sentinel serve` (metrics and the hash-chained audit log, which writes a SQLite record per call,
 * then the gate).
 *
 * Latency is measured one call at a time, the servers taking turns call by call so all meet the same
 * machine load (p50/p99 in ms, pooled over rounds); throughput with `BENCH_CONCURRENCY` clients for
 * `BENCH_SECONDS` per round (calls/s, median of rounds; a cost is the median of the per-round
 * ratios; rounds rotate the servers' order). The gate middleware is also timed alone, in process, with a handler that returns at
 * once: its CPU cost per read call, free of the scheduling noise that dominates end-to-end p99 on a
 * shared machine. Budget (issue 6): the gate adds under 1 ms at p99 and costs under 10% of
 * throughput — judged on the gate's own p99 and the gate-only throughput. Exit code 1 when missed.
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
import {
  serverPlugins,
  startPlugins,
  type ServerPluginContext,
  type ServerPluginParts,
} from '../server/plugins.ts';
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

/** What `sentinel serve` hands its plugins, over the fake cluster, with a silent logger. */
function pluginContext(dataDir: string): ServerPluginContext {
  const logger = pino({ level: 'silent' });
  return {
    dataDir,
    policyFile: undefined,
    registry: createRegistry(allTools),
    identities: createIdentityStore({ tokensFile: join(dataDir, 'tokens.yaml'), startupToken: TOKEN }),
    kube: () => kube,
    logger,
    transport: 'http',
    approvals: createApprovalsHub(logger),
  };
}

/** A server with no middleware, the gate plugin only, or every production plugin. */
async function startServer(dataDir: string, plugins: 'off' | 'gate' | 'all') {
  const context = pluginContext(dataDir);
  const { registry, identities, logger } = context;
  const parts: ServerPluginParts =
    plugins === 'off'
      ? {}
      : plugins === 'gate'
        ? await gatePlugin(context)
        : await startPlugins(serverPlugins, context);
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

type Side = 'off' | 'gate' | 'all';
const SIDES: readonly Side[] = ['off', 'gate', 'all'];

const percentile = (sorted: number[], p: number): number =>
  sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;

/**
 * Sequential calls, one server after the other in turn (rotating which goes first), so that every
 * server meets the same machine load: latency differences are then the servers' own.
 */
async function interleavedLatencies(
  clients: Record<Side, Client[]>,
  count: number,
): Promise<Record<Side, number[]>> {
  const samples: Record<Side, number[]> = { off: [], gate: [], all: [] };
  for (let i = 0; i < count; i += 1) {
    for (let j = 0; j < SIDES.length; j += 1) {
      const side = SIDES[(i + j) % SIDES.length]!;
      const started = performance.now();
      await call(clients[side][0]!);
      samples[side].push(performance.now() - started);
    }
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
  const context = pluginContext(dataDir);
  const { registry, identities } = context;
  const parts = await gatePlugin(context);
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
  const servers = {
    off: await startServer(join(dir, 'off'), 'off'),
    gate: await startServer(join(dir, 'gate'), 'gate'),
    all: await startServer(join(dir, 'all'), 'all'),
  };
  const clients = {} as Record<Side, Client[]>;
  for (const side of SIDES) {
    clients[side] = await Promise.all(Array.from({ length: CONCURRENCY }, () => connect(servers[side].url)));
  }
  const samples: Record<Side, number[]> = { off: [], gate: [], all: [] };
  const rates: Record<Side, number[]> = { off: [], gate: [], all: [] };
  try {
    await interleavedLatencies(clients, 300); // warm-up
    for (let round = 0; round < ROUNDS; round += 1) {
      const measured = await interleavedLatencies(clients, LATENCY_CALLS);
      for (const side of SIDES) samples[side].push(...measured[side]);
      // Rotate the order so no side always runs first (or right after another).
      for (const side of SIDES.map((_, i) => SIDES[(i + round) % SIDES.length]!)) {
        rates[side].push(await throughput(clients[side], SECONDS));
      }
    }
  } finally {
    for (const side of SIDES) {
      await Promise.all(clients[side].map((client) => client.close()));
      await servers[side].close();
    }
    rmSync(dir, { recursive: true, force: true });
  }

  const median = (values: number[]) =>
    percentile(
      [...values].sort((a, b) => a - b),
      50,
    );
  const summary = (side: Side) => {
    const sorted = [...samples[side]].sort((a, b) => a - b);
    return {
      p50_ms: percentile(sorted, 50),
      p99_ms: percentile(sorted, 99),
      calls_per_s: median(rates[side]),
    };
  };
  const result = { off: summary('off'), gate: summary('gate'), all: summary('all') };
  // Rounds ran side by side: the median of the per-round ratios resists load from other processes.
  const costOf = (side: Side) => 1 - median(rates[side].map((rate, round) => rate / rates.off[round]!));
  const gateCost = costOf('gate');
  const allCost = costOf('all');
  const addedP99 = result.gate.p99_ms - result.off.p99_ms;
  // End-to-end p99 on a shared 2-core machine swings by milliseconds between runs of the same
  // server; the gate's own cost (in process) is the stable measure of what it adds at p99.
  const withinBudget = alone.p99_us < 1000 && gateCost < 0.1;
  const row = (name: string, side: Side) =>
    `${name.padEnd(22)} ${result[side].p50_ms.toFixed(3).padStart(8)} ${result[side].p99_ms.toFixed(3).padStart(8)} ${result[side].calls_per_s.toFixed(0).padStart(10)}`;
  process.stdout.write(
    [
      `tools/call ${TOOL} over MCP HTTP, ${ROUNDS} rotating rounds; latency ${LATENCY_CALLS} sequential calls/round, throughput ${CONCURRENCY} clients x ${SECONDS}s/round`,
      `${'server'.padEnd(22)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'calls/s'.padStart(10)}`,
      row('no middleware', 'off'),
      row('gate only', 'gate'),
      row('all plugins (+audit)', 'all'),
      `gate middleware alone (in process, no-op handler): mean ${alone.mean_us.toFixed(2)} µs, p99 ${alone.p99_us.toFixed(2)} µs over ${alone.calls} calls`,
      `gate only vs none: p99 ${addedP99 >= 0 ? '+' : ''}${addedP99.toFixed(3)} ms, throughput cost ${(gateCost * 100).toFixed(1)}%; all plugins vs none: throughput cost ${(allCost * 100).toFixed(1)}%`,
      `budget (gate adds < 1 ms at p99, < 10% throughput): ${withinBudget ? 'within budget' : 'OVER BUDGET'}`,
      JSON.stringify({
        ...result,
        gate_alone: alone,
        gate_added_p99_ms: addedP99,
        gate_throughput_cost: gateCost,
        all_plugins_throughput_cost: allCost,
        within_budget: withinBudget,
      }),
      '',
    ].join('\n'),
  );
  if (!withinBudget) process.exitCode = 1;
}

await main();
