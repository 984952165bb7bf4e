/**
 * Benchmark: what one stateless `tools/call` costs in the MCP transport layer, without HTTP (issue
 * 17). Each request builds a low-level SDK `Server` with one tool, connects it to a fresh transport
 * and answers a `tools/call` whose result is the size of a `get_deployment` answer:
 *
 *   web-standard   the SDK's WebStandardStreamableHTTPServerTransport fed a Web Request (what the
 *                  SDK's Node transport does after @hono/node-server's conversion, minus hono)
 *   sentinel       server/mcp-transport.ts on Node-shaped req/res objects
 *
 * Rows alternate in rounds; µs per request are medians over rounds. Not a test; no exit code.
 *
 *   node bench/mcp-transport.ts            # BENCH_ROUNDS=5, BENCH_REQUESTS=3000 per round
 */
import { EventEmitter } from 'node:events';
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { WebStandardStreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js';
import { CallToolRequestSchema } from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { IncomingMessage, ServerResponse } from 'node:http';
import { NodeMcpTransport } from '../server/index.ts';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 5);
const REQUESTS = Number(process.env.BENCH_REQUESTS ?? 3000);

const body = {
  jsonrpc: '2.0',
  id: 1,
  method: 'tools/call',
  params: { name: 'get_deployment', arguments: { namespace: 'bench', name: 'svc-1' } },
};
const text = 'Deployment bench/svc-1: 25/25 ready, image registry.example/svc:1.4.2\n'.repeat(20);
const result = {
  content: [{ type: 'text' as const, text }],
  structuredContent: { namespace: 'bench', name: 'svc-1', replicas: { desired: 25, ready: 25 }, text },
};

/** Shared, as server/mcp.ts shares it (the SDK builds an Ajv per Server otherwise). */
const jsonSchemaValidator = new AjvJsonSchemaValidator();

function server(): Server {
  const s = new Server(
    { name: 'bench', version: '0.0.0' },
    { capabilities: { tools: {} }, jsonSchemaValidator },
  );
  s.setRequestHandler(CallToolRequestSchema, () => result);
  return s;
}

const headers = {
  host: '127.0.0.1:7070',
  'content-type': 'application/json',
  accept: 'application/json, text/event-stream',
  'mcp-protocol-version': '2025-06-18',
};

async function webStandard(): Promise<void> {
  const s = server();
  const transport = new WebStandardStreamableHTTPServerTransport({
    sessionIdGenerator: undefined,
    enableJsonResponse: true,
  });
  await s.connect(transport);
  const request = new Request('http://127.0.0.1:7070/mcp', { method: 'POST', headers });
  const response = await transport.handleRequest(request, { parsedBody: body });
  await response.text();
  await transport.close();
}

class FakeResponse extends EventEmitter {
  statusCode = 0;
  writableFinished = false;
  body = '';
  setHeader(): void {}
  end(chunk?: string): void {
    this.body = chunk ?? '';
    this.writableFinished = true;
  }
}

async function sentinel(): Promise<void> {
  const s = server();
  const transport = new NodeMcpTransport();
  await s.connect(transport);
  const req = {
    rawHeaders: Object.entries(headers).flat(),
    headers,
    url: '/mcp',
    socket: {},
  } as unknown as IncomingMessage;
  const res = new FakeResponse();
  await transport.handleRequest(req, res as unknown as ServerResponse, body);
  if (!res.body.startsWith('{"result"')) throw new Error(`unexpected answer ${res.body.slice(0, 200)}`);
}

const rows: [string, () => Promise<void>][] = [
  ['web-standard (SDK, no hono)', webStandard],
  ['sentinel (server/mcp-transport.ts)', sentinel],
];
const figures = new Map<string, number[]>(rows.map(([name]) => [name, []]));
for (const [, run] of rows) for (let i = 0; i < 300; i += 1) await run(); // warm-up
for (let round = 0; round < ROUNDS; round += 1) {
  for (const [name, run] of round % 2 === 0 ? rows : [...rows].reverse()) {
    const cpu = process.cpuUsage();
    for (let i = 0; i < REQUESTS; i += 1) await run();
    const used = process.cpuUsage(cpu);
    figures.get(name)!.push((used.user + used.system) / REQUESTS);
  }
}
const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;
const base = median(figures.get(rows[0]![0])!);
for (const [name, values] of figures) {
  const us = median(values);
  process.stdout.write(
    `${name.padEnd(38)} ${us.toFixed(1).padStart(7)} µs CPU/request  x${(us / base).toFixed(2)}\n`,
  );
}
