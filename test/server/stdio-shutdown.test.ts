/**
 * `sentinel serve --stdio` shutting down with a call in flight (issue 13, finding 3): when stdin
 * closes, the call is given the shutdown grace (15 s) to finish and be answered on stdout (a call the
 * cluster never answers ends with its own request timeout) — its audit record is written, and the
 * stores close only after every in-flight call has settled. A real process of bin/sentinel.js, whose cluster is a TCP server
 * that accepts connections and never answers (so the call is in flight for as long as the test wants).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createServer, type Server, type Socket } from 'node:net';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { openAuditLog } from '../../server/audit/index.ts';
import { tempDataDir, writeLoopbackKubeconfig } from '../helpers/server.ts';

const BIN = fileURLToPath(new URL('../../bin/sentinel.js', import.meta.url));

describe('sentinel serve --stdio with a call in flight when stdin closes', { timeout: 120_000 }, () => {
  const data = tempDataDir();
  const sockets = new Set<Socket>();
  let blackHole: Server;
  let connected: Promise<unknown>;
  let kubeconfig: string;
  beforeAll(async () => {
    blackHole = createServer((socket) => {
      sockets.add(socket);
      socket.on('error', () => {});
    });
    connected = once(blackHole, 'connection');
    blackHole.listen(0, '127.0.0.1');
    await once(blackHole, 'listening');
    const port = (blackHole.address() as { port: number }).port;
    kubeconfig = writeLoopbackKubeconfig(data.dir, port, 'hole');
  });
  afterAll(() => {
    for (const socket of sockets) socket.destroy();
    blackHole.close();
    data.cleanup();
  });

  it('answers the call with its outcome, writes its audit record, then closes the log', async () => {
    const env: NodeJS.ProcessEnv = { ...process.env, SENTINEL_LOG_LEVEL: 'info' };
    delete env.SENTINEL_TOKEN;
    delete env.SENTINEL_DATA_DIR;
    const child = spawn(
      process.execPath,
      [BIN, 'serve', '--stdio', '--identity', 'local', '--data-dir', data.dir, '--kubeconfig', kubeconfig],
      { env },
    );
    let stderr = '';
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    let stdout = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    const send = (message: unknown) => child.stdin.write(`${JSON.stringify(message)}\n`);
    send({
      jsonrpc: '2.0',
      id: 1,
      method: 'initialize',
      params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 't', version: '1' } },
    });
    send({ jsonrpc: '2.0', method: 'notifications/initialized' });
    send({
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'get_deployment', arguments: { namespace: 'shop', name: 'checkout' } },
    });
    await connected; // the call is waiting for the cluster
    child.stdin.end();
    const [code] = (await once(child, 'exit')) as [number];
    expect(stderr).not.toMatch(/database is not open|audit record not written/);
    expect(code).toBe(0);
    // Answered on stdout before the exit, not dropped: an error result naming what failed.
    const answer = stdout
      .split('\n')
      .filter(Boolean)
      .map((line) => JSON.parse(line) as { id?: number; result?: { isError?: boolean } })
      .find((message) => message.id === 2);
    expect(answer?.result?.isError, stdout).toBe(true);
    const log = openAuditLog(data.dir, { mustExist: true });
    try {
      const calls = log.records().filter((record) => record.tool === 'get_deployment');
      expect(calls).toEqual([
        expect.objectContaining({ kind: 'tool_call', identity: 'local', outcome: 'failed' }),
      ]);
      // The cluster never answers: the request's own timeout, or the cancel once the grace is over.
      expect(['timeout', 'cancelled']).toContain(calls[0]!.error?.code);
      expect(log.verify().broken).toBeUndefined();
    } finally {
      log.close();
    }
  });
});
