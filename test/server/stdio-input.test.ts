/**
 * `sentinel serve --stdio` fed by a pipe that ends at once (`printf '…' | sentinel serve --stdio`):
 * the end of stdin drains the requests in flight — they are answered on stdout — before it exits,
 * and a line that is not JSON gets JSON-RPC 2.0's parse error (-32700, id null) and a log line,
 * while the lines after it are still served. A real process of bin/sentinel.js; the cluster is a
 * 127.0.0.1 HTTP server on an ephemeral port that answers `GET /version`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { spawn } from 'node:child_process';
import { createServer, type Server } from 'node:http';
import { once } from 'node:events';
import { fileURLToPath } from 'node:url';
import { tempDataDir, writeLoopbackKubeconfig } from '../helpers/server.ts';

const BIN = fileURLToPath(new URL('../../bin/sentinel.js', import.meta.url));

describe('sentinel serve --stdio, stdin ended right after the requests', { timeout: 120_000 }, () => {
  const data = tempDataDir();
  let cluster: Server;
  let kubeconfig: string;
  beforeAll(async () => {
    cluster = createServer((request, response) => {
      // Answered a little later than at once, so the call is still in flight when stdin ends.
      setTimeout(() => {
        response.setHeader('content-type', 'application/json');
        if (request.url === '/version') {
          response.end(
            JSON.stringify({ major: '1', minor: '31', gitVersion: 'v1.31.0', platform: 'linux/amd64' }),
          );
        } else {
          response.statusCode = 404;
          response.end(JSON.stringify({ kind: 'Status', status: 'Failure', code: 404, reason: 'NotFound' }));
        }
      }, 200);
    });
    cluster.listen(0, '127.0.0.1');
    await once(cluster, 'listening');
    const port = (cluster.address() as { port: number }).port;
    kubeconfig = writeLoopbackKubeconfig(data.dir, port);
  });
  afterAll(() => {
    cluster.close();
    data.cleanup();
  });

  it('answers the call in flight on stdout, and a garbage line with a parse error, then exits 0', async () => {
    const env: NodeJS.ProcessEnv = {
      ...process.env,
      SENTINEL_LOG_LEVEL: 'info',
      SENTINEL_LOG_FORMAT: 'json',
    };
    delete env.SENTINEL_TOKEN;
    delete env.SENTINEL_DATA_DIR;
    const child = spawn(
      process.execPath,
      [BIN, 'serve', '--stdio', '--identity', 'local', '--data-dir', data.dir, '--kubeconfig', kubeconfig],
      { env },
    );
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const call = {
      jsonrpc: '2.0',
      id: 2,
      method: 'tools/call',
      params: { name: 'get_cluster_version', arguments: {} },
    };
    // All at once, then end of input: what `printf '…\n' | sentinel serve --stdio` does.
    child.stdin.end(`garbage\n${JSON.stringify(call)}\n`);
    const [code] = (await once(child, 'exit')) as [number];
    expect(code, stderr).toBe(0);
    const answers = stdout
      .split('\n')
      .filter(Boolean)
      .map(
        (line) =>
          JSON.parse(line) as {
            id: unknown;
            result?: { content: { text: string }[] };
            error?: { code: number };
          },
      );
    expect(answers).toContainEqual({
      jsonrpc: '2.0',
      id: null,
      error: { code: -32700, message: expect.any(String) },
    });
    const answered = answers.find((answer) => answer.id === 2);
    expect(answered?.result?.content[0]?.text, stdout).toContain('v1.31.0');
    expect(stderr).toContain('not JSON (parse error answered)');
    expect(stderr).not.toMatch(/cancelled/);
  });
});
