/**
 * Sentinel's `/mcp` transport (server/mcp-transport.ts) answers like the SDK's
 * `StreamableHTTPServerTransport` in stateless JSON-response mode (issue 17): the same requests —
 * a fixed corpus of everything a client can send, then generated JSON-RPC messages and headers —
 * go to an app on each transport, and the status, the headers a client reads and the body must be
 * the same.
 */
import { request as httpRequest } from 'node:http';
import { join } from 'node:path';
import fc from 'fast-check';
import pino from 'pino';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createServerApp } from '../../server/app.ts';
import { createIdentityStore } from '../../server/identity-store.ts';
import { listen, type ListeningServer } from '../../server/listen.ts';
import { defineTool, toolInput } from '../../tools/define-tool.ts';
import { createRegistry } from '../../tools/registry.ts';
import { fixtureTools } from '../helpers/fixture-tools.ts';
import { fakeKube, tempDataDir } from '../helpers/server.ts';

const TOKEN = 'test-transport-token-0123456789';

/** Told the signal of each `wait_thing` call as it starts, to see a disconnect abort it. */
let onWaiting: (signal: AbortSignal) => void = () => {};
const waitThing = defineTool({
  name: 'wait_thing',
  title: 'Wait',
  description: 'Fixture tool that waits until its call is aborted.',
  risk: 'read',
  input: toolInput({}),
  handler: (_args, ctx) =>
    new Promise<never>((_resolve, reject) => {
      onWaiting(ctx.signal);
      ctx.signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true });
    }),
});

interface Answer {
  status: number;
  headers: Record<string, string | undefined>;
  body: unknown;
}

/**
 * The response headers a client acts on (X-Request-Id differs per request by design). A 202's
 * framing is not compared: the SDK's (hono) sends an empty chunked body, Sentinel's Content-Length 0.
 */
const COMPARED_HEADERS = [
  'content-type',
  'content-length',
  'allow',
  'mcp-session-id',
  'retry-after',
  'www-authenticate',
];

function send(
  url: string,
  headers: Record<string, string | string[]>,
  body: string | undefined,
): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const req = httpRequest(`${url}/mcp`, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () => {
        const text = Buffer.concat(chunks).toString('utf8');
        let parsed: unknown = text;
        try {
          parsed = JSON.parse(text);
        } catch {
          // compared as text
        }
        resolve({
          status: res.statusCode ?? 0,
          headers: Object.fromEntries(
            COMPARED_HEADERS.filter((name) => res.statusCode !== 202 || name !== 'content-length').map(
              (name) => [name, res.headers[name] as string],
            ),
          ),
          body: parsed,
        });
      });
    });
    req.on('error', reject);
    req.end(body);
  });
}

let sdk: ListeningServer;
let sentinel: ListeningServer;
const cleanups: (() => void)[] = [];

async function startApp(mcpTransport: 'sdk' | 'sentinel'): Promise<ListeningServer> {
  const { dir, cleanup } = tempDataDir();
  cleanups.push(cleanup);
  const identities = createIdentityStore({ tokensFile: join(dir, 'tokens.yaml'), startupToken: TOKEN });
  const { app } = createServerApp({
    identities,
    allowedHosts: ['127.0.0.1'],
    logger: pino({ level: 'silent' }),
    registry: createRegistry([...fixtureTools().tools, waitThing]),
    kube: fakeKube(),
    mcpTransport,
  });
  return listen(app, { host: '127.0.0.1', port: 0 });
}

beforeAll(async () => {
  [sdk, sentinel] = await Promise.all([startApp('sdk'), startApp('sentinel')]);
});
afterAll(async () => {
  await Promise.all([sdk.close(), sentinel.close()]);
  for (const cleanup of cleanups) cleanup();
});

const ACCEPT = 'application/json, text/event-stream';
const headersOf = (
  extra: Record<string, string | string[] | undefined> = {},
): Record<string, string | string[]> => {
  const all: Record<string, string | string[] | undefined> = {
    authorization: `Bearer ${TOKEN}`,
    'content-type': 'application/json',
    accept: ACCEPT,
    ...extra,
  };
  return Object.fromEntries(Object.entries(all).filter(([, value]) => value !== undefined)) as Record<
    string,
    string | string[]
  >;
};

/** Sends the same request to both apps and expects the same answer; returns it. */
async function same(headers: Record<string, string | string[]>, body: string | undefined): Promise<Answer> {
  const [fromSdk, fromSentinel] = await Promise.all([
    send(sdk.url, headers, body),
    send(sentinel.url, headers, body),
  ]);
  expect(fromSentinel, `request ${JSON.stringify({ headers, body })}`).toEqual(fromSdk);
  return fromSentinel;
}

const initialize = (id: unknown = 1) => ({
  jsonrpc: '2.0',
  id,
  method: 'initialize',
  params: {
    protocolVersion: '2025-06-18',
    capabilities: {},
    clientInfo: { name: 'test', version: '0.0.0' },
  },
});
const call = (id: unknown, name: string, args: unknown) => ({
  jsonrpc: '2.0',
  id,
  method: 'tools/call',
  params: { name, arguments: args },
});
const read = (id: unknown) => call(id, 'read_thing', { namespace: 'shop', name: 'web' });

