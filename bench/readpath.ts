/**
 * Benchmark: Sentinel's read path against its floors, side by side in one run (issue 17).
 *
 * Every target runs in its own forked process (bench/target.ts), so its CPU time
 * (`process.cpuUsage()` in that process) and memory are its own: a plain Express JSON echo (HTTP
 * floor), a bare MCP SDK stateless echo tool (SDK floor), and `sentinel serve` against the embedded
 * simulator over HTTPS (a generated 50-Pod namespace `bench`), with every production plugin (gate,
 * audit, metrics) and with none. Each round runs every row for `BENCH_SECONDS` with
 * `BENCH_CONCURRENCY` keep-alive clients sending JSON-RPC `tools/call` POSTs; figures are medians
 * over rounds, ratios are taken round by round then their median.
 *
 * Order (`BENCH_ORDER`, bench/round-order.ts): `abba` (default) runs each row twice per round for
 * half of it, in a Williams-design order then reversed, so no row keeps one place or one predecessor;
 * `rotate` is the previous fixed rotation (in A/A runs it favoured one slot 1.1–1.4x).
 *
 * Load generator (`BENCH_CLIENT`): `wrk` (the default when `wrk` is on PATH, Debian package `wrk`;
 * bench/wrk-load.ts: a C generator in its own process, a few µs of CPU per request, every answer's
 * status, result marker and `isError` checked by bench/wrk-post.lua; runs last whole seconds, so
 * ABBA's half-runs of 5 s run 3 s each), `undici` (the default without wrk, said so on stderr and in
 * the table's title; bench/load-generator.ts: in this process, one pre-built body, status and
 * result marker checked on every answer, one in 20 parsed whole), `node-http` (the previous one:
 * node:http, every answer parsed), or `both` (every row twice, `… [node-http]` beside it, to
 * compare the generators' CPU, `load ms/req`, in one run).
 *
 * Then, against the full server: `BENCH_READERS` (200) concurrent readers run while approve →
 * execute cycles of `scale_deployment` go through the approvals API (held call, approve by another
 * identity, retry); it reports approve → executed latency, the readers' 429s and timeouts, and the
 * server's peak RSS. Start-up is `fork` to the first `/healthz` answer.
 *
 * Built-in comparisons of `get_deployment` with every plugin: `BENCH_WORKERS` (default 2; 0 skips)
 * workers of `sentinel serve --workers N` against one process, and a PostgreSQL store (a throwaway
 * cluster from test/helpers/postgres.ts, when its binaries exist; `BENCH_POSTGRES=0` skips) against
 * SQLite. A workers target's CPU and RSS are its whole process tree's. To measure the workers
 * ratio of the server itself, keep the load off the cores: wrk as the generator and the read cache
 * on (the default; said so in the workers lines), so the simulator in this process is barely in the
 * loop, on an idle machine (the `others` column).
 *
 * Hooks: `BENCH_SERVE_OPTIONS` (JSON merged into the `sentinel serve` options, e.g.
 * `{"workers":2}` or `{"store":"postgres://…"}` once those options exist) runs the Sentinel rows on
 * that configuration; `BENCH_COMPARE_SERVE_OPTIONS` adds rows `sentinel*` with those options beside
 * the default ones (1 vs N workers, SQLite vs PostgreSQL).
 *
 * Every row also reports `load ms/req`: the load's CPU per request (this process: the simulator
 * answering the server's Kubernetes requests and an in-process generator; plus wrk's own process),
 * which shares the machine's cores with the server; and `others`: the cores that processes outside
 * the bench kept busy during the row (`/proc/stat` minus the server's and the load's CPU). The
 * workers comparison prints the RPS the cores allow once both are accounted for.
 *
 * Subsets and profiles: `BENCH_ROWS` (comma-separated parts of row names, e.g. `floor,get_deployment`)
 * runs only the matching rows (and checks only the targets they measure); `BENCH_LOAD=0` skips the
 * 200-reader run; `BENCH_CPU_PROF=<dir>` profiles every target's CPU during the measured
 * rounds (no start-up, no warm-up) into `<dir>/<target>.cpuprofile` (a workers target: its primary
 * there, each worker in `<dir>/<target>-worker<id>.cpuprofile`; summarise with
 * `node bench/cpu-profile.ts <file>`). `BENCH_BASELINE=<checkout>` adds rows `baseline …` served by another
 * checkout's bench/target.ts (e.g. `git archive main` unpacked beside this one, with node_modules):
 * before/after of a change in one run, under the same load.
 *
 *   npm run bench                                # 5 rounds of 5 s, concurrency 10
 *   BENCH_ROUNDS=2 BENCH_SECONDS=2 node bench/readpath.ts
 *   BENCH_ROWS=SDK,get_deployment BENCH_LOAD=0 BENCH_WORKERS=0 BENCH_POSTGRES=0 node bench/readpath.ts
 *
 * Prints a table and the targets of issue 17 with over/under; exit code 1 when a target is missed.
 */
import { fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdirSync, readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { availableParallelism } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Simulator } from '../deploy/index.ts';
import { createIdentityStore } from '../server/index.ts';
import type { TestPostgres } from '../test/helpers/postgres.ts';
import { startBenchNamespace } from './bench-namespace.ts';
import { runLoad } from './load-generator.ts';
import { MAIN_THREAD } from './proc-usage.ts';
import { findWrk, runWrk } from './wrk-load.ts';
import { roundOrder, type RowOrder } from './round-order.ts';
import { tsCacheExecArgv } from './ts-cache-argv.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARMUP_SECONDS = Number(process.env.BENCH_WARMUP_SECONDS ?? 2);
const CONCURRENCY = Number(process.env.BENCH_CONCURRENCY ?? 10);
const READERS = Number(process.env.BENCH_READERS ?? 200);
const CYCLES = Number(process.env.BENCH_CYCLES ?? 5);
const WORKERS = Number(process.env.BENCH_WORKERS ?? 2);
const POSTGRES = process.env.BENCH_POSTGRES !== '0';
const LOAD = process.env.BENCH_LOAD !== '0';
const ROW_FILTER = (process.env.BENCH_ROWS ?? '')
  .split(',')
  .map((part) => part.trim())
  .filter(Boolean);
