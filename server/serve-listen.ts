/**
 * `sentinel serve` binds its address before it loads the server (issue 17: `/healthz` within 1 s
 * of start). Loading Express, the MCP SDK, the tools' schemas, the stores and the metrics takes
 * most of start-up; a liveness probe needs none of it. `bindEarly` listens with a handler that,
 * until the server is attached, answers `GET /healthz` 200 and `GET /readyz` 503 (both with
 * `status: 'starting'`), behind the same Host/Origin checks as every route, and holds every other
 * request (at most `MAX_HELD_REQUESTS`) for the server: once `attach`ed, the Express app answers the
 * held requests and everything after. Nothing but those two probes is answered before the server's
 * own checks (identities, policy, stores) have passed, so a start-up that fails answers its held
 * requests 503 and closes.
 *
 * Light on purpose: node:http(s), core and the Host/Origin rules only (test/server/serve-listen.test.ts
 * pins what it loads).
 */
import { readFileSync } from 'node:fs';
import type { IncomingMessage, RequestListener, ServerResponse } from 'node:http';
import { SentinelError } from '../core/index.ts';
import { allowedHostNames, checkBindAddress, isLoopbackHost } from './config.ts';
import { hostAndOriginRefusal } from './host-check.ts';
import { listen, type ListeningServer } from './listen.ts';
import type { ServeOptions } from './serve-options.ts';
import type * as ServerModule from './index.ts';
import { SENTINEL_VERSION } from './version.ts';

/**
 * What `loadServer` imports before `./index.ts`, one at a time: the server's heaviest packages and
 * modules (each evaluates in one synchronous run, during which no request is answered). Each is
 * one the server imports anyway (test/server/serve-listen.test.ts), so staging loads nothing extra.
 */
export const SERVER_LOAD_STAGES: readonly string[] = [
  'express',
  '@modelcontextprotocol/sdk/types.js',
  '@modelcontextprotocol/sdk/server/index.js',
  '@modelcontextprotocol/sdk/server/streamableHttp.js',
  'yaml',
  'pino',
  'prom-client',
  '../tools/index.ts',
];

/** Lets the event loop accept and answer what arrived (two turns: accept, then read the request). */
const yieldToRequests = async () => {
  for (let turn = 0; turn < 2; turn += 1) await new Promise<void>((resolve) => setImmediate(resolve));
};

/**
 * Imports the server (`./index.ts`) in `SERVER_LOAD_STAGES`, yielding to the event loop between
 * them, so that an early listener (`bindEarly`) answers /healthz while the server loads: loading a
 * module graph runs without a break (the launcher's type-stripping cache loads synchronously), so
 * one `import('./index.ts')` would hold every request until all of it were evaluated.
 */
export async function loadServer(): Promise<typeof ServerModule> {
  for (const stage of SERVER_LOAD_STAGES) {
    await import(stage);
    await yieldToRequests();
  }
  return import('./index.ts');
}

/** Requests held while the server loads; beyond that, 503 with `Retry-After: 1`. */
export const MAX_HELD_REQUESTS = 256;

/** A listening address whose requests the server takes over once loaded (see `bindEarly`). */
export interface EarlyServer extends ListeningServer {
  /** Hands every request from now on, and those held, to `app`. */
  attach(app: RequestListener): void;
  /** Answers the held requests 503 and stops listening; closing again returns the same promise. */
  close(): Promise<void>;
}

/** Reads a PEM file of `--tls-cert`/`--tls-key`; `SentinelError('invalid_input')` naming `flag`. */
export function readPem(file: string, flag: string): Buffer {
  try {
    return readFileSync(file);
  } catch (error) {
    throw new SentinelError('invalid_input', `${flag} ${file} cannot be read: ${(error as Error).message}.`, {
      field: flag,
      cause: error,
    });
  }
}

/**
 * The address cannot be bound (taken, not on this machine, not permitted): a configuration error
 * to fix with --port/--host (`invalid_input`, exit 2), not an unreachable dependency (exit 3).
 */