describe('the /mcp transport answers like the SDK transport', () => {
  const corpus: [string, Record<string, string | string[] | undefined>, string | undefined, number][] = [
    ['initialize', {}, JSON.stringify(initialize()), 200],
    [
      'initialize with an unsupported MCP-Protocol-Version header (not checked)',
      { 'mcp-protocol-version': '1999-01-01' },
      JSON.stringify(initialize()),
      200,
    ],
    [
      'initialize with invalid params',
      {},
      JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'initialize', params: {} }),
      200,
    ],
    [
      'initialize in a batch',
      {},
      JSON.stringify([initialize(1), { jsonrpc: '2.0', id: 2, method: 'ping' }]),
      400,
    ],
    ['tools/list', {}, JSON.stringify({ jsonrpc: '2.0', id: 'a', method: 'tools/list' }), 200],
    ['ping', {}, JSON.stringify({ jsonrpc: '2.0', id: 0, method: 'ping' }), 200],
    ['an unknown method', {}, JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'resources/list' }), 200],
    ['tools/call', { 'mcp-protocol-version': '2025-06-18' }, JSON.stringify(read(7)), 200],
    ['tools/call of an unknown tool', {}, JSON.stringify(call(8, 'no_such_tool', {})), 200],
    ['tools/call with invalid arguments', {}, JSON.stringify(call(9, 'read_thing', { namespace: 1 })), 200],
    [
      'tools/call without a name (handler error)',
      {},
      JSON.stringify({ jsonrpc: '2.0', id: 10, method: 'tools/call', params: {} }),
      200,
    ],
    [
      'tools/call of a failing tool',
      {},
      JSON.stringify(call(11, 'failing_thing', { unexpected: true })),
      200,
    ],
    [
      'a batch: responses in request order, notifications skipped',
      {},
      JSON.stringify([
        read('x'),
        { jsonrpc: '2.0', method: 'notifications/initialized' },
        { jsonrpc: '2.0', id: 2, method: 'tools/list' },
        read(1),
      ]),
      200,
    ],
    ['a batch with one request', {}, JSON.stringify([read(1)]), 200],
    [
      'a batch with a repeated id',
      {},
      JSON.stringify([
        { jsonrpc: '2.0', id: 1, method: 'ping' },
        { jsonrpc: '2.0', id: 1, method: 'ping' },
      ]),
      200,
    ],
    ['a notification only', {}, JSON.stringify({ jsonrpc: '2.0', method: 'notifications/initialized' }), 202],
    ['a response only', {}, JSON.stringify({ jsonrpc: '2.0', id: 5, result: {} }), 202],
    [
      'an error response only',
      {},
      JSON.stringify({ jsonrpc: '2.0', id: 5, error: { code: -1, message: 'no' } }),
      202,
    ],
    ['an empty batch', {}, '[]', 202],
    ['a batch over 100 messages', {}, JSON.stringify(Array.from({ length: 101 }, (_, i) => read(i))), 400],
    ['a body that is not JSON', {}, '{"jsonrpc": ', 400],
    ['an empty body', {}, '', 400],
    ['no body', {}, undefined, 400],
    ['JSON that is not JSON-RPC', {}, JSON.stringify({ hello: 'world' }), 400],
    ['a JSON-RPC version other than 2.0', {}, JSON.stringify({ jsonrpc: '1.0', id: 1, method: 'ping' }), 400],
    ['a fractional id', {}, JSON.stringify({ jsonrpc: '2.0', id: 1.5, method: 'ping' }), 400],
    ['a null id', {}, JSON.stringify({ jsonrpc: '2.0', id: null, method: 'ping' }), 400],
    ['an extra member', {}, JSON.stringify({ jsonrpc: '2.0', id: 1, method: 'ping', extra: true }), 400],
    ['a JSON string', {}, '"ping"', 400],
    ['JSON null', {}, 'null', 400],
    ['a batch with one invalid message', {}, JSON.stringify([read(1), { jsonrpc: '2.0' }]), 400],
    [
      'an unsupported MCP-Protocol-Version',
      { 'mcp-protocol-version': '1999-01-01' },
      JSON.stringify(read(1)),
      400,
    ],
    [
      'an older supported MCP-Protocol-Version',
      { 'mcp-protocol-version': '2024-11-05' },
      JSON.stringify(read(1)),
      200,
    ],
    ['no Accept', { accept: undefined }, JSON.stringify(read(1)), 406],
    ['Accept without text/event-stream', { accept: 'application/json' }, JSON.stringify(read(1)), 406],
    ['Accept without application/json', { accept: 'text/event-stream' }, JSON.stringify(read(1)), 406],
    ['Accept */*', { accept: '*/*' }, JSON.stringify(read(1)), 406],
    [
      'Accept in two header lines',
      { accept: ['application/json', 'text/event-stream'] },
      JSON.stringify(read(1)),
      200,
    ],
    ['Content-Type text/plain', { 'content-type': 'text/plain' }, JSON.stringify(read(1)), 415],
    ['no Content-Type', { 'content-type': undefined }, JSON.stringify(read(1)), 415],
    [
      'Content-Type with a charset',
      { 'content-type': 'application/json; charset=utf-8' },
      JSON.stringify(read(1)),
      200,
    ],
    ['Content-Type in capitals', { 'content-type': 'APPLICATION/JSON' }, JSON.stringify(read(1)), 200],
    [
      'Content-Type in two header lines',
      { 'content-type': ['application/json', 'text/plain'] },
      JSON.stringify(read(1)),
      415,
    ],
    [
      'Content-Type application/json-seq',
      { 'content-type': 'application/json-seq' },
      JSON.stringify(read(1)),
      415,
    ],
    ['no bearer token', { authorization: undefined }, JSON.stringify(read(1)), 401],
  ];
  it.each(corpus)('%s', async (_name, extra, body, status) => {
    const answer = await same(headersOf(extra), body);
    expect(answer.status).toBe(status);
  });

  it('answers generated JSON-RPC messages and headers alike (property)', async () => {
    const id = fc.oneof(
      fc.integer({ min: -5, max: 1e6 }),
      fc.string({ maxLength: 6 }),
      fc.constant(1.5),
      fc.constant(null),
    );
    const method = fc.constantFrom(
      'tools/list',
      'tools/call',
      'ping',
      'initialize',
      'notifications/initialized',
      'notifications/cancelled',
      'nope',
    );
    const params = fc.oneof(
      fc.constant(undefined),
      fc.constant({}),
      fc.constant({ name: 'read_thing', arguments: { namespace: 'shop', name: 'web' } }),
      fc.constant({
        name: 'scale_thing',
        arguments: { namespace: 'shop', name: 'web', replicas: 2, dry_run: true },
      }),
      fc.constant(initialize().params),
      fc.record({
        name: fc.constantFrom('read_thing', 'failing_thing', 'missing'),
        arguments: fc.jsonValue(),
      }),
      fc.jsonValue(),
    );
    const message = fc.oneof(
      fc.record({ jsonrpc: fc.constant('2.0'), id, method, params }, { requiredKeys: ['jsonrpc', 'method'] }),
      fc.record({
        jsonrpc: fc.constantFrom('2.0', '1.0'),
        id,
        result: fc.oneof(fc.constant({}), fc.jsonValue()),
      }),
      fc.record(
        { jsonrpc: fc.constant('2.0'), id, error: fc.record({ code: fc.integer(), message: fc.string() }) },
        { requiredKeys: ['jsonrpc', 'error'] },
      ),
      fc.jsonValue(),
    );
    const body = fc.oneof(
      message.map((one) => JSON.stringify(one)),
      fc.array(message, { maxLength: 4 }).map((batch) => JSON.stringify(batch)),
      fc.constantFrom('', '{', '[1,', 'true'),
    );
    const headers = fc.record({
      accept: fc.constantFrom(
        ACCEPT,
        'text/event-stream, application/json',
        'application/json',
        '*/*',
        undefined,
      ),
      'content-type': fc.constantFrom(
        'application/json',
        'application/json; charset=utf-8',
        'text/plain',
        undefined,
      ),
      'mcp-protocol-version': fc.constantFrom(undefined, '2025-06-18', '2025-03-26', '2025-11-25', 'bogus'),
    });
    await fc.assert(
      fc.asyncProperty(headers, body, async (extra, text) => {
        await same(headersOf(extra), text);
      }),
      { numRuns: 150 },
    );
  });

  it('aborts the running handler when the client goes away before its answer', async () => {
    const started = new Promise<AbortSignal>((resolve) => (onWaiting = resolve));
    const req = httpRequest(`${sentinel.url}/mcp`, { method: 'POST', headers: headersOf() });
    req.on('error', () => {});
    req.end(JSON.stringify(call(1, 'wait_thing', {})));
    const signal = await started;
    expect(signal.aborted).toBe(false);
    const aborted = new Promise((resolve) => signal.addEventListener('abort', resolve, { once: true }));
    req.destroy();
    await aborted;
    expect(signal.aborted).toBe(true);
  });
});

describe('the transport on its own', () => {
  it('refuses to serve a second request, as the SDK transport does', async () => {
    const { NodeMcpTransport } = await import('../../server/mcp-transport.ts');
    const transport = new NodeMcpTransport();
    const fake = { rawHeaders: [], headers: {} } as never;
    const res = { setHeader: () => {}, end: () => {}, statusCode: 0 } as never;
    await transport.handleRequest(fake, res, {});
    await expect(transport.handleRequest(fake, res, {})).rejects.toThrow(/cannot be reused/);
  });

  it('validates its options like the SDK transport', async () => {
    const { NodeMcpTransport } = await import('../../server/mcp-transport.ts');
    expect(() => new NodeMcpTransport({ maxRequestBodySize: 0 })).toThrow(/maxRequestBodySize/);
  });
});
