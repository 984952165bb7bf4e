/**
 * `jsonBody` (server/json-body.ts) parses request bodies as `express.json` does (issue 17): the
 * same raw requests — a fixed corpus, then generated bodies — go to an app on each parser, and the
 * parsed body, or the error's status and type (what the app's error handler answers from), must be
 * the same.
 */
import { EventEmitter } from 'node:events';
import { request as httpRequest } from 'node:http';
import { gzipSync } from 'node:zlib';
import express, { type ErrorRequestHandler, type RequestHandler } from 'express';
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { jsonBody } from '../../server/json-body.ts';
import { listen, type ListeningServer } from '../../server/listen.ts';

const LIMIT = 1024;

function app(parser: RequestHandler): express.Express {
  const built = express();
  built.post('/echo', parser, (req, res) => {
    res.json({ parsed: 'body' in req && req.body !== undefined, body: req.body ?? null });
  });
  const onError: ErrorRequestHandler = (error: { status?: number; type?: string }, _req, res, _next) => {
    res.status(error.status ?? 500).json({ error: { status: error.status, type: error.type } });
  };
  built.use(onError);
  return built;
}

let general: ListeningServer;
let fast: ListeningServer;
beforeAll(async () => {
  [general, fast] = await Promise.all([
    listen(app(express.json({ limit: LIMIT })), { host: '127.0.0.1', port: 0 }),
    listen(app(jsonBody({ limit: LIMIT })), { host: '127.0.0.1', port: 0 }),
  ]);
});
afterAll(async () => {
  await Promise.all([general.close(), fast.close()]);
});

function send(url: string, headers: Record<string, string>, body: Buffer | undefined) {
  return new Promise<{ status: number; body: unknown }>((resolve, reject) => {
    const req = httpRequest(`${url}/echo`, { method: 'POST', headers }, (res) => {
      const chunks: Buffer[] = [];
      res.on('data', (chunk: Buffer) => chunks.push(chunk));
      res.on('end', () =>
        resolve({ status: res.statusCode ?? 0, body: JSON.parse(Buffer.concat(chunks).toString('utf8')) }),
      );
    });
    req.on('error', reject);
    req.end(body);
  });
}

/** Sends the same request through both parsers; expects the same outcome and returns it. */
async function same(body: Buffer | string | undefined, headers: Record<string, string> = {}) {
  const bytes = typeof body === 'string' ? Buffer.from(body, 'utf8') : body;
  const all = {
    'content-type': 'application/json',
    ...(bytes !== undefined && { 'content-length': String(bytes.length) }),
    ...headers,
  };
  const [a, b] = await Promise.all([send(general.url, all, bytes), send(fast.url, all, bytes)]);
  expect(b, `body ${JSON.stringify(bytes?.toString('latin1'))} headers ${JSON.stringify(all)}`).toEqual(a);
  return b;
}

describe('jsonBody parses like express.json', () => {
  const corpus: [string, Buffer | string | undefined, Record<string, string>, number][] = [
    ['an object', '{"jsonrpc":"2.0","id":1,"method":"ping"}', {}, 200],
    ['a batch', '[{"a":1},{"b":[1,2]}]', {}, 200],
    ['leading whitespace', ' \t\r\n{"a":1}', {}, 200],
    ['a UTF-8 BOM', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from('{"a":"é"}')]), {}, 200],
    ['non-ASCII text', '{"text":"日本語 ✓ 😀"}', {}, 200],
    [
      'invalid UTF-8 bytes',
      Buffer.from([0x7b, 0x22, 0x61, 0x22, 0x3a, 0x22, 0xff, 0xfe, 0x22, 0x7d]),
      {},
      200,
    ],
    ['an empty body', '', {}, 200],
    ['a string (strict)', '"ping"', {}, 400],
    ['a number (strict)', '1', {}, 400],
    ['null (strict)', 'null', {}, 400],
    ['whitespace only', '   ', {}, 400],
    ['invalid JSON', '{"a":', {}, 400],
    ['trailing garbage', '{"a":1} x', {}, 400],
    ['a body at the limit', `{"a":"${'x'.repeat(LIMIT - 8)}"}`, {}, 200],
    ['a body over the limit', `{"a":"${'x'.repeat(LIMIT)}"}`, {}, 413],
    ['a charset', '{"a":1}', { 'content-type': 'application/json; charset=utf-8' }, 200],
    ['an unsupported charset', '{"a":1}', { 'content-type': 'application/json; charset=latin1' }, 415],
    ['another content type', '{"a":1}', { 'content-type': 'text/plain' }, 200],
    ['a gzip body', gzipSync('{"a":1}'), { 'content-encoding': 'gzip' }, 200],
    ['an unknown encoding', '{"a":1}', { 'content-encoding': 'x-unknown' }, 415],
  ];
  it.each(corpus)('%s', async (_name, body, headers, status) => {
    expect((await same(body, headers)).status).toBe(status);
  });

  it('a chunked body', async () => {
    const bodies = await Promise.all(
      [general, fast].map(
        (server) =>
          new Promise<unknown>((resolve, reject) => {
            const req = httpRequest(
              `${server.url}/echo`,
              { method: 'POST', headers: { 'content-type': 'application/json' } },
              (res) => {
                let text = '';
                res.on('data', (chunk: Buffer) => (text += chunk.toString('utf8')));
                res.on('end', () => resolve(JSON.parse(text)));
              },
            );
            req.on('error', reject);
            req.write('{"a":');
            req.end('[1,2]}');
          }),
      ),
    );
    expect(bodies[1]).toEqual(bodies[0]);
    expect(bodies[1]).toEqual({ parsed: true, body: { a: [1, 2] } });
  });

  it('generated bodies (property)', async () => {
    const body = fc.oneof(
      fc.jsonValue().map((value) => JSON.stringify(value) ?? ''),
      fc.string({ maxLength: 40 }),
      fc.uint8Array({ maxLength: 40 }).map((bytes) => Buffer.from(bytes)),
      fc
        .tuple(fc.constantFrom(' ', '\t', '\n', '\r', '\f', '\u00a0', ''), fc.jsonValue())
        .map(([space, value]) => `${space}${JSON.stringify(value) ?? ''}`),
    );
    await fc.assert(
      fc.asyncProperty(body, async (text) => {
        await same(text);
      }),
      { numRuns: 150 },
    );
  });

  it('hands the app an aborted-request error when the client leaves mid-body', async () => {
    const req = Object.assign(new EventEmitter(), {
      headers: { 'content-type': 'application/json', 'content-length': '100' },
      readable: true,
      complete: false,
      body: undefined,
    });
    const error = new Promise<unknown>((resolve) =>
      jsonBody({ limit: LIMIT })(req as never, {} as never, resolve as never),
    );
    req.emit('data', Buffer.from('{"a":'));
    req.emit('close');
    expect(await error).toMatchObject({ status: 400, type: 'request.aborted' });
    expect(req.body).toBeUndefined();
  });
});
