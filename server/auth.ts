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
import { hostHeaderValidation } from '@modelcontextprotocol/sdk/server/middleware/hostHeaderValidation.js';
import { SentinelError } from '../tools/errors.ts';
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
 * The Host-header form of a host or `host:port` (lowercase, IPv6 in brackets, no port). Throws
 * `SentinelError('invalid_input')` naming `field` when it is not a host name or address.
 */
export function hostHeaderName(value: string, field = '--allowed-host'): string {
  const bare = value.trim();
  try {
    const hostname = new URL(`http://${isIPv6(bare) ? `[${bare}]` : bare}`).hostname;
    if (hostname !== '') return hostname;
  } catch {
    // reported below
  }
  throw new SentinelError('invalid_input', `${field} '${value}' is not a host name or IP address.`, {
    field,
  });
}

/**
 * Rejects, with 403 and a JSON-RPC error body, any request whose Host is not an allowed host name or
 * whose Origin (when present) is not on an allowed host. Port-agnostic. `allowedHostnames` are in
 * Host-header form (see `hostHeaderName`).
 */
export function hostAndOriginCheck(allowedHostnames: readonly string[]): RequestHandler[] {
  const allowed = [...new Set(allowedHostnames.map((name) => name.toLowerCase()))];
  const checkOrigin: RequestHandler = (req, res, next) => {
    const origin = req.headers.origin;
    if (origin === undefined) {
      next();
      return;
    }
    let hostname: string | undefined;
    try {
      hostname = new URL(origin).hostname;
    } catch {
      hostname = undefined;
    }
    if (hostname !== undefined && allowed.includes(hostname)) {
      next();
      return;
    }
    res.status(403).json({
      jsonrpc: '2.0',
      error: { code: -32000, message: `Invalid Origin: ${origin}` },
      id: null,
    });
  };
  return [hostHeaderValidation(allowed), checkOrigin];
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
