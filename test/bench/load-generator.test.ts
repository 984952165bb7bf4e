/**
 * The lean load generator (bench/load-generator.ts) against a local server whose answers are known:
 * it counts every answered request, catches answers without the result marker or with a bad status
 * on every request, and judges sampled answers whole.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { runLoad, type LoadOptions } from '../../bench/load-generator.ts';

let server: Server | undefined;

afterEach(async () => {
  server?.close();
  if (server) await once(server, 'close');
  server = undefined;
});

/** Serves answer number n (1-based, in arrival order) as `answer(n)`; returns its origin. */
async function serve(answer: (n: number) => { status: number; body: string }): Promise<string> {
  let n = 0;
  server = createServer((req, res) => {
    req.resume();
    req.on('end', () => {
      const { status, body } = answer(++n);
      res.writeHead(status, { 'content-type': 'application/json' }).end(body);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const OK = JSON.stringify({ result: { content: [] }, jsonrpc: '2.0', id: 1 });
const judged: string[] = [];
const options = (url: string, sampleEvery: number): LoadOptions => ({
  url,
  path: '/mcp',
  headers: { 'content-type': 'application/json' },
  body: '{"jsonrpc":"2.0","id":1,"method":"tools/call"}',
  seconds: 0.3,
  concurrency: 2,
  sampleEvery,
  succeeded: (status, body) => {
    judged.push(body);
    return status === 200 && !body.includes('"isError":true');
  },
});

describe('runLoad', () => {
  it('counts answers, and never counts a successful answer as an error', async () => {
    const url = await serve(() => ({ status: 200, body: OK }));
    const result = await runLoad(options(url, 5));
    expect(result.latencies.length).toBeGreaterThan(0);
    expect(result.errors).toBe(0);
    expect(result.sampled).toBe(Math.ceil(result.latencies.length / 5));
  });

  it('catches a JSON-RPC error or a bad status on every answer, sampled or not', async () => {
    const url = await serve((n) =>
      n % 3 === 0
        ? { status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32602 } }) }
        : n % 3 === 1
          ? { status: 429, body: '{"error":"busy"}' }
          : { status: 200, body: OK },
    );
    const result = await runLoad(options(url, 1_000_000));
    expect(result.errors).toBeGreaterThanOrEqual(Math.floor((2 * result.latencies.length) / 3) - 2);
    expect(result.firstError).toMatch(/^(429|200) /);
  });

  it('judges sampled answers whole: an isError result is an error', async () => {
    const url = await serve(() => ({
      status: 200,
      body: JSON.stringify({ result: { content: [], isError: true }, jsonrpc: '2.0', id: 1 }),
    }));
    judged.length = 0;
    const result = await runLoad(options(url, 1));
    expect(result.errors).toBe(result.latencies.length);
    expect(judged.length).toBe(result.latencies.length);
  });
});
