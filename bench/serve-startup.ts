/**
 * Benchmark: start-up and memory of `sentinel serve` (issue 17), side by side in one run with the
 * bare MCP SDK stateless echo server (bench/target.ts `sdk-echo`, the SDK floor).
 *
 * Each round starts both servers one after the other (order alternating), each in its own process:
 * Sentinel exactly as a user does (`node bin/sentinel.js serve --port P --kubeconfig … --data-dir …`,
 * token from SENTINEL_TOKEN, every production plugin) against the embedded simulator over HTTPS (a
 * generated 50-Pod namespace `bench`). Per server it reports:
 *
 * - /healthz: ms from spawn to the first answer of `GET /healthz` (the SDK echo: to its first
 *   HTTP answer), polled every 10 ms;
 * - started: ms from spawn to the first `/healthz` that no longer says `status: 'starting'` (the
 *   server is loaded and attached to the port it bound early; server/serve-listen.ts) — the idle
 *   figures below are taken from then on, never while it is still loading;
 * - /readyz: ms from the first `GET /readyz` (asked after the idle measurement) to its first 200
 *   (the cluster answered; the SDK echo: to its first answer);
 * - first call: ms of the first `get_deployment` (the SDK echo: `echo`) after /healthz;
 * - idle RSS: VmRSS `BENCH_IDLE_SECONDS` after started, before any other request; and again
 *   after the first call and `BENCH_IDLE_SECONDS` more (the idle footprint of a server in use);
 * - peak RSS: VmHWM (the kernel's high-water mark of the process's resident set, so no sample
 *   is missed) after `BENCH_READERS` concurrent readers called it for `BENCH_LOAD_SECONDS`.
 *
 * Figures are medians of `BENCH_ROUNDS` rounds; the Sentinel / SDK ratio is taken round by round.
 * Both servers of a round run under the same machine load, so on a shared machine the ratios are
 * the figures to compare across runs.
 *
 * `BENCH_BASELINE_BIN` (the bin/sentinel.js of another checkout, e.g. an export of `main` with this
 * checkout's node_modules linked in) adds that server as a row in every round, for before/after
 * ratios measured under the same load.
 *
 *   npm run bench:startup                           # 3 rounds, 200 readers for 5 s
 *   BENCH_ROUNDS=1 BENCH_LOAD_SECONDS=2 node bench/serve-startup.ts
 *   BENCH_BASELINE_BIN=/tmp/main/bin/sentinel.js npm run bench:startup
 *
 * Prints a table and issue 17's targets (/healthz within 1 s, idle RSS ≤ 120 MB, peak ≤ 300 MB)
 * with over/under; exit code 1 when one is missed.
 */
