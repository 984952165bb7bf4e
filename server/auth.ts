/**
 * HTTP guards shared by every route of the server: Host/Origin checks (DNS-rebinding protection)
 * and bearer-token authentication that turns a token into an `Identity`.
 *
 * Other modules mount their routers behind the same `authenticate` middleware and read the caller
 * from `req.identity` (or `res.locals.identity`).
 */
import type { RequestHandler } from 'express';
import { isIPv6 } from 'node:net';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { SentinelError } from '../core/index.ts';
import type { Identity } from './identity.ts';
import type { IdentityStore } from './identity-store.ts';

declare module 'express-serve-static-core' {
  interface Request {
    /** The authenticated caller, set by `authenticate`. */
    identity?: Identity;
  }
}

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

const forbidden = (res: Parameters<RequestHandler>[1], message: string): void => {
  const refused = new SentinelError('forbidden', message);
  res.status(refused.statusCode).json(refused.toJsonRpcBody());
};

/**
 * Rejects, with 403 and a JSON-RPC error body, any request whose Host is not an allowed host *and
 * port*, or whose Origin (when present) is not an allowed host and port (DNS rebinding, and a page
 * served on another port of the same machine: the cookie of a loopback server is shared by every
 * port, so only the port tells a page of this server from another one).
 *
 * `allowedHosts` are in Host-header form (see `hostHeaderName`): `name:port` matches that port only;
 * a bare `name` matches the port the request arrived on (the server's own port). A Host or Origin
 * without a port means the scheme's default (80, 443). Origin must be `http:` or `https:`
 * (`Origin: null` is refused).
 */
export function hostAndOriginCheck(allowedHosts: readonly string[]): RequestHandler[] {
  const allowed = allowedHosts.map(allowedAuthority);
  const isAllowed = (found: { hostname: string; port: number }, localPort: number) =>
    allowed.some((entry) => entry.hostname === found.hostname && (entry.port ?? localPort) === found.port);
  const check: RequestHandler = (req, res, next) => {
    const localPort = req.socket.localPort ?? -1;
    const host = req.headers.host;
    if (!host) {
      forbidden(res, 'Missing Host header');
      return;
    }
    const scheme = (req.socket as { encrypted?: boolean }).encrypted ? 'https:' : 'http:';
    const hostAuthority = parseAuthority(scheme, host);
    if (!hostAuthority || !isAllowed(hostAuthority, localPort)) {
      forbidden(res, `Invalid Host: ${host}`);
      return;
    }
    const origin = req.headers.origin;
    if (origin !== undefined) {
      const match = /^(https?:)\/\/([^/]*)$/i.exec(origin);
      const originAuthority = match ? parseAuthority(match[1]!.toLowerCase(), match[2]!) : undefined;
      if (!originAuthority || !isAllowed(originAuthority, localPort)) {
        forbidden(res, `Invalid Origin: ${origin}`);
        return;
      }
    }
    next();
  };
  return [check];
}

/**
 * Bearer authentication: `Authorization: Bearer <token>` of a known identity (constant-time hash
 * comparison in the store). Sets `req.identity` and `res.locals.identity`; otherwise answers 401
 * with `WWW-Authenticate: Bearer error="invalid_token", ...` and does not read the body.
 */
export function createAuthenticate(identities: IdentityStore): RequestHandler {
  const bearer = requireBearerAuth({
    verifier: {
      verifyAccessToken: async (token) => {
        const identity = identities.lookupByToken(token);
        if (!identity) throw new InvalidTokenError('Unknown or revoked token');
        // Tokens do not expire; the verification holds for this request only.
        return {
          token: '',
          clientId: identity.name,
          scopes: identity.roles,
          expiresAt: Math.floor(Date.now() / 1000) + 60,
          extra: { identity },
        };
      },
    },
  });
  return (req, res, next) => {
    void bearer(req, res, (error?: unknown) => {
      if (error !== undefined) {
        next(error);
        return;
      }
      const identity = req.auth?.extra?.identity as Identity;
      req.identity = identity;
      res.locals.identity = identity;
      next();
    });
  };
}
