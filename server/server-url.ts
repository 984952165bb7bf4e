/**
 * The Sentinel server's URL as clients take it: `--server <url>`, else `SENTINEL_SERVER_URL`
 * (the one name every command reads; `SENTINEL_SERVER` is a deprecated alias), else the default
 * address of `sentinel serve`. A URL may be given as the base (`http://127.0.0.1:7070`) or the MCP
 * endpoint (`http://127.0.0.1:7070/mcp`); `serverBaseUrl` and `serverMcpUrl` turn either into the
 * form a command needs.
 */
import { SentinelError } from '../core/light.ts';

/** Where `sentinel serve` listens by default. */
export const DEFAULT_SERVER_URL = 'http://127.0.0.1:7070';

/** The environment variable holding the server URL. */
export const SERVER_URL_ENV = 'SENTINEL_SERVER_URL';

/** Deprecated alias of `SENTINEL_SERVER_URL`, still read (with a warning). */
export const DEPRECATED_SERVER_URL_ENV = 'SENTINEL_SERVER';

/**
 * The server's base URL (no trailing `/` or `/mcp`) from a base or MCP URL. Throws
 * `SentinelError('invalid_input')` naming `--server` when it is not an http(s) URL.
 */
export function serverBaseUrl(server: string): string {
  let url: URL;
  try {
    url = new URL(server);
  } catch {
    url = new URL('invalid:');
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new SentinelError(
      'invalid_input',
      `--server '${server}' is not an http(s) URL; expected e.g. ${DEFAULT_SERVER_URL}.`,
      { field: '--server' },
    );
  }
  return `${url.origin}${url.pathname.replace(/\/+$/, '').replace(/\/mcp$/, '')}`;
}

/** The server's MCP endpoint (`<base>/mcp`) from a base or MCP URL; throws like `serverBaseUrl`. */
export function serverMcpUrl(server: string): string {
  return `${serverBaseUrl(server)}/mcp`;
}

/**
 * Reads the deprecated `SENTINEL_SERVER` into `SENTINEL_SERVER_URL` when only the old name is set,
 * and returns the warning to show (undefined when the old name is not set). Call once, before the
 * command line is parsed.
 */
export function applyDeprecatedServerUrlEnv(env: NodeJS.ProcessEnv = process.env): string | undefined {
  const old = env[DEPRECATED_SERVER_URL_ENV];
  if (old === undefined || old === '') return undefined;
  if (env[SERVER_URL_ENV] === undefined || env[SERVER_URL_ENV] === '') {
    env[SERVER_URL_ENV] = old;
    return `sentinel: ${DEPRECATED_SERVER_URL_ENV} is deprecated; set ${SERVER_URL_ENV} instead (using its value).\n`;
  }
  return `sentinel: ${DEPRECATED_SERVER_URL_ENV} is deprecated and ignored: ${SERVER_URL_ENV} is set.\n`;
}
