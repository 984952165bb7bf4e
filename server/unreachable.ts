/**
 * The one message every client command gives when no Sentinel server answers at the URL it uses
 * (issue 18: "fetch failed" told a new user nothing): which URL it tried, why in plain words, and
 * the command that starts one. Light: no zod, no server code.
 */
import { SentinelError, sentinelCommand } from '../core/light.ts';

/** Plain words for the socket errors a refused or missing server gives (undici's `cause.code`). */
const REASONS: Record<string, string> = {
  ECONNREFUSED: 'connection refused',
  ECONNRESET: 'connection reset',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  EHOSTUNREACH: 'host unreachable',
  ENETUNREACH: 'network unreachable',
  ETIMEDOUT: 'connection timed out',
  UND_ERR_CONNECT_TIMEOUT: 'connection timed out',
  UND_ERR_SOCKET: 'connection closed',
};

/** The errno-style code of `error` or of its `cause` chain (undici wraps it in "fetch failed"). */
function socketCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string' && code in REASONS) return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

/** Whether `error` means nothing answered at the address (refused, reset, unknown host, …). */
export function isConnectionFailure(error: unknown): boolean {
  return socketCode(error) !== undefined || (error as Error | undefined)?.message === 'fetch failed';
}

/** Where `sentinel serve` listens by default (serve-options.ts, cli/serve.ts). */
const SERVE_HOST = '127.0.0.1';
const SERVE_PORT = '7070';

/** Below this, a port needs privileges to bind: a URL there is a typo, not where to start `serve`. */
const FIRST_UNPRIVILEGED_PORT = 1024;

/**
 * The `serve` flags that make a server on this machine answer at `url`: `--port` when the port is
 * not 7070 (the scheme's default port when the URL has none), `--host` for a loopback address
 * other than 127.0.0.1/localhost. Undefined for a non-loopback or unparsable URL (a `serve` here
 * would not answer there) and for a privileged port (`--server http://127.0.0.1:1`: a typo).
 */
function serveFlags(url: string): string | undefined {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return undefined;
  }
  const host = parsed.hostname.replace(/^\[(.*)\]$/, '$1');
  const lower = host.toLowerCase();
  const loopback = lower === 'localhost' || lower === '::1' || /^127\.\d+\.\d+\.\d+$/.test(host);
  if (!loopback) return undefined;
  const port = parsed.port || (parsed.protocol === 'https:' ? '443' : '80');
  if (Number(port) < FIRST_UNPRIVILEGED_PORT) return undefined;
  const hostFlag = lower === 'localhost' || host === SERVE_HOST ? '' : ` --host ${host}`;
  return `${hostFlag}${port === SERVE_PORT ? '' : ` --port ${port}`}`;
}

/**
 * `SentinelError('unavailable')` (exit 3) for a server that does not answer at `url` (base or MCP
 * URL, shown as given):
 * "No Sentinel server answers at http://127.0.0.1:7070 (connection refused). Start one in another
 * terminal with `npx sentinel serve`, or point --server or SENTINEL_SERVER_URL at a running one."
 * `dataDir`, when the command was given one, is repeated in the `serve` command; so are `--port`
 * (and `--host`) when `url` is on this machine but not at serve's default 127.0.0.1:7070. For a
 * URL a local `serve` would not answer (another host, a privileged port) it asks instead:
 * "Is a Sentinel server running at <url>? Check --server (or SENTINEL_SERVER_URL)."
 */
export function serverUnreachable(url: string, error: unknown, dataDir?: string): SentinelError {
  const code = socketCode(error);
  // undici says only "fetch failed"; its cause says why (e.g. "bad port" for a port fetch refuses).
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  const detail =
    error instanceof Error && error.message === 'fetch failed' && cause instanceof Error ? cause : error;
  const reason = code ? REASONS[code] : detail instanceof Error ? detail.message : String(detail);
  const flags = serveFlags(url);
  const serve = `${sentinelCommand()} serve${flags ?? ''}${dataDir ? ` --data-dir ${dataDir}` : ''}`;
  const hint =
    flags === undefined
      ? `Is a Sentinel server running at ${url}? Check --server (or SENTINEL_SERVER_URL).`
      : `Start one in another terminal with \`${serve}\`, or point --server or SENTINEL_SERVER_URL at a running one.`;
  return new SentinelError('unavailable', `No Sentinel server answers at ${url} (${reason}). ${hint}`, {
    cause: error,
  });
}

/**
 * Throws `serverUnreachable` when nothing answers `GET <base>/healthz` (no token needed) within
 * `timeoutMs` (default 2000): for a command that has no token to send, so that "no token" is said
 * only when a server is there to take one. Any HTTP answer counts as a server.
 */
export async function ensureServerAnswers(base: string, dataDir?: string, timeoutMs = 2000): Promise<void> {
  try {
    const response = await fetch(`${base}/healthz`, { signal: AbortSignal.timeout(timeoutMs) });
    await response.body?.cancel();
  } catch (error) {
    if (isConnectionFailure(error)) throw serverUnreachable(base, error, dataDir);
  }
}
