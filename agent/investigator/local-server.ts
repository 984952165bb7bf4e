/**
 * An in-process Sentinel server for investigations run without `--server`: the same server as
 * `sentinel serve` (gate, approvals API, audit), bound to 127.0.0.1 on a free port, with a fresh
 * startup token for the human (identity `local`). While it runs, that token is also in
 * `<data-dir>/local-server-<port>.token` (0600, removed on close), so a human without a terminal to
 * answer at can approve from the approvals page or `sentinel approvals`. Its discovery file
 * (`<data-dir>/servers/<port>.json`) names that token file and its own login link (never the data
 * directory's shared `local.token` or `login-link.url`). Its log goes to
 * `<data-dir>/logs/server.log` so the terminal shows only the investigation.
 */
import { chmodSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import pino from 'pino';
import { createLogger, generateToken, parseServeOptions, startServe } from '../../server/index.ts';
import type { KubeConnection, ReadCacheMode } from '../../tools/index.ts';

export interface LocalServerOptions {
  dataDir: string;
  /** kubeconfig file and context (the default cluster when absent, like kubectl). */
  kubeconfig?: string | undefined;
  context?: string | undefined;
  /** A cluster connection to use instead (tests). */
  kube?: KubeConnection;
  /** `--read-cache` of the server (with `kubeconfig`); default `sentinel serve`'s. */
  readCache?: ReadCacheMode | undefined;
}

export interface LocalServer {
  /** `http://127.0.0.1:<port>`. */
  url: string;
  /** The human's token (identity `local`, every role). */
  token: string;
  /** Where the token is while the server runs (mode 0600). */
  tokenFile: string;
  /** Where the server logs. */
  logFile: string;
  close(): Promise<void>;
}

const localServerTokenFile = (dataDir: string, port: string) => join(dataDir, `local-server-${port}.token`);

/** Starts the server. Throws what `startServe` throws (`SentinelError`). */
export async function startLocalServer(options: LocalServerOptions): Promise<LocalServer> {
  const token = generateToken();
  const logFile = join(options.dataDir, 'logs', 'server.log');
  // Private like the rest of the data directory: the log names identities and requests.
  mkdirSync(dirname(logFile), { recursive: true, mode: 0o700 });
  chmodSync(dirname(logFile), 0o700);
  const logger = createLogger({ destination: pino.destination({ dest: logFile, sync: true }) });
  const running = await startServe(
    parseServeOptions({
      host: '127.0.0.1',
      port: 0,
      dataDir: options.dataDir,
      ...(options.kubeconfig !== undefined && { kubeconfig: options.kubeconfig }),
      ...(options.context !== undefined && { context: options.context }),
      ...(options.readCache !== undefined && { readCache: options.readCache }),
    }),
    { stderr: () => {}, env: { SENTINEL_TOKEN: token } },
    {
      logger,
      kind: 'investigation',
      tokenFile: (port) => localServerTokenFile(options.dataDir, port),
      ...(options.kube && { kube: options.kube }),
    },
  );
  const url = running.url!;
  const tokenFile = localServerTokenFile(options.dataDir, new URL(url).port);
  try {
    writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  } catch (error) {
    await running.close();
    throw error;
  }
  return {
    url,
    token,
    tokenFile,
    logFile,
    async close() {
      rmSync(tokenFile, { force: true });
      await running.close();
    },
  };
}
