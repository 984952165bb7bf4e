/**
 * Host/Origin checks (DNS-rebinding protection) without Express or the MCP SDK: the rules behind
 * server/auth.ts's `hostAndOriginCheck`, light enough for what answers before the server is loaded
 * (server/serve-listen.ts: /healthz during start-up) and for the address rules of config.ts.
 */
import type { IncomingMessage } from 'node:http';
import { isIPv6 } from 'node:net';
import { SentinelError } from '../core/index.ts';

/** Host names that always reach a loopback server (Host header form, IPv6 in brackets). */
export const LOCALHOST_NAMES: readonly string[] = ['localhost', '127.0.0.1', '[::1]'];

/**
 * The Host-header form of a host or `host:port`: lowercase, IPv6 in brackets, the port kept when
 * given (`Sentinel.Example.com:8443` → `sentinel.example.com:8443`, `fe80::1` → `[fe80::1]`). Throws
 * `SentinelError('invalid_input')` naming `field` when it is not a host name or address (or its port
 * is not 1–65535).
 */
export function hostHeaderName(value: string, field = '--allowed-host'): string {
  const bare = value.trim();
  try {
    const url = new URL(`http://${isIPv6(bare) ? `[${bare}]` : bare}`);
    const explicitPort = isIPv6(bare) ? undefined : /:(\d+)$/.exec(bare.replace(/^\[[^\]]*\]$/, ''))?.[1];
    if (url.hostname !== '' && url.pathname === '/' && url.search === '' && url.username === '') {
      return explicitPort === undefined ? url.hostname : `${url.hostname}:${Number(explicitPort)}`;
    }
  } catch {
    // reported below
  }
  throw new SentinelError('invalid_input', `${field} '${value}' is not a host name or IP address.`, {
    field,
  });
}

/** An allowed authority: a host name and a port (undefined: the port the request arrived on). */
interface AllowedAuthority {
  hostname: string;
  port: number | undefined;
}

function allowedAuthority(entry: string): AllowedAuthority {
  const url = new URL(`http://${entry}`);
  const explicit = /:(\d+)$/.exec(entry.replace(/^\[[^\]]*\]$/, ''))?.[1];
  return {
    hostname: url.hostname.toLowerCase(),
    port: explicit === undefined ? undefined : Number(explicit),
  };
}

/** Host name and effective port of an authority under `scheme` (no port: the scheme's default). */
function parseAuthority(scheme: string, authority: string): { hostname: string; port: number } | undefined {
  // Clients send the same few Host/Origin values on every request; WHATWG URL parsing is not free.
  const key = `${scheme}//${authority}`;
  if (parsedAuthorities.has(key)) return parsedAuthorities.get(key);
  const parsed = parseAuthorityUncached(scheme, authority);
  if (parsedAuthorities.size >= MAX_PARSED_AUTHORITIES) parsedAuthorities.clear();
  parsedAuthorities.set(key, parsed);
  return parsed;
}

/** Parsed Host/Origin authorities (frozen answers; a bounded cache cleared when full). */
const parsedAuthorities = new Map<string, Readonly<{ hostname: string; port: number }> | undefined>();
const MAX_PARSED_AUTHORITIES = 256;

function parseAuthorityUncached(
  scheme: string,
  authority: string,
): Readonly<{ hostname: string; port: number }> | undefined {
  try {
    const url = new URL(`${scheme}//${authority}`);
    if (url.host.toLowerCase() === '' || url.pathname !== '/' || url.username !== '' || url.search !== '') {
      return undefined;
    }
    const port = url.port === '' ? DEFAULT_PORTS[url.protocol] : Number(url.port);
    return port === undefined ? undefined : Object.freeze({ hostname: url.hostname.toLowerCase(), port });
  } catch {
    return undefined;
  }
}

const DEFAULT_PORTS: Record<string, number> = { 'http:': 80, 'https:': 443 };

/**
 * A checker that refuses any request whose Host is not an allowed host *and port*, or whose
 * Origin (when present) is not an allowed host and port (DNS rebinding, and a page served on
 * another port of the same machine: the cookie of a loopback server is shared by every port, so
 * only the port tells a page of this server from another one).
 *
 * `allowedHosts` are in Host-header form (see `hostHeaderName`): `name:port` matches that port only;
 * a bare `name` matches the port the request arrived on (the server's own port). A Host or Origin
 * without a port means the scheme's default (80, 443). Origin must be `http:` or `https:`
 * (`Origin: null` is refused).
 *
 * The checker returns why the request is refused (`Invalid Host: …`), or undefined when it passes.
 */
export function hostAndOriginRefusal(
  allowedHosts: readonly string[],
): (req: Pick<IncomingMessage, 'headers' | 'socket'>) => string | undefined {
  const allowed = allowedHosts.map(allowedAuthority);
  const isAllowed = (found: { hostname: string; port: number }, localPort: number) =>
    allowed.some((entry) => entry.hostname === found.hostname && (entry.port ?? localPort) === found.port);
  return (req) => {
    const localPort = req.socket.localPort ?? -1;
    const host = req.headers.host;
    if (!host) return 'Missing Host header';
    const scheme = (req.socket as { encrypted?: boolean }).encrypted ? 'https:' : 'http:';
    const hostAuthority = parseAuthority(scheme, host);
    if (!hostAuthority || !isAllowed(hostAuthority, localPort)) return `Invalid Host: ${host}`;
    const origin = req.headers.origin;
    if (origin !== undefined) {
      const match = /^(https?:)\/\/([^/]*)$/i.exec(origin);
      const originAuthority = match ? parseAuthority(match[1]!.toLowerCase(), match[2]!) : undefined;
      if (!originAuthority || !isAllowed(originAuthority, localPort)) return `Invalid Origin: ${origin}`;
    }
    return undefined;
  };
}