import { spawn, fork, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { readFileSync } from 'node:fs';
import { Agent, request } from 'node:http';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { startBenchNamespace } from './bench-namespace.ts';
import { tsCacheExecArgv } from './ts-cache-argv.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const READERS = Number(process.env.BENCH_READERS ?? 200);
const LOAD_SECONDS = Number(process.env.BENCH_LOAD_SECONDS ?? 5);
const IDLE_SECONDS = Number(process.env.BENCH_IDLE_SECONDS ?? 2);
const ROOT = fileURLToPath(new URL('..', import.meta.url));
const BASELINE_BIN = process.env.BENCH_BASELINE_BIN;
const TARGET = fileURLToPath(new URL('./target.ts', import.meta.url));
const TOKEN = 'bench-local-token-0123456789abcdef';
const NAMESPACE = 'bench';
const DEPLOYMENT = 'svc-1';

/** Issue 17's targets. */
const TARGETS = { healthzMs: 1000, idleRssMb: 120, peakRssMb: 300 };

/** VmRSS and VmHWM (peak) of a process, in MB (Linux /proc). */
function memoryOf(pid: number): { rssMb: number; peakMb: number } {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  const kb = (field: string) => Number(new RegExp(`${field}:\\s+(\\d+)`).exec(status)?.[1] ?? Number.NaN);
  return { rssMb: kb('VmRSS') / 1024, peakMb: kb('VmHWM') / 1024 };
}

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

interface Reply {
  status: number;
  body: string;
}

function send(url: string, options: { method?: string; agent?: Agent; body?: unknown } = {}): Promise<Reply> {
  const payload = options.body === undefined ? undefined : JSON.stringify(options.body);
  return new Promise((resolve, reject) => {
    const req = request(
      url,
      {
        method: options.method ?? 'GET',
        ...(options.agent && { agent: options.agent }),
        headers: {
          authorization: `Bearer ${TOKEN}`,
          ...(payload !== undefined && {
            'content-type': 'application/json',
            accept: 'application/json, text/event-stream',
            'mcp-protocol-version': '2025-06-18',
            'content-length': Buffer.byteLength(payload),
          }),
        },
      },
      (res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () =>
          resolve({ status: res.statusCode ?? 0, body: Buffer.concat(chunks).toString('utf8') }),
        );
      },
    );
    req.on('error', reject);
    req.end(payload);
  });
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls `url` every 10 ms until `accept(reply)`; resolves with the ms since `since` (a `performance.now()`). */
async function firstAnswer(url: string, since: number, accept: (reply: Reply) => boolean): Promise<number> {
  for (;;) {
    try {
      if (accept(await send(url))) return performance.now() - since;
    } catch {
      // not listening yet
    }
    await sleep(10);
  }
}

let rpcId = 0;
const toolCall = (name: string, args: Record<string, unknown>) => ({
  jsonrpc: '2.0',
  id: ++rpcId,
  method: 'tools/call',
  params: { name, arguments: args },
});

function succeeded(reply: Reply): boolean {
  if (reply.status !== 200) return false;
  const parsed = JSON.parse(reply.body) as { error?: unknown; result?: { isError?: boolean } };
  return parsed.error === undefined && parsed.result?.isError !== true;
}

interface Figures {
  healthzMs: number;
  startedMs: number;
  readyzMs: number;
  firstCallMs: number;
  idleRssMb: number;
  idleAfterUseRssMb: number;
  peakRssMb: number;
  /** Answers under load: 200, 429, other. */
  load: { ok: number; throttled: number; failed: number };
}

/** `READERS` clients calling `body()` on `url` back to back for `LOAD_SECONDS`. */
async function flood(url: string, body: () => unknown): Promise<Figures['load']> {
  const agent = new Agent({ keepAlive: true, maxSockets: READERS });
  const counts = { ok: 0, throttled: 0, failed: 0 };
  const deadline = performance.now() + LOAD_SECONDS * 1000;
  await Promise.all(
    Array.from({ length: READERS }, async () => {
      while (performance.now() < deadline) {
        try {
          const reply = await send(url, { method: 'POST', agent, body: body() });
          if (reply.status === 429) {
            counts.throttled += 1;
            await sleep(50);
          } else if (succeeded(reply)) counts.ok += 1;
          else counts.failed += 1;
        } catch {
          counts.failed += 1;
        }
      }
    }),
  );
  agent.destroy();
  return counts;
}

interface Server {
  child: ChildProcess;
  base: string;
  started: number;
  call: () => unknown;
  ready: (reply: Reply) => boolean;
}

async function measure(server: Server): Promise<Figures> {
  const { child, base, started } = server;
  try {
    const healthzMs = await firstAnswer(`${base}/healthz`, started, () => true);
    const startedMs = await firstAnswer(
      `${base}/healthz`,
      started,
      (reply) => !reply.body.includes('"starting"'),
    );
    await sleep(IDLE_SECONDS * 1000);
    const idleRssMb = memoryOf(child.pid!).rssMb;
    const readyzMs = await firstAnswer(`${base}/readyz`, performance.now(), server.ready);
    const t0 = performance.now();
    const first = await send(`${base}/mcp`, { method: 'POST', body: server.call() });
    const firstCallMs = performance.now() - t0;
    if (!succeeded(first)) throw new Error(`first call failed: ${first.status} ${first.body.slice(0, 300)}`);
    await sleep(IDLE_SECONDS * 1000);
    const idleAfterUseRssMb = memoryOf(child.pid!).rssMb;
    const load = await flood(`${base}/mcp`, server.call);
    const peakRssMb = memoryOf(child.pid!).peakMb;
    return { healthzMs, startedMs, readyzMs, firstCallMs, idleRssMb, idleAfterUseRssMb, peakRssMb, load };
  } finally {
    child.kill('SIGTERM');
    if (child.exitCode === null) await once(child, 'exit');
  }
}

async function sentinel(
  kubeconfig: string,
  dir: string,
  round: number,
  bin = join(ROOT, 'bin/sentinel.js'),
): Promise<Figures> {
  const port = await freePort();
  const dataDir = join(dir, `data-${round}-${bin === join(ROOT, 'bin/sentinel.js') ? 'this' : 'baseline'}`);
  const started = performance.now();
  const child = spawn(
    process.execPath,
    [bin, 'serve', '--port', String(port), '--kubeconfig', kubeconfig, '--data-dir', dataDir],
    { stdio: ['ignore', 'ignore', 'ignore'], env: { ...process.env, SENTINEL_TOKEN: TOKEN } },
  );
  return measure({
    child,
    base: `http://127.0.0.1:${port}`,
    started,
    call: () => toolCall('get_deployment', { namespace: NAMESPACE, name: DEPLOYMENT }),
    ready: (reply) => reply.status === 200,
  });
}

async function sdkEcho(): Promise<Figures> {
  const started = performance.now();
  const child = fork(TARGET, ['sdk-echo'], {
    execArgv: [...process.execArgv, ...tsCacheExecArgv(TARGET)],
    stdio: ['ignore', 'ignore', 'inherit', 'ipc'],
  });
  const [ready] = (await once(child, 'message')) as [{ url: string }];
  return measure({
    child,
    base: ready.url,
    started,
    call: () => toolCall('echo', { text: 'hello' }),
    ready: () => true, // no cluster: ready when it answers
  });
}

const median = (values: number[]): number => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
};

