/**
 * HTTP guards shared by every route of the server: Host/Origin checks (DNS-rebinding protection)
 * and bearer-token authentication that turns a token into an `Identity`.
 *
 * Other modules mount their routers behind the same `authenticate` middleware and read the caller
 * from `req.identity` (or `res.locals.identity`).
 */
import type { RequestHandler } from 'express';
import { requireBearerAuth } from '@modelcontextprotocol/sdk/server/auth/middleware/bearerAuth.js';
import { InvalidTokenError } from '@modelcontextprotocol/sdk/server/auth/errors.js';
import { SentinelError } from '../core/index.ts';
import type { Identity } from './identity.ts';
import type { IdentityStore } from './identity-store.ts';
import { hostAndOriginRefusal } from './host-check.ts';

export { hostHeaderName, LOCALHOST_NAMES } from './host-check.ts';

declare module 'express-serve-static-core' {
  interface Request {
    /** The authenticated caller, set by `authenticate`. */
    identity?: Identity;
  }
}

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
  const refusal = hostAndOriginRefusal(allowedHosts);
  const check: RequestHandler = (req, res, next) => {
    const refused = refusal(req);
    if (refused === undefined) next();
    else forbidden(res, refused);
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
