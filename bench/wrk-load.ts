/**
 * wrk (https://github.com/wg/wrk, Debian package `wrk`) as the benches' load generator: a C
 * event loop that keeps `concurrency` keep-alive connections busy with one pre-built POST, so on a
 * 2-core machine the load takes a few µs of CPU per request instead of the ~0.1–0.4 ms of an
 * in-process Node generator (bench/load-generator.ts), and the cores go to the server measured.
 *
 * Every answer is checked by bench/wrk-post.lua, not a sample: status 200, the result marker in the
 * body, no `"isError":true`; a failed check, a connect/read/write error or a timeout counts as an
 * error. wrk's CPU is read from this process's reaped children's CPU time (`/proc/self/stat`,
 * cutime + cstime, 10 ms ticks) around the run, so it can be charged to the load like the
 * in-process generator's. wrk takes whole seconds only: `seconds` is rounded (at least 1) and the
 * result's `elapsed` is wrk's own measured duration.
 */
import { spawn } from 'node:child_process';
import { accessSync, constants, readFileSync } from 'node:fs';
import { delimiter, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { LoadRequest } from './load-generator.ts';

const SCRIPT = fileURLToPath(new URL('./wrk-post.lua', import.meta.url));

/**
 * `LoadRequest`'s fields as there, except: `headers` may hold no newline in a name or value,
 * `seconds` is rounded to whole seconds (at least 1: wrk takes no fractions), and one wrk thread
 * drives all `concurrency` connections.
 */
export interface WrkOptions extends LoadRequest {
  /** Path of the wrk executable (`findWrk`). */
  wrk: string;
  /** Bytes every successful answer's body contains (default `"result":`). */
  marker?: string;
}

export interface WrkResult {
  /** Answers received (wrk's `summary.requests`). */
  requests: number;
  /**
   * The latency distribution in ms as 1000 points of wrk's histogram (the quantiles 0.1 %, 0.2 %, … 99.9 %, then the maximum), not
   * one value per request: percentiles of it are the run's, and two runs of about the same size
   * merge by concatenation.
   */
  latencies: number[];
  /** Seconds wrk measured from its first request to its end. */
  elapsed: number;
  /** Failed answer checks plus connect, read, write errors and timeouts. */
  errors: number;
  /** Status and the first 300 characters of the first failed answer, or the socket errors. */
  firstError?: string;
  /** CPU µs wrk used (user + system). */
  cpuMicros: number;
}

/** Absolute path of an executable `wrk` on `PATH`, or undefined. */
export function findWrk(path: string = process.env.PATH ?? ''): string | undefined {
  for (const dir of path.split(delimiter).filter(Boolean)) {
    const candidate = join(dir, 'wrk');
    try {
      accessSync(candidate, constants.X_OK);
      return candidate;
    } catch {
      // not in this directory
    }
  }
  return undefined;
}

/** CPU µs of this process's children that have exited and been reaped (Linux /proc, 100 Hz ticks). */
function reapedChildrenCpuMicros(): number {
  const stat = readFileSync('/proc/self/stat', 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[13]) + Number(fields[14])) * 10_000;
}

interface Summary {
  requests: number;
  durationMicros: number;
  checked: number;
  failed: number;
  connect: number;
  read: number;
  write: number;
  status: number;
  timeout: number;
  latencyMicros: number[];
}

/**
 * Runs wrk against `options.url + options.path` for `options.seconds` and resolves with what it
 * counted. Never rejects on failed answers (counted in `errors`); rejects when wrk cannot run or
 * prints no summary (its output is in the error).
 */
export async function runWrk(options: WrkOptions): Promise<WrkResult> {
  for (const [name, value] of Object.entries(options.headers)) {
    if (/[\r\n]/.test(name + value)) throw new Error(`wrk header ${name}: a newline cannot be sent`);
  }
  const seconds = Math.max(1, Math.round(options.seconds));
  const cpuBefore = reapedChildrenCpuMicros();
  const child = spawn(
    options.wrk,
    [
      '--threads',
      '1',
      '--connections',
      String(options.concurrency),
      '--duration',
      `${seconds}s`,
      // A slow answer is measured, not dropped: the benches' answers take ms, not tens of seconds.
      '--timeout',
      '60s',
      '--script',
      SCRIPT,
      `${options.url}${options.path}`,
    ],
    {
      stdio: ['ignore', 'pipe', 'pipe'],
      env: {
        ...process.env,
        BENCH_WRK_BODY: options.body,
        BENCH_WRK_HEADERS: Object.entries(options.headers)
          .map(([name, value]) => `${name}: ${value}`)
          .join('\n'),
        BENCH_WRK_MARKER: options.marker ?? '"result":',
      },
    },
  );
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString('utf8')));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString('utf8')));
  const code = await new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', resolve);
  });
  const cpuMicros = reapedChildrenCpuMicros() - cpuBefore;
  const line = stdout.split('\n').find((text) => text.startsWith('BENCH_WRK '));
  if (code !== 0 || line === undefined) {
    throw new Error(`wrk exited with ${code} and no summary: ${(stdout + stderr).slice(0, 1000)}`);
  }
  const summary = JSON.parse(line.slice('BENCH_WRK '.length)) as Summary;
  const socketErrors = summary.connect + summary.read + summary.write + summary.timeout;
  const failure = stdout
    .split('\n')
    .find((text) => text.startsWith('BENCH_WRK_FIRST_FAILURE '))
    ?.slice('BENCH_WRK_FIRST_FAILURE '.length);
  const firstError =
    failure ??
    (socketErrors > 0
      ? `socket errors: connect ${summary.connect}, read ${summary.read}, write ${summary.write}, timeout ${summary.timeout}`
      : undefined);
  return {
    requests: summary.requests,
    latencies: summary.requests === 0 ? [] : summary.latencyMicros.map((micros) => micros / 1000),
    elapsed: summary.durationMicros / 1e6,
    // An answer wrk counted but the script did not see would be unchecked: count it as failed.
    errors: summary.failed + Math.max(0, summary.requests - summary.checked) + socketErrors,
    ...(firstError !== undefined && { firstError }),
    cpuMicros,
  };
}