async function main(): Promise<void> {
  const cluster = await startBenchNamespace('startup');
  const { dir, kubeconfigPath: kubeconfig } = cluster;
  const results = { sentinel: [] as Figures[], sdk: [] as Figures[], baseline: [] as Figures[] };
  try {
    for (let round = 0; round < ROUNDS; round += 1) {
      const runs = [
        async () => results.sentinel.push(await sentinel(kubeconfig, dir, round)),
        async () => results.sdk.push(await sdkEcho()),
        ...(BASELINE_BIN
          ? [async () => results.baseline.push(await sentinel(kubeconfig, dir, round, BASELINE_BIN))]
          : []),
      ];
      // Rotating order: no server always starts first (or last) on a machine whose load drifts.
      for (let i = 0; i < runs.length; i += 1) await runs[(i + round) % runs.length]!();
      process.stderr.write(`round ${round + 1}/${ROUNDS} done\n`);
    }
  } finally {
    await cluster.close();
  }

  const columns: [keyof Omit<Figures, 'load'>, string][] = [
    ['healthzMs', '/healthz ms'],
    ['startedMs', 'started ms'],
    ['readyzMs', '/readyz ms'],
    ['firstCallMs', '1st call ms'],
    ['idleRssMb', 'idle MB'],
    ['idleAfterUseRssMb', 'used MB'],
    ['peakRssMb', 'peak MB'],
  ];
  const of = (rows: Figures[], key: keyof Omit<Figures, 'load'>) => median(rows.map((r) => r[key]));
  const ratio = (key: keyof Omit<Figures, 'load'>, base = results.sdk) =>
    median(results.sentinel.map((r, i) => r[key] / base[i]![key]));
  const cell = (value: number) => value.toFixed(value < 10 ? 2 : 0).padStart(12);
  const lines = [
    `serve start-up and memory, ${ROUNDS} rounds, medians; idle = ${IDLE_SECONDS} s after started ("used": after one call), peak = VmHWM after ${READERS} readers for ${LOAD_SECONDS} s`,
    `${'server'.padEnd(30)}${columns.map(([, title]) => title.padStart(12)).join('')}`,
    `${'sentinel serve (all plugins)'.padEnd(30)}${columns.map(([key]) => cell(of(results.sentinel, key))).join('')}`,
    `${'SDK floor (MCP stateless echo)'.padEnd(30)}${columns.map(([key]) => cell(of(results.sdk, key))).join('')}`,
    `${'ratio sentinel / SDK'.padEnd(30)}${columns.map(([key]) => `${ratio(key).toFixed(2)}x`.padStart(12)).join('')}`,
  ];
  if (BASELINE_BIN) {
    lines.push(
      `${'baseline (BENCH_BASELINE_BIN)'.padEnd(30)}${columns.map(([key]) => cell(of(results.baseline, key))).join('')}`,
      `${'ratio sentinel / baseline'.padEnd(30)}${columns.map(([key]) => `${ratio(key, results.baseline).toFixed(2)}x`.padStart(12)).join('')}`,
      `baseline: ${BASELINE_BIN}`,
    );
  }
  const load = results.sentinel.at(-1)!.load;
  lines.push(`sentinel under load (last round): ${load.ok} ok, ${load.throttled} 429, ${load.failed} failed`);
  const checks: [string, boolean][] = [
    [
      `/healthz ${of(results.sentinel, 'healthzMs').toFixed(0)} ms after spawn (target <= ${TARGETS.healthzMs}; SDK echo ${of(results.sdk, 'healthzMs').toFixed(0)} ms)`,
      of(results.sentinel, 'healthzMs') <= TARGETS.healthzMs,
    ],
    [
      `idle RSS ${of(results.sentinel, 'idleRssMb').toFixed(0)} MB (target <= ${TARGETS.idleRssMb}; after one call ${of(results.sentinel, 'idleAfterUseRssMb').toFixed(0)} MB)`,
      of(results.sentinel, 'idleRssMb') <= TARGETS.idleRssMb,
    ],
    [
      `peak RSS under ${READERS} readers ${of(results.sentinel, 'peakRssMb').toFixed(0)} MB (target <= ${TARGETS.peakRssMb})`,
      of(results.sentinel, 'peakRssMb') <= TARGETS.peakRssMb,
    ],
  ];
  lines.push('targets (issue 17):');
  for (const [text, ok] of checks) lines.push(`  ${ok ? 'under' : 'OVER '}  ${text}`);
  lines.push(JSON.stringify(results), '');
  process.stdout.write(lines.join('\n'));
  if (checks.some(([, ok]) => !ok)) process.exitCode = 1;
}

await main();
