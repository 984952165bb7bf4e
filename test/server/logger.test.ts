import { describe, expect, it } from 'vitest';
import fc from 'fast-check';
import pino from 'pino';
import { Writable } from 'node:stream';
import { createLogger, serverLoggerOptions } from '../../server/logger.ts';
import { createServerApp } from '../../server/app.ts';
import { createIdentityStore } from '../../server/identity-store.ts';
import { listen } from '../../server/listen.ts';
import { mcpHeaders, rawRequest, tempDataDir } from '../helpers/server.ts';
import { join } from 'node:path';

/** A pino destination collecting lines. */
function capture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, callback) {
      lines.push(...chunk.toString('utf8').split('\n').filter(Boolean));
      callback();
    },
  });
  return { lines, stream };
}

describe('server logs', () => {
  it('redact tokens and Authorization headers wherever they appear', () => {
    const { lines, stream } = capture();
    const logger = createLogger({ level: 'info', destination: stream });
    logger.info(
      { token: 'tok-1', headers: { authorization: 'Bearer tok-2' }, nested: { token: 'tok-3' } },
      'x',
    );
    expect(lines.join('\n')).not.toMatch(/tok-\d/);
    expect(JSON.parse(lines[0]!)).toMatchObject({ token: '[redacted]', nested: { token: '[redacted]' } });
  });

  it('write exactly the lines plain pino writes with the same options (redaction, sanitising)', () => {
    // createLogger skips pino's wildcard redactor for primitives (server/logger.ts); the lines must
    // not change. Keys include the redacted names at every depth, values every JSON-able type.
    const key = fc.constantFrom(
      'token',
      'authorization',
      'headers',
      'req',
      'name',
      'msg',
      'err',
      'x',
      'cookie',
    );
    const leaf = fc.oneof(
      fc.string({ unit: 'grapheme-ascii' }),
      fc.string({ unit: 'binary' }),
      fc.double(),
      fc.integer(),
      fc.boolean(),
      fc.constant(null),
      fc.constant(undefined),
    );
    const value = fc.letrec((tie) => ({
      node: fc.oneof({ depthSize: 'small' }, leaf, fc.array(tie('node'), { maxLength: 3 }), tie('object')),
      object: fc.dictionary(key, tie('node'), { maxKeys: 4 }),
    }));
    const record = fc.dictionary(fc.oneof(key, fc.string({ maxLength: 6 })), value.node, { maxKeys: 6 });
    const ours = capture();
    const plain = capture();
    const logger = createLogger({ level: 'info', destination: ours.stream });
    const reference = pino(serverLoggerOptions('info'), plain.stream);
    const child = logger.child({ requestId: 'r-1', token: 'tok-child' });
    const referenceChild = reference.child({ requestId: 'r-1', token: 'tok-child' });
    fc.assert(
      fc.property(record, fc.string(), (fields, message) => {
        logger.info(fields, message);
        reference.info(fields, message);
        child.warn(fields, message);
        referenceChild.warn(fields, message);
      }),
      { numRuns: 300 },
    );
    const withoutTime = (line: string) => line.replace(/"time":\d+,/, '');
    expect(ours.lines.length).toBeGreaterThan(0);
    expect(ours.lines.map(withoutTime)).toEqual(plain.lines.map(withoutTime));
  });

  it('carry request id and identity name, never the bearer token', async () => {
    const { lines, stream } = capture();
    const { dir, cleanup } = tempDataDir();
    const token = 'startup-token-that-must-not-be-logged';
    const { app } = createServerApp({
      identities: createIdentityStore({ tokensFile: join(dir, 'tokens.yaml'), startupToken: token }),
      allowedHosts: ['127.0.0.1'],
      logger: createLogger({ level: 'debug', destination: stream }),
    });
    const server = await listen(app, { host: '127.0.0.1', port: 0 });
    try {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'get_cluster_version', arguments: {} },
      });
      await rawRequest(`${server.url}/mcp`, { method: 'POST', headers: mcpHeaders(token), body });
      await rawRequest(`${server.url}/mcp`, {
        method: 'POST',
        headers: mcpHeaders('wrong-token-also-secret'),
        body,
      });
    } finally {
      await server.close();
      cleanup();
    }
    const all = lines.join('\n');
    expect(all).not.toContain(token);
    expect(all).not.toContain('wrong-token-also-secret');
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    const toolLine = records.find((r) => r.msg === 'tool call finished');
    expect(toolLine).toMatchObject({
      identity: 'local',
      tool: 'get_cluster_version',
      outcome: 'unavailable',
    });
    expect(toolLine!.requestId).toEqual(expect.any(String));
    const requests = records.filter((r) => r.msg === 'request');
    expect(requests.map((r) => [r.identity, r.status])).toEqual([
      ['local', 200],
      [undefined, 401],
    ]);
    expect(requests[0]!.requestId).toBe(toolLine!.requestId);
  });

  it('write one child logger and, for a read at info level, one tool line per call with its fields', async () => {
    const { lines, stream } = capture();
    const { dir, cleanup } = tempDataDir();
    const token = 'startup-token-for-the-child-count';
    const logger = createLogger({ level: 'info', destination: stream });
    let children = 0;
    const child = logger.child.bind(logger);
    logger.child = ((...args: Parameters<typeof child>) => {
      children += 1;
      return child(...args);
    }) as typeof logger.child;
    const { app } = createServerApp({
      identities: createIdentityStore({ tokensFile: join(dir, 'tokens.yaml'), startupToken: token }),
      allowedHosts: ['127.0.0.1'],
      logger,
    });
    const server = await listen(app, { host: '127.0.0.1', port: 0 });
    try {
      const body = JSON.stringify({
        jsonrpc: '2.0',
        id: 1,
        method: 'tools/call',
        params: { name: 'get_deployment', arguments: { namespace: 'shop', name: 'web' } },
      });
      const before = children;
      await rawRequest(`${server.url}/mcp`, { method: 'POST', headers: mcpHeaders(token), body });
      expect(children - before).toBe(1); // the request logger; the tool call adds none
    } finally {
      await server.close();
      cleanup();
    }
    const records = lines.map((line) => JSON.parse(line) as Record<string, unknown>);
    expect(records.filter((r) => String(r.msg).startsWith('tool call')).map((r) => r.msg)).toEqual([
      'tool call finished',
    ]);
    expect(records.find((r) => r.msg === 'tool call finished')).toMatchObject({
      requestId: expect.any(String),
      identity: 'local',
      tool: 'get_deployment',
      risk: 'read',
      namespace: 'shop',
      name: 'web',
      outcome: 'unavailable',
      durationMs: expect.any(Number),
    });
  });
});
