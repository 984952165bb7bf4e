import { PassThrough } from 'node:stream';
import pino from 'pino';
import { describe, expect, it } from 'vitest';
import { AnsweringStdioTransport } from '../../server/stdio-transport.ts';

/** A transport on in-memory streams; `lines()` is what it wrote, parsed. */
async function started() {
  const input = new PassThrough();
  const output = new PassThrough();
  let written = '';
  output.on('data', (chunk: Buffer) => (written += chunk.toString()));
  const logs: string[] = [];
  const logger = pino({ level: 'info' }, { write: (line: string) => void logs.push(line) });
  const transport = new AnsweringStdioTransport(logger, input, output);
  const messages: unknown[] = [];
  transport.onmessage = (message) => messages.push(message);
  await transport.start();
  const lines = () =>
    written
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as unknown);
  return { input, transport, messages, lines, logs };
}

describe('AnsweringStdioTransport', () => {
  it('answers a non-JSON line with -32700 and JSON that is no JSON-RPC message with -32600, id null; then serves on', async () => {
    const { input, messages, lines, logs } = await started();
    input.write('garbage\n{"hello":"world"}\n{"jsonrpc":"2.0","id":7,"method":"ping"}\n');
    await new Promise((tick) => setImmediate(tick));
    expect(lines()).toEqual([
      { jsonrpc: '2.0', id: null, error: { code: -32700, message: 'Parse error: the line is not JSON' } },
      {
        jsonrpc: '2.0',
        id: null,
        error: { code: -32600, message: 'Invalid Request: not a JSON-RPC 2.0 message' },
      },
    ]);
    expect(messages).toEqual([{ jsonrpc: '2.0', id: 7, method: 'ping' }]);
    expect(logs.join('')).toContain('not JSON (parse error answered)');
    expect(logs.join('')).toContain('not a JSON-RPC 2.0 message');
  });

  it('is drained once every request read has its response, and says so when the grace runs out', async () => {
    const { input, transport } = await started();
    input.write('{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"x"}}\n');
    input.write('{"jsonrpc":"2.0","method":"notifications/initialized"}\n');
    await new Promise((tick) => setImmediate(tick));
    expect(transport.unanswered).toBe(1);
    expect(await transport.drained(1)).toBe(false);
    const drained = transport.drained(60_000);
    await transport.send({ jsonrpc: '2.0', id: 1, result: { content: [] } });
    expect(await drained).toBe(true);
    expect(transport.unanswered).toBe(0);
  });
});