export function listenError(error: unknown, options: Pick<ServeOptions, 'host' | 'port'>): SentinelError {
  const code = (error as NodeJS.ErrnoException).code;
  return new SentinelError(
    'invalid_input',
    code === 'EADDRINUSE'
      ? `Port ${options.port} on ${options.host} is already in use; choose another with --port (0 picks a free one).`
      : `Cannot listen on ${options.host}:${options.port}: ${(error as Error).message}.`,
    { field: code === 'EADDRINUSE' ? '--port' : '--host', cause: error },
  );
}

/**
 * Whether `sentinel serve` may bind before loading the server: over HTTP, on loopback, or on a
 * remote address allowed with --allow-remote and a startup token (--token-file or SENTINEL_TOKEN)
 * — the address rule (server/config.ts `checkBindAddress`) then already holds. Otherwise (a remote
 * address whose only tokens are in tokens.yaml) the server binds once loaded, after that check.
 */
export function bindsEarly(options: ServeOptions, env: NodeJS.ProcessEnv): boolean {
  if (options.stdio) return false;
  if (isLoopbackHost(options.host)) return true;
  return options.allowRemote && (options.tokenFile !== undefined || Boolean(env.SENTINEL_TOKEN));
}

const json = (res: ServerResponse, status: number, body: unknown, headers: Record<string, string> = {}) => {
  res.writeHead(status, { 'content-type': 'application/json; charset=utf-8', ...headers });
  res.end(JSON.stringify(body));
};

/**
 * Listens on `options.host`/`port` (HTTPS with --tls-cert/--tls-key) with the start-up handler
 * described above. Throws `SentinelError`: `refused` for an address `checkBindAddress` refuses,
 * `invalid_input` for an unreadable PEM file or an address that cannot be bound (`listenError`).
 */
export async function bindEarly(options: ServeOptions): Promise<EarlyServer> {
  checkBindAddress(options.host, options.allowRemote, true);
  const tls = options.tlsCert
    ? { cert: readPem(options.tlsCert, '--tls-cert'), key: readPem(options.tlsKey!, '--tls-key') }
    : undefined;
  const refusal = hostAndOriginRefusal(allowedHostNames(options.host, options.allowedHost));
  const startedAt = Date.now();
  const held = new Set<[IncomingMessage, ServerResponse]>();
  let app: RequestListener | undefined;
  let closed = false;

  const starting = () => ({
    status: 'starting',
    version: SENTINEL_VERSION,
    uptime_seconds: Math.floor((Date.now() - startedAt) / 1000),
    cluster: { configured: null, connecting: false, reason: 'The server is starting.' },
  });
  const unavailable = (res: ServerResponse, message: string) => {
    const error = new SentinelError('unavailable', message, { statusCode: 503 });
    json(res, 503, error.toJsonRpcBody(), { 'retry-after': '1' });
  };
  const handle: RequestListener = (req, res) => {
    if (app) {
      app(req, res);
      return;
    }
    const refused = refusal(req);
    if (refused !== undefined) {
      json(res, 403, new SentinelError('forbidden', refused).toJsonRpcBody());
      return;
    }
    const path = (req.url ?? '/').split('?')[0];
    const probe = req.method === 'GET' || req.method === 'HEAD';
    if (probe && path === '/healthz') json(res, 200, starting());
    else if (probe && path === '/readyz') json(res, 503, starting());
    else if (closed || held.size >= MAX_HELD_REQUESTS)
      unavailable(res, 'The server is starting; retry in a moment.');
    else {
      const entry: [IncomingMessage, ServerResponse] = [req, res];
      held.add(entry);
      res.once('close', () => held.delete(entry));
    }
  };

  let server: ListeningServer;
  try {
    server = await listen(handle, { host: options.host, port: options.port, ...(tls && { tls }) });
  } catch (error) {
    throw listenError(error, options);
  }
  let closing: Promise<void> | undefined;
  return {
    ...server,
    attach(next) {
      app = next;
      const waiting = [...held];
      held.clear();
      for (const [req, res] of waiting) next(req, res);
    },
    close() {
      closed = true;
      for (const [, res] of held) unavailable(res, 'The server stopped while starting.');
      held.clear();
      return (closing ??= server.close());
    },
  };
}