const CPU_PROF_DIR = process.env.BENCH_CPU_PROF;
/** The rows' order within a round (`roundOrder`): `abba` (default) or `rotate`. */
const ORDER: RowOrder = process.env.BENCH_ORDER === 'rotate' ? 'rotate' : 'abba';
/** wrk on PATH (bench/wrk-load.ts), the default load generator when there. */
const WRK = findWrk();
/**
 * The load generator: `wrk` (default when on PATH), `undici` (bench/load-generator.ts, the default
 * without wrk), `node-http` (the previous one) or `both` (undici and node-http side by side).
 */
const CLIENT = chooseClient(process.env.BENCH_CLIENT);

function chooseClient(asked: string | undefined): 'wrk' | 'undici' | 'node-http' | 'both' {
  const known = (['wrk', 'undici', 'node-http', 'both'] as const).find((name) => name === asked);
  if (asked !== undefined && asked !== '' && known === undefined) {
    throw new Error(`BENCH_CLIENT=${asked}: must be one of wrk, undici, node-http, both`);
  }
  if (known === 'wrk' && !WRK) throw new Error('BENCH_CLIENT=wrk: no wrk on PATH (apt-get install wrk)');
  if (known) return known;
  if (WRK) return 'wrk';
  process.stderr.write(
    'wrk not on PATH (apt-get install wrk): load from the in-process undici generator, whose CPU shares the cores with the server\n',
  );
  return 'undici';
}
/** Another checkout of the project (with its node_modules), e.g. main, benchmarked beside this one. */
const BASELINE = process.env.BENCH_BASELINE;
const SERVE_OPTIONS = JSON.parse(process.env.BENCH_SERVE_OPTIONS ?? '{}') as Record<string, unknown>;
const COMPARE_OPTIONS = process.env.BENCH_COMPARE_SERVE_OPTIONS
  ? (JSON.parse(process.env.BENCH_COMPARE_SERVE_OPTIONS) as Record<string, unknown>)
  : undefined;
const TARGET = fileURLToPath(new URL('./target.ts', import.meta.url));
const LOCAL_TOKEN = 'bench-local-token-0123456789abcdef';
const NAMESPACE = 'bench';
const DEPLOYMENT = 'svc-1';

/** Issue 17's targets. */
const TARGETS = {
  getDeploymentVsSdk: 0.7,
  getDeploymentCpuMs: 1.5,
  listPodsVsSdk: 0.5,
  pluginsThroughputCost: 0.1,
  pluginsCpuMs: 0.3,
  approveToExecuteP99Ms: 1000,
  idleRssMb: 120,
  peakRssMb: 300,
  healthzMs: 1000,
  workersVsOne: 1.7,
};

/** A target's usage answer (bench/target.ts). */
interface Usage {
  cpuMicros: number;
  rss: number;
  /** Per process of a workers target: `primary`, `worker <cluster id>`. */
  processes?: { name: string; cpuMicros: number; preempted: number }[];
}

interface Target {
  name: string;
  /** The target.ts it runs (this checkout's, or a baseline's). */
  script: string;
  url: string;
  child: ChildProcess;
  /** CPU µs and RSS bytes of the target process (tree), now; a workers target's also per process. */
  usage(): Promise<Usage>;
  close(): Promise<void>;
  startupMs: number;
}

async function startTarget(
  kind: string,
  env: Record<string, string> = {},
  name = kind,
  script = TARGET,
): Promise<Target> {
  const started = performance.now();
  const child = fork(script, [kind], {
    execArgv: [...process.execArgv, ...tsCacheExecArgv(script)],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
    env: { ...process.env, ...env },
  });
  const [ready] = (await once(child, 'message')) as [{ type: string; url: string }];
  if (ready.type !== 'ready') throw new Error(`target ${kind} did not start`);
  // Start-up is measured to the first /healthz answer (Sentinel) or the first answer (floors).
  await new Promise<void>((resolve, reject) =>
    request(`${ready.url}/healthz`, (res) => {
      res.resume();
      res.on('end', resolve);
    })
      .on('error', reject)
      .end(),
  );
  const startupMs = performance.now() - started;
  // One question at a time: answers come back in order on the IPC channel.
  let asking: Promise<unknown> = Promise.resolve();
  const usage = () => {
    const next = asking.then(async () => {
      const answer = once(child, 'message') as Promise<[Usage]>;
      child.send({ type: 'usage' });
      return (await answer)[0];
    });
    asking = next.catch(() => {});
    return next;
  };
  return {
    name,
    script,
    url: ready.url,
    child,
    usage,
    startupMs,
    close: async () => {
      child.disconnect();
      if (child.exitCode === null) await once(child, 'exit');
    },
  };
}

interface Reply {
  status: number;
  body: string;
  retryAfter: string | undefined;
}

