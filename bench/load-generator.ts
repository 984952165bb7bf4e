/**
 * A lean closed-loop HTTP load generator for the benches: `concurrency` clients, each sending the
 * same pre-built POST again as soon as its answer ends, over one undici `Pool` of keep-alive
 * connections (undici's dispatch API: no streams, no per-request body building).
 *
 * It reads as little of each answer as it can, so that on a 2-core machine the generator takes as
 * little CPU from the server it measures as possible: every answer's status and whether its first
 * chunk carries the MCP result marker (`"result":`); one answer in `sampleEvery` (and every answer
 * failing those checks) is collected whole and judged by `succeeded` (e.g. no JSON-RPC error, not
 * `isError`). The 429s and their `Retry-After` are counted, never retried.
 */
import { Pool } from 'undici';

/** The one request a load sends again and again, and for how long (shared by bench/wrk-load.ts). */
export interface LoadRequest {
  /** Origin, e.g. `http://127.0.0.1:8080`. */
  url: string;
  path: string;
  /** Request headers (content-type, accept, authorization, …), sent as given. */
  headers: Record<string, string>;
  /** The request body, serialised once and sent as is on every request. */
  body: string;
  /** Run time, seconds. */
  seconds: number;
  /** Keep-alive connections, each one request at a time. */
  concurrency: number;
}

export interface LoadOptions extends LoadRequest {
  /** Judge every n-th answer whole (1: every answer). */
  sampleEvery: number;
  /** Whether a whole answer (status, body text) is a success. */
  succeeded: (status: number, body: string) => boolean;
  /** Bytes every successful answer's first chunk contains. */
  marker?: string;
}

export interface LoadResult {
  /** ms of each answered request, in completion order. */
  latencies: number[];
  /** Seconds from the first request to the last answer. */
  elapsed: number;
  errors: number;
  /** Answers judged whole by `succeeded`. */
  sampled: number;
  /** Status and the first 300 characters of the first failed answer. */
  firstError?: string;
}

interface Answer {
  status: number;
  /** Whole body, when collected (sampled or suspicious). */
  body?: string;
  marked: boolean;
}

/** One POST through `pool`; `collect` keeps the whole body, else only the marker check is done. */
function send(pool: Pool, options: LoadOptions, marker: Buffer, collect: boolean): Promise<Answer> {
  return new Promise((resolve, reject) => {
    let status = 0;
    let first = true;
    let marked = false;
    const chunks: Buffer[] = [];
    pool.dispatch(
      {
        origin: options.url,
        path: options.path,
        method: 'POST',
        headers: options.headers,
        body: options.body,
      },
      {
        onRequestStart() {},
        onResponseStart(_controller, statusCode) {
          status = statusCode;
        },
        onResponseData(_controller, chunk) {
          if (first) marked = chunk.includes(marker);
          first = false;
          if (collect || !marked) chunks.push(chunk);
        },
        onResponseEnd() {
          const whole = collect || !marked || status !== 200;
          resolve({ status, marked, ...(whole && { body: Buffer.concat(chunks).toString('utf8') }) });
        },
        onResponseError(_controller, error) {
          reject(error);
        },
      },
    );
  });
}

/** Runs the load for `options.seconds`; never throws on failed answers (counted in `errors`). */
export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const pool = new Pool(options.url, { connections: options.concurrency, pipelining: 1 });
  const marker = Buffer.from(options.marker ?? '"result":');
  const latencies: number[] = [];
  let errors = 0;
  let sampled = 0;
  let firstError: string | undefined;
  let sent = 0;
  const fail = (text: string) => {
    errors += 1;
    firstError ??= text.slice(0, 300);
  };
  const started = performance.now();
  const deadline = started + options.seconds * 1000;
  try {
    await Promise.all(
      Array.from({ length: options.concurrency }, async () => {
        while (performance.now() < deadline) {
          const collect = sent++ % options.sampleEvery === 0;
          const t0 = performance.now();
          let answer: Answer;
          try {
            answer = await send(pool, options, marker, collect);
          } catch (error) {
            fail(`request failed: ${(error as Error).message}`);
            continue;
          }
          latencies.push(performance.now() - t0);
          if (answer.body === undefined) continue; // 200 with the marker, not sampled
          if (collect) sampled += 1;
          const ok = answer.status === 200 && answer.marked && options.succeeded(answer.status, answer.body);
          if (!ok) fail(`${answer.status} ${answer.body}`);
        }
      }),
    );
  } finally {
    await pool.close();
  }
  return { latencies, elapsed: (performance.now() - started) / 1000, errors, sampled, firstError };
}
