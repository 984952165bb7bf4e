/**
 * wrk as the benches' load generator (bench/wrk-load.ts, bench/wrk-post.lua) against a local
 * server whose answers are known: it sends the body and headers given, counts every answer, and
 * checks every one (not a sample) for status 200, the result marker and no `isError`.
 */
import { once } from 'node:events';
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, expect, it } from 'vitest';
import { findWrk, runWrk, type WrkOptions } from '../../bench/wrk-load.ts';
import { describeWithTool } from '../helpers/system-tools.ts';

let server: Server | undefined;

afterEach(async () => {
  server?.close();
  server?.closeAllConnections();
  if (server) await once(server, 'close');
  server = undefined;
});

interface Seen {
  method: string;
  body: string;
  authorization?: string;
  accept?: string;
}

/** Serves answer number n (1-based, in arrival order) as `answer(n)`; records each request. */
async function serve(answer: (n: number) => { status: number; body: string }, seen: Seen[] = []) {
  let n = 0;
  server = createServer((req, res) => {
    let body = '';
    req.on('data', (chunk: Buffer) => (body += chunk.toString('utf8')));
    req.on('end', () => {
      seen.push({
        method: req.method!,
        body,
        ...(req.headers.authorization && { authorization: req.headers.authorization }),
        ...(req.headers.accept && { accept: req.headers.accept }),
      });
      const { status, body: text } = answer(++n);
      res.writeHead(status, { 'content-type': 'application/json' }).end(text);
    });
  });
  server.listen(0, '127.0.0.1');
  await once(server, 'listening');
  return `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
}

const OK = JSON.stringify({ result: { content: [] }, jsonrpc: '2.0', id: 1 });
const BODY = '{"jsonrpc":"2.0","id":1,"method":"tools/call"}';

describeWithTool('wrk', 'runWrk', (wrk) => {
  const options = (url: string): WrkOptions => ({
    wrk,
    url,
    path: '/mcp',
    headers: {
      'content-type': 'application/json',
      accept: 'application/json, text/event-stream',
      authorization: 'Bearer token-123',
    },
    body: BODY,
    seconds: 1,
    concurrency: 2,
  });

  it('is found on PATH', () => {
    expect(findWrk()).toBe(wrk);
    expect(findWrk('/nonexistent-dir')).toBeUndefined();
  });

  it('POSTs the body with the headers given, counts every answer, and counts no success as an error', async () => {
    const seen: Seen[] = [];
    const url = await serve(() => ({ status: 200, body: OK }), seen);
    const result = await runWrk(options(url));
    expect(result.requests).toBeGreaterThan(0);
    // Answers still in flight when wrk stops are seen by the server, not counted by wrk.
    expect(result.requests).toBeLessThanOrEqual(seen.length);
    expect(result.requests).toBeGreaterThanOrEqual(seen.length - 2);
    expect(result.errors).toBe(0);
    expect(result.firstError).toBeUndefined();
    expect(seen[0]).toEqual({
      method: 'POST',
      body: BODY,
      authorization: 'Bearer token-123',
      accept: 'application/json, text/event-stream',
    });
    expect(result.elapsed).toBeGreaterThan(0.5);
    expect(result.latencies).toHaveLength(1000);
    expect(result.latencies.every((ms, i) => ms >= 0 && (i === 0 || ms >= result.latencies[i - 1]!))).toBe(
      true,
    );
    expect(result.cpuMicros).toBeGreaterThanOrEqual(0);
  });

  it('checks every answer: a bad status, a JSON-RPC error and an isError result are each an error', async () => {
    const url = await serve((n) =>
      n % 4 === 0
        ? { status: 200, body: JSON.stringify({ jsonrpc: '2.0', id: 1, error: { code: -32602 } }) }
        : n % 4 === 1
          ? { status: 429, body: '{"error":"busy"}' }
          : n % 4 === 2
            ? { status: 200, body: JSON.stringify({ result: { content: [], isError: true }, id: 1 }) }
            : { status: 200, body: OK },
    );
    const result = await runWrk(options(url));
    expect(result.requests).toBeGreaterThan(3);
    // Three answers in four fail; wrk may stop in the middle of a cycle of four.
    expect(result.errors).toBeGreaterThanOrEqual(Math.floor((3 * result.requests) / 4) - 1);
    expect(result.errors).toBeLessThanOrEqual(Math.ceil((3 * result.requests) / 4) + 1);
    expect(result.firstError).toMatch(/^429 \{"error":"busy"\}/);
  });

  it('rejects, with what wrk said, when nothing listens', async () => {
    const url = await serve(() => ({ status: 200, body: OK }));
    server!.close();
    await once(server!, 'close');
    server = undefined;
    await expect(runWrk(options(url))).rejects.toThrow(/wrk exited with 1 .*unable to connect/);
  });

  it('refuses a header that would break the request', async () => {
    await expect(
      runWrk({ ...options('http://127.0.0.1:9'), headers: { authorization: 'Bearer a\r\nx: y' } }),
    ).rejects.toThrow(/authorization: a newline cannot be sent/);
  });
});