function post(
  agent: Agent,
  url: string,
  path: string,
  token: string | undefined,
  body: unknown,
): Promise<Reply> {
  const payload = JSON.stringify(body);
  return new Promise((resolve, reject) => {
    const req = request(
      `${url}${path}`,
      {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          accept: 'application/json, text/event-stream',
          'mcp-protocol-version': '2025-06-18',
          'content-length': Buffer.byteLength(payload),
          ...(token && { authorization: `Bearer ${token}` }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            body: Buffer.concat(chunks).toString('utf8'),
            retryAfter: res.headers['retry-after'],
          }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

let rpcId = 0;
const toolCall = (name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: ++rpcId,
  method: 'tools/call',
  params: { name, arguments: args },
});

/** One benchmarked row: a target and the request it answers. */
interface Row {
  name: string;
  target: () => Target;
  path: string;
  token: string | undefined;
  body: () => unknown;
  /** The row's load generator (`BENCH_CLIENT=both` adds a node-http twin of every row). */
  client?: 'wrk' | 'undici' | 'node-http';
}

interface RoundFigures {
  rps: number;
  p50: number;
  p99: number;
  cpuMsPerRequest: number;
  /**
   * CPU ms per request of this bench process (the load generator and the simulator answering the
   * server's Kubernetes requests): on a 2-core machine it competes with the server for the cores.
   */
  loadCpuMsPerRequest: number;
  /** Server CPU ms per request by process (workers targets: `primary`, `worker <id>`). */
  cpuByProcess: Record<string, number>;
  /** Involuntary context switches of each process's main thread per request (see cpuByProcess). */
  preemptedByProcess: Record<string, number>;
  /**
   * Cores that processes outside this bench (other users of the machine: tests, other benches)
   * kept busy on average during the row's runs: what the server could not have.
   */
  otherCores: number;
  errors: number;
}

/** What one run of a row counted (a round's figures merge its runs: `roundFigures`). */
interface Run {
  requests: number;
  /** Latencies in ms: one per request, or (wrk) 1000 points of the run's distribution. */
  latencies: number[];
  elapsed: number;
  serverCpuMicros: number;
  loadCpuMicros: number;
  /** Per process of the target: CPU µs and involuntary context switches during the run. */
  cpuMicrosByProcess: Record<string, number>;
  preemptedByProcess: Record<string, number>;
  /** CPU µs the whole machine spent during the run (/proc/stat), everyone's. */
  machineBusyMicros: number;
  errors: number;
}

/** CPU µs the whole machine has spent since boot, every core and process (/proc/stat, 100 Hz; 0 without /proc). */
function machineBusyMicros(): number {
  try {
    const [, ...ticks] = readFileSync('/proc/stat', 'utf8').split('\n')[0]!.trim().split(/\s+/).map(Number);
    // user nice system idle iowait irq softirq steal: all but idle and iowait are busy.
    const busy = ticks.slice(0, 8).reduce((sum, value, i) => (i === 3 || i === 4 ? sum : sum + value!), 0);
    return busy * 10_000;
  } catch {
    return 0;
  }
}

const percentile = (sorted: number[], p: number): number =>
  sorted.length === 0
    ? Number.NaN
    : sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
const median = (values: number[]): number =>
  percentile(
    [...values].sort((a, b) => a - b),
    50,
  );

/** Checks that an answer is a successful tool result (HTTP 200, no JSON-RPC error, not isError). */
function succeeded(reply: Pick<Reply, 'status' | 'body'>): boolean {
  if (reply.status !== 200) return false;
  const parsed = JSON.parse(reply.body) as { error?: unknown; result?: { isError?: boolean } };
  return parsed.error === undefined && parsed.result?.isError !== true;
}

/** `after - before` of `field` per process of a target. */
function perProcess(before: Usage, after: Usage, field: 'cpuMicros' | 'preempted'): Record<string, number> {
  return Object.fromEntries(
    (after.processes ?? []).map((usage) => [
      usage.name,
      usage[field] - (before.processes?.find((p) => p.name === usage.name)?.[field] ?? 0),
    ]),
  );
}

/** The previous generator (`BENCH_CLIENT=node-http`): node:http, every answer parsed whole. */
async function nodeHttpLoad(row: Row, target: Target, seconds: number, concurrency: number) {
  const agent = new Agent({ keepAlive: true, maxSockets: concurrency });
  const latencies: number[] = [];
  let errors = 0;
  const deadline = performance.now() + seconds * 1000;
  const started = performance.now();
  await Promise.all(
    Array.from({ length: concurrency }, async () => {
      while (performance.now() < deadline) {
        const t0 = performance.now();
        const reply = await post(agent, target.url, row.path, row.token, row.body());
        latencies.push(performance.now() - t0);
        if (!succeeded(reply)) {
          errors += 1;
          if (errors === 1)
            process.stderr.write(`${row.name}: ${reply.status} ${reply.body.slice(0, 300)}\n`);
        }
      }
    }),
  );
  agent.destroy();
  return { latencies, errors, elapsed: (performance.now() - started) / 1000 };
}

/** The headers of a row's POSTs. */
const rowHeaders = (row: Row): Record<string, string> => ({
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
  ...(row.token && { authorization: `Bearer ${row.token}` }),
});

/** The floors' HTTP echo answers its body; every MCP answer is a JSON-RPC result. */
const rowMarker = (row: Row) => (row.path === '/echo' ? '"hello"' : '"result":');

/** wrk (bench/wrk-load.ts) in its own process: every answer checked, its CPU counted as the load's. */
async function wrkLoad(row: Row, target: Target, seconds: number, concurrency: number) {
  const result = await runWrk({
    wrk: WRK!,
    url: target.url,
    path: row.path,
    headers: rowHeaders(row),
    body: JSON.stringify(row.body()),
    seconds,
    concurrency,
    marker: rowMarker(row),
  });
  if (result.firstError) process.stderr.write(`${row.name}: ${result.firstError}\n`);
  return result;
}

/** The lean generator (bench/load-generator.ts): one pre-built body, one answer in 20 parsed whole. */
async function leanLoad(row: Row, target: Target, seconds: number, concurrency: number) {
  const result = await runLoad({
    url: target.url,
    path: row.path,
    headers: rowHeaders(row),
    body: JSON.stringify(row.body()),
    seconds,
    concurrency,
    sampleEvery: 20,
    succeeded: (status, body) => succeeded({ status, body }),
    marker: rowMarker(row),
  });
  if (result.firstError) process.stderr.write(`${row.name}: ${result.firstError}\n`);
  return result;
}

async function runRow(row: Row, seconds: number, concurrency: number): Promise<Run> {
  const target = row.target();
  const before = await target.usage();
  const loadBefore = process.cpuUsage();
  const machineBefore = machineBusyMicros();
  const client = row.client ?? (CLIENT === 'both' ? 'undici' : CLIENT);
  let generated: {
    latencies: number[];
    errors: number;
    elapsed: number;
    requests?: number;
    cpuMicros?: number;
  };
  if (client === 'wrk') generated = await wrkLoad(row, target, seconds, concurrency);
  else if (client === 'node-http') generated = await nodeHttpLoad(row, target, seconds, concurrency);
  else generated = await leanLoad(row, target, seconds, concurrency);
  const { latencies, errors, elapsed } = generated;
  const load = process.cpuUsage(loadBefore);
  const machine = machineBusyMicros() - machineBefore;
  const after = await target.usage();
  return {
    requests: generated.requests ?? latencies.length,
    latencies,
    elapsed,
    serverCpuMicros: after.cpuMicros - before.cpuMicros,
    // This process (the in-process generator, the simulator) plus wrk's own process.
    loadCpuMicros: load.user + load.system + (generated.cpuMicros ?? 0),
    cpuMicrosByProcess: perProcess(before, after, 'cpuMicros'),
    preemptedByProcess: perProcess(before, after, 'preempted'),
    machineBusyMicros: machine,
    errors,
  };
}

/** One round's figures of a row from its runs in that round (ABBA: two half-length runs). */
function roundFigures(runs: Run[]): RoundFigures {
  const sum = (of: (run: Run) => number) => runs.reduce((total, run) => total + of(run), 0);
  const latencies = runs.flatMap((run) => run.latencies).sort((a, b) => a - b);
  const requests = sum((run) => run.requests);
  const byProcess = (field: 'cpuMicrosByProcess' | 'preemptedByProcess', per: number) => {
    const names = [...new Set(runs.flatMap((run) => Object.keys(run[field])))];
    return Object.fromEntries(names.map((name) => [name, sum((run) => run[field][name] ?? 0) / per]));
  };
  return {
    rps: requests / sum((run) => run.elapsed),
    p50: percentile(latencies, 50),
    p99: percentile(latencies, 99),
    cpuMsPerRequest: sum((run) => run.serverCpuMicros) / 1000 / requests,
    loadCpuMsPerRequest: sum((run) => run.loadCpuMicros) / 1000 / requests,
    cpuByProcess: byProcess('cpuMicrosByProcess', 1000 * requests),
    preemptedByProcess: byProcess('preemptedByProcess', requests),
    otherCores: Math.max(
      0,
      (sum((run) => run.machineBusyMicros) - sum((run) => run.serverCpuMicros + run.loadCpuMicros)) /
        1e6 /
        sum((run) => run.elapsed),
    ),
    errors: sum((run) => run.errors),
  };
}

/** Approve → execute cycles of scale_deployment while `readers` clients call get_deployment. */
async function underLoad(target: Target, tokens: { agent: string; alice: string }, sim: Simulator) {
  const agent = new Agent({ keepAlive: true, maxSockets: READERS + 4 });
  const writerAgent = new Agent({ keepAlive: true });
  let stop = false;
  const counts = { ok: 0, throttled: 0, withRetryAfter: 0, failed: 0 };
  let peakRss = 0;
  let sampling = false;
  const sampler = setInterval(() => {
    if (sampling) return;
    sampling = true;
    void target
      .usage()
      .then((u) => (peakRss = Math.max(peakRss, u.rss)))
      .finally(() => (sampling = false));
  }, 250);
  const approveToExecute: number[] = [];
  const cycles: number[] = [];
  const failedCycles: string[] = [];
  const patchesBefore = sim.mutationLog.length;
  const readers = Array.from({ length: READERS }, async () => {
    while (!stop) {
      try {
        const reply = await post(
          agent,
          target.url,
          '/mcp',
          tokens.agent,
          toolCall('get_deployment', { namespace: NAMESPACE, name: DEPLOYMENT }),
        );
        if (reply.status === 429) {
          counts.throttled += 1;
          if (reply.retryAfter !== undefined) counts.withRetryAfter += 1;
          await new Promise((r) => setTimeout(r, 50));
        } else if (succeeded(reply)) counts.ok += 1;
        else counts.failed += 1;
      } catch {
        counts.failed += 1;
      }
    }
  });
  try {
    await new Promise((r) => setTimeout(r, 1000)); // let the flood build up
    for (let i = 0; i < CYCLES; i += 1) {
      try {
        const args = { namespace: NAMESPACE, name: DEPLOYMENT, replicas: 26 + (i % 2), reason: 'bench' };
        const t0 = performance.now();
        const held = JSON.parse(
          (await post(writerAgent, target.url, '/mcp', tokens.agent, toolCall('scale_deployment', args)))
            .body,
        ) as { result?: { _meta?: { approval_request_id?: string } } };
        const id = held.result?._meta?.approval_request_id;
        if (!id) throw new Error(`scale_deployment was not held: ${JSON.stringify(held).slice(0, 300)}`);
        const t1 = performance.now();
        const approved = await post(writerAgent, target.url, `/approvals/${id}/approve`, tokens.alice, {});
        if (approved.status !== 200) throw new Error(`approve answered ${approved.status}: ${approved.body}`);
        const executed = JSON.parse(
          (await post(writerAgent, target.url, '/mcp', tokens.agent, toolCall('scale_deployment', args)))
            .body,
        ) as { result?: { _meta?: { approval_status?: string } } };
        if (executed.result?._meta?.approval_status !== 'executed') {
          throw new Error(`the approved retry did not execute: ${JSON.stringify(executed).slice(0, 300)}`);
        }
        const t2 = performance.now();
        approveToExecute.push(t2 - t1);
        cycles.push(t2 - t0);
      } catch (error) {
        // A cycle that fails (a timed-out preview, an approval that never executes) counts as infinitely slow.
        failedCycles.push((error as Error).message.slice(0, 300));
        approveToExecute.push(Number.POSITIVE_INFINITY);
      }
    }
  } finally {
    stop = true;
    await Promise.all(readers);
    clearInterval(sampler);
    agent.destroy();
    writerAgent.destroy();
  }
  approveToExecute.sort((a, b) => a - b);
  return {
    approveToExecuteP99Ms: percentile(approveToExecute, 99),
    approveToExecuteP50Ms: percentile(approveToExecute, 50),
    cycleMaxMs: Math.max(...cycles),
    failedCycles,
    readers: counts,
    peakRssMb: peakRss / 2 ** 20,
    mutations: sim.mutationLog.length - patchesBefore,
  };
}

async function main(): Promise<void> {
  const cluster = await startBenchNamespace('readpath');
  const { sim, dir, kubeconfigPath: kubeconfig } = cluster;
  const targets: Target[] = [];
  let postgres: TestPostgres | undefined;
  try {
    const sentinelEnv = (name: string, options: Record<string, unknown>) => {
      const dataDir = join(dir, name);
      mkdirSync(dataDir, { recursive: true });
      const identities = createIdentityStore({ tokensFile: join(dataDir, 'tokens.yaml') });
      const tokens = {
        agent: identities.add({ name: 'agent', roles: ['caller'] }).token,
        alice: identities.add({ name: 'alice', roles: ['approver'] }).token,
      };
      return {
        tokens,
        env: {
          BENCH_KUBECONFIG: kubeconfig,
          BENCH_DATA_DIR: dataDir,
          BENCH_SERVE_OPTIONS: JSON.stringify(options),
          SENTINEL_TOKEN: LOCAL_TOKEN,
        },
      };
    };
    const on = sentinelEnv('on', SERVE_OPTIONS);
    const off = sentinelEnv('off', SERVE_OPTIONS);
    const httpEcho = await startTarget('http-echo');
    const sdkEcho = await startTarget('sdk-echo');
    const sentinel = await startTarget('sentinel', on.env);
    const idleRssMb = (await sentinel.usage()).rss / 2 ** 20;
    const sentinelOff = await startTarget('sentinel-off', off.env);
    targets.push(httpEcho, sdkEcho, sentinel, sentinelOff);
    const compare = COMPARE_OPTIONS && sentinelEnv('compare', COMPARE_OPTIONS);
    const sentinelCompare = compare && (await startTarget('sentinel', compare.env, 'sentinel*'));
    if (sentinelCompare) targets.push(sentinelCompare);
    const several = WORKERS > 1 ? sentinelEnv('workers', { ...SERVE_OPTIONS, workers: WORKERS }) : undefined;
    const sentinelWorkers = several && (await startTarget('sentinel', several.env, `sentinel x${WORKERS}`));
    if (sentinelWorkers) targets.push(sentinelWorkers);
    const workersIdleRssMb = sentinelWorkers && (await sentinelWorkers.usage()).rss / 2 ** 20;
    const { findPostgresBin, startPostgres } = await import('../test/helpers/postgres.ts');
    postgres = POSTGRES && findPostgresBin() ? await startPostgres() : undefined;
    const pg = postgres && sentinelEnv('postgres', { ...SERVE_OPTIONS, store: await postgres.newDatabase() });
    const sentinelPg = pg && (await startTarget('sentinel', pg.env, 'sentinel pg'));
    if (sentinelPg) targets.push(sentinelPg);
    const baselineScript = BASELINE && join(BASELINE, 'bench', 'target.ts');
    const baseOn = baselineScript ? sentinelEnv('baseline-on', SERVE_OPTIONS) : undefined;
    const baseOff = baselineScript ? sentinelEnv('baseline-off', SERVE_OPTIONS) : undefined;
    const baseline = baselineScript && {
      on: await startTarget('sentinel', baseOn!.env, 'baseline', baselineScript),
      off: await startTarget('sentinel-off', baseOff!.env, 'baseline-off', baselineScript),
    };
    if (baseline) targets.push(baseline.on, baseline.off);

    const getDeployment = () => toolCall('get_deployment', { namespace: NAMESPACE, name: DEPLOYMENT });
    const allRows: Row[] = [
      {
        name: 'HTTP floor (Express JSON echo)',
        target: () => httpEcho,
        path: '/echo',
        token: undefined,
        body: () => ({ hello: 'world' }),
      },
      {
        name: 'SDK floor (MCP stateless echo)',
        target: () => sdkEcho,
        path: '/mcp',
        token: undefined,
        body: () => toolCall('echo', { text: 'hello' }),
      },
      {
        name: 'get_deployment (all plugins)',
        target: () => sentinel,
        path: '/mcp',
        token: on.tokens.agent,
        body: getDeployment,
      },
      {
        name: 'get_deployment (no plugins)',
        target: () => sentinelOff,
        path: '/mcp',
        token: off.tokens.agent,
        body: getDeployment,
      },
      {
        name: 'list_pods 50 Pods (all plugins)',
        target: () => sentinel,
        path: '/mcp',
        token: on.tokens.agent,
        body: () => toolCall('list_pods', { namespace: NAMESPACE }),
      },
      ...(sentinelWorkers && several
        ? [
            {
              name: `get_deployment (${WORKERS} workers)`,
              target: () => sentinelWorkers,
              path: '/mcp',
              token: several.tokens.agent,
              body: getDeployment,
            },
          ]
        : []),
      ...(sentinelPg && pg
        ? [
            {
              name: 'get_deployment (PostgreSQL)',
              target: () => sentinelPg,
              path: '/mcp',
              token: pg.tokens.agent,
              body: getDeployment,
            },
          ]
        : []),
      ...(sentinelCompare && compare
        ? [
            {
              name: 'get_deployment (sentinel*)',
              target: () => sentinelCompare,
              path: '/mcp',
              token: compare.tokens.agent,
              body: getDeployment,
            },
            {
              name: 'list_pods 50 Pods (sentinel*)',
              target: () => sentinelCompare,
              path: '/mcp',
              token: compare.tokens.agent,
              body: () => toolCall('list_pods', { namespace: NAMESPACE }),
            },
          ]
        : []),
      ...(baseline
        ? [
            {
              name: 'baseline get_deployment (all)',
              target: () => baseline.on,
              path: '/mcp',
              token: baseOn!.tokens.agent,
              body: getDeployment,
            },
            {
              name: 'baseline get_deployment (none)',
              target: () => baseline.off,
              path: '/mcp',
              token: baseOff!.tokens.agent,
              body: getDeployment,
            },
            {
              name: 'baseline list_pods 50 Pods (all)',
              target: () => baseline.on,
              path: '/mcp',
              token: baseOn!.tokens.agent,
              body: () => toolCall('list_pods', { namespace: NAMESPACE }),
            },
          ]
        : []),
    ];
    const filtered =
      ROW_FILTER.length === 0
        ? allRows
        : allRows.filter((row) => ROW_FILTER.some((part) => row.name.includes(part)));
    const rows =
      CLIENT === 'both'
        ? filtered.flatMap((row) => [
            { ...row, client: 'undici' as const },
            { ...row, name: `${row.name} [node-http]`, client: 'node-http' as const },
          ])
        : filtered;
    if (rows.length === 0) throw new Error(`BENCH_ROWS=${ROW_FILTER.join(',')} matches no row`);
    if (ROUNDS > 0) for (const row of rows) await runRow(row, WARMUP_SECONDS, CONCURRENCY);
    const rounds = new Map<string, RoundFigures[]>(rows.map((row) => [row.name, []]));
    if (CPU_PROF_DIR) mkdirSync(CPU_PROF_DIR, { recursive: true });
    // This checkout's one-process targets (a baseline checkout's target.ts may not know 'profile').
    const profiled = CPU_PROF_DIR ? targets.filter((target) => target.script === TARGET) : [];
    for (const target of profiled) target.child.send({ type: 'profile', action: 'start' });
    for (let round = 0; round < ROUNDS; round += 1) {
      const runs = new Map<string, Run[]>(rows.map((row) => [row.name, []]));
      for (const [row, share] of roundOrder(rows, round, ORDER)) {
        runs.get(row.name)!.push(await runRow(row, SECONDS * share, CONCURRENCY));
      }
      for (const row of rows) rounds.get(row.name)!.push(roundFigures(runs.get(row.name)!));
      // Each row's RPS this round: a trend over rounds says the warm-up was too short for the JIT.
      const perRow = rows.map((row) => `${row.name} ${rounds.get(row.name)!.at(-1)!.rps.toFixed(0)}`);
      process.stderr.write(`round ${round + 1}/${ROUNDS} done (RPS: ${perRow.join(', ')})\n`);
    }
    for (const target of profiled) {
      const file = join(CPU_PROF_DIR!, `${target.name.replace(/[^\w-]+/g, '_')}.cpuprofile`);
      const written = once(target.child, 'message');
      target.child.send({ type: 'profile', action: 'stop', file });
      const [{ files = [] }] = (await written) as [{ files?: string[] }];
      process.stderr.write(`CPU profile of ${target.name}: ${[file, ...files].join(', ')}\n`);
    }

    const of = (name: string) => rounds.get(name)!;
    const ran = (...names: string[]) => names.every((name) => rounds.has(name));
    const fig = (name: string) => ({
      rps: median(of(name).map((r) => r.rps)),
      p50: median(of(name).map((r) => r.p50)),
      p99: median(of(name).map((r) => r.p99)),
      cpu: median(of(name).map((r) => r.cpuMsPerRequest)),
      loadCpu: median(of(name).map((r) => r.loadCpuMsPerRequest)),
      otherCores: median(of(name).map((r) => r.otherCores)),
      errors: of(name).reduce((sum, r) => sum + r.errors, 0),
    });
    const ratio = (a: string, b: string) =>
      ran(a, b) ? median(of(a).map((r, i) => r.rps / of(b)[i]!.rps)) : Number.NaN;
    const diff = (a: string, b: string) =>
      median(of(a).map((r, i) => r.cpuMsPerRequest - of(b)[i]!.cpuMsPerRequest));
    const sdk = 'SDK floor (MCP stateless echo)';
    const gd = 'get_deployment (all plugins)';
    const gdOff = 'get_deployment (no plugins)';
    const lp = 'list_pods 50 Pods (all plugins)';
    const nameWidth = Math.max(34, ...rows.map((row) => row.name.length + 1));
    const lines: string[] = [
      `read path, ${ROUNDS} rounds x ${SECONDS} s (${ORDER === 'abba' ? 'each row twice per round for half of it, Williams order then reversed' : 'rotating order'}), ${CLIENT === 'wrk' ? 'wrk (own process, every answer checked)' : `${CLIENT} (in-process)`} load generator, concurrency ${CONCURRENCY}, medians of rounds; server CPU from process.cpuUsage() in each target's own process; others: cores kept busy by processes outside the bench (/proc/stat)`,
      `${'target'.padEnd(nameWidth)} ${'RPS'.padStart(8)} ${'p50 ms'.padStart(8)} ${'p99 ms'.padStart(8)} ${'CPU ms/req'.padStart(11)} ${'load ms/req'.padStart(12)} ${'others'.padStart(7)} ${'x SDK'.padStart(6)} ${'errors'.padStart(7)}`,
    ];
    for (const row of rows) {
      const f = fig(row.name);
      lines.push(
        `${row.name.padEnd(nameWidth)} ${f.rps.toFixed(0).padStart(8)} ${f.p50.toFixed(1).padStart(8)} ${f.p99.toFixed(1).padStart(8)} ${f.cpu.toFixed(2).padStart(11)} ${f.loadCpu.toFixed(2).padStart(12)} ${f.otherCores.toFixed(2).padStart(7)} ${ratio(row.name, sdk).toFixed(2).padStart(6)} ${String(f.errors).padStart(7)}`,
      );
    }
    process.stderr.write(`${lines.join('\n')}\n`);
    const load = LOAD ? await underLoad(sentinel, on.tokens, sim) : undefined;
    const checks: [string, boolean][] = [];
    if (ran(gd, sdk)) {
      checks.push(
        [
          `get_deployment ${ratio(gd, sdk).toFixed(2)}x the SDK floor (target >= ${TARGETS.getDeploymentVsSdk}x)`,
          ratio(gd, sdk) >= TARGETS.getDeploymentVsSdk,
        ],
        [
          `get_deployment ${fig(gd).cpu.toFixed(2)} ms CPU/request (target <= ${TARGETS.getDeploymentCpuMs})`,
          fig(gd).cpu <= TARGETS.getDeploymentCpuMs,
        ],
      );
    }
    if (ran(lp, sdk)) {
      checks.push([
        `list_pods ${ratio(lp, sdk).toFixed(2)}x the SDK floor (target >= ${TARGETS.listPodsVsSdk}x)`,
        ratio(lp, sdk) >= TARGETS.listPodsVsSdk,
      ]);
    }
    if (ran(gd, gdOff)) {
      const pluginsRatio = ratio(gd, gdOff);
      const pluginsCpu = diff(gd, gdOff);
      checks.push(
        [
          `gate+audit+metrics cost ${((1 - pluginsRatio) * 100).toFixed(1)}% throughput (target <= ${TARGETS.pluginsThroughputCost * 100}%)`,
          1 - pluginsRatio <= TARGETS.pluginsThroughputCost,
        ],
        [
          `gate+audit+metrics add ${pluginsCpu.toFixed(2)} ms CPU/call (target <= ${TARGETS.pluginsCpuMs})`,
          pluginsCpu <= TARGETS.pluginsCpuMs,
        ],
      );
    }
    if (load) {
      checks.push(
        [
          `approve -> executed p99 ${load.approveToExecuteP99Ms.toFixed(0)} ms with ${READERS} readers (target < ${TARGETS.approveToExecuteP99Ms})`,
          load.approveToExecuteP99Ms < TARGETS.approveToExecuteP99Ms,
        ],
        [
          `readers under load: ${load.readers.ok} ok, ${load.readers.throttled} 429 (${load.readers.withRetryAfter} with Retry-After), ${load.readers.failed} failed/timed out (target: 429s, no failures)`,
          load.readers.failed === 0,
        ],
        [
          `peak RSS under ${READERS} readers ${load.peakRssMb.toFixed(0)} MB (target <= ${TARGETS.peakRssMb})`,
          load.peakRssMb <= TARGETS.peakRssMb,
        ],
      );
    }
    checks.push(
      [
        `idle RSS ${idleRssMb.toFixed(0)} MB (target <= ${TARGETS.idleRssMb})`,
        idleRssMb <= TARGETS.idleRssMb,
      ],
      [
        `/healthz ${sentinel.startupMs.toFixed(0)} ms after fork (target <= ${TARGETS.healthzMs}; SDK echo ${sdkEcho.startupMs.toFixed(0)} ms)`,
        sentinel.startupMs <= TARGETS.healthzMs,
      ],
    );
    const workersRow = `get_deployment (${WORKERS} workers)`;
    if (sentinelWorkers && ran(workersRow, gd)) {
      const x = ratio(workersRow, gd);
      checks.push([
        `--workers ${WORKERS} ${x.toFixed(2)}x the RPS of one worker (target >= ${TARGETS.workersVsOne}x; /healthz ${sentinelWorkers.startupMs.toFixed(0)} ms after fork; idle RSS of primary + workers ${workersIdleRssMb?.toFixed(0)} MB)`,
        x >= TARGETS.workersVsOne,
      ]);
      // The load generator and the simulator run in this process, on the same cores as the workers:
      // what the cores allow is (cores × 1000) / (server + generator CPU ms per request).
      const cores = availableParallelism();
      const one = fig(gd);
      const many = fig(workersRow);
      const ceiling = (cores * 1000) / (many.cpu + many.loadCpu);
      // Per process, medians over rounds: the primary's share vs each worker's (CPU ms per request
      // of the whole run, so the workers' shares add up to what one worker alone would spend).
      const names = [...new Set(of(workersRow).flatMap((r) => Object.keys(r.cpuByProcess)))];
      const preempted = (row: string, name: string) =>
        median(of(row).map((r) => r.preemptedByProcess[name] ?? 0)).toFixed(2);
      const byProcess = names
        .map(
          (name) =>
            `${name} ${median(of(workersRow).map((r) => r.cpuByProcess[name] ?? 0)).toFixed(2)} (preempted ${preempted(workersRow, name)}/request)`,
        )
        .join(', ');
      // N workers are held by the cores they share with the generator: at most cores × 1000 / (SN + L)
      // RPS, so at most cores × 1000 / ((SN + L) × R1) times one worker's R1. One worker is not held to
      // one core: V8's helper threads take part of another (its main thread's share is shown).
      const main = median(of(gd).map((r) => r.cpuByProcess[MAIN_THREAD] ?? 0));
      const allowed = (cores: number, cpu: number) => (cores * 1000) / ((cpu + many.loadCpu) * one.rps);
      const bound = allowed(cores, many.cpu);
      lines.push(
        `--workers ${WORKERS} (serve options ${JSON.stringify(SERVE_OPTIONS)}${SERVE_OPTIONS.readCache !== 'off' ? ': read cache on, the simulator barely in the loop' : ': every read goes to the simulator, in this process'}) per process (server CPU ms/request): ${byProcess}; one worker ${one.cpu.toFixed(2)}, of it its main thread ${main.toFixed(2)} (${((one.cpu * one.rps) / 1000).toFixed(2)} cores busy at ${one.rps.toFixed(0)} RPS); CPU-bound ratio cores×1000/((SN+L)×R1) = ${cores}×1000/((${many.cpu.toFixed(2)}+${many.loadCpu.toFixed(2)})×${one.rps.toFixed(0)}) = x${bound.toFixed(2)}; one worker preempted ${preempted(gd, 'server')}/request`,
      );
      // Best case: N workers each spending one worker's CPU per request (no contention at all).
      const bestCase = allowed(cores, one.cpu);
      lines.push(
        `--workers ${WORKERS}: load generator + simulator ${many.loadCpu.toFixed(2)} ms/request on the same ${cores} cores (ceiling ${ceiling.toFixed(0)} RPS); even with no extra CPU per request on ${WORKERS} workers the cores allow x${bestCase.toFixed(2)} one worker, measured CPU-bound x${bound.toFixed(2)}: x${TARGETS.workersVsOne} is ${bestCase >= TARGETS.workersVsOne ? 'within reach' : 'out of reach on this machine with the generator and simulator beside the server'}`,
      );
      // Other users of the machine take cores from N workers, seldom from one (it needs one core).
      const left = cores - many.otherCores;
      lines.push(
        `--workers ${WORKERS}: other processes kept ${many.otherCores.toFixed(2)} of ${cores} cores busy during its rows (${one.otherCores.toFixed(2)} during one worker's)${left < cores - 0.25 ? `: with ${left.toFixed(2)} cores left the cores allow at most x${allowed(left, many.cpu).toFixed(2)}; measure on an idle machine` : ''}`,
      );
    }
    if (sentinelPg && ran('get_deployment (PostgreSQL)', gd)) {
      lines.push(
        `PostgreSQL store / SQLite: x${ratio('get_deployment (PostgreSQL)', gd).toFixed(2)} RPS, ${diff('get_deployment (PostgreSQL)', gd).toFixed(2)} ms CPU/request more`,
      );
    } else {
      lines.push('PostgreSQL row skipped (no PostgreSQL binaries, BENCH_POSTGRES=0, or not in BENCH_ROWS)');
    }
    if (sentinelCompare && ran('get_deployment (sentinel*)', gd)) {
      lines.push(
        `sentinel* (${JSON.stringify(COMPARE_OPTIONS)}) / sentinel: x${ratio('get_deployment (sentinel*)', gd).toFixed(2)} RPS`,
      );
    }
    if (sentinelCompare && ran('list_pods 50 Pods (sentinel*)', lp)) {
      lines.push(
        `sentinel* (${JSON.stringify(COMPARE_OPTIONS)}) / sentinel, list_pods: x${ratio('list_pods 50 Pods (sentinel*)', lp).toFixed(2)} RPS`,
      );
    }
    for (const [row, base] of [
      [gd, 'baseline get_deployment (all)'],
      [gdOff, 'baseline get_deployment (none)'],
      [lp, 'baseline list_pods 50 Pods (all)'],
    ] as const) {
      if (ran(row, base)) {
        lines.push(
          `${row} / baseline: x${ratio(row, base).toFixed(2)} RPS (rounds: ${of(row)
            .map((r, i) => `x${(r.rps / of(base)[i]!.rps).toFixed(2)}`)
            .join(' ')}), ${diff(row, base).toFixed(2)} ms CPU/request more (negative: less)`,
        );
      }
    }
    lines.push('targets (issue 17):');
    for (const [text, ok] of checks) lines.push(`  ${ok ? 'under' : 'OVER '}  ${text}`);
    lines.push(
      JSON.stringify({
        rows: Object.fromEntries(rows.map((row) => [row.name, fig(row.name)])),
        load,
        idleRssMb,
        startupMs: {
          sentinel: sentinel.startupMs,
          sdkEcho: sdkEcho.startupMs,
          ...(sentinelWorkers && { workers: sentinelWorkers.startupMs }),
        },
      }),
      '',
    );
    process.stdout.write(lines.join('\n'));
    if (checks.some(([, ok]) => !ok)) process.exitCode = 1;
  } finally {
    for (const target of targets) await target.close();
    await postgres?.stop();
    await cluster.close();
  }
}

await main();
