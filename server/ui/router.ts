/**
 * The approvals web page at `/ui/approvals` and its endpoints, for approvers (identities with the
 * `approver` or `admin` role):
 *
 *   GET  /ui/login?ticket=…          one-time login URL → session cookie, 303 to the page
 *   GET  /ui/login                   login form; POST /ui/login {token} → session cookie
 *   POST /ui/logout                  (CSRF) ends the session (its live streams get `logout`)
 *   GET  /ui/approvals               the page (303 to the login form without a session)
 *   GET  /ui/events                  Server-Sent Events: `snapshot` (pending and recent requests) on
 *                                    connect, on every approval event and every 30 s; `logout`
 *   GET  /ui/api/approvals           the same snapshot as JSON
 *   GET  /ui/api/approvals/:id/check what changed on the target since the preview, and the freeze
 *                                    (read-only; shown as a warning on the pending request)
 *   POST /ui/api/approvals/:id/approve {validity?, confirm?}   (CSRF; `confirm` required for
 *                                    dangerous requests, see confirmation.ts)
 *   POST /ui/api/approvals/:id/deny    {reason}      (CSRF)
 *
 * Sessions are HttpOnly, SameSite=Strict cookies scoped to `/ui` (Secure over HTTPS); every
 * state-changing request must carry the session's CSRF token (`X-CSRF-Token` header, or a `csrf`
 * form field). A session ends when its identity is revoked, loses the approver role or has its token
 * rotated (checked on every request and before every live update). Decisions go through the gate's
 * approvals service, which enforces who may decide (never the requester); its refusals come back as
 * `{ error: { code, message } }` for the page to show. Every response carries a strict
 * Content-Security-Policy and no-store caching.
 */
import { parse as parseCookies } from 'cookie';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import { readFileSync } from 'node:fs';
import type { Logger } from 'pino';
import type { z } from 'zod';
import { fromZod, toSentinelError } from '../../core/index.ts';
import { DenyBodySchema, type ApprovalRequest } from '../gate/approval-request.ts';
import type { ApprovalsHub } from '../gate/events.ts';
import { hasRole, LOCAL_IDENTITY_NAME, type Identity } from '../identity.ts';
import type { IdentityStore } from '../identity-store.ts';
import { checkConfirmation, PageApproveBodySchema } from './confirmation.ts';
import { approvalsPage, loginPage, pageItem, PAGE_PATH, UI_PREFIX, type Snapshot } from './page.ts';
import type { Session, SessionStore } from './sessions.ts';
import type { VerificationLookup } from './verification.ts';

export const SESSION_COOKIE = 'sentinel_session';
/** Decided requests shown under "Recently decided". */
const HISTORY_SIZE = 20;
/** Full refresh interval of the live stream (ages, expiries), ms. */
const REFRESH_MS = 30_000;

const CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "connect-src 'self'",
  "img-src 'self'",
  "form-action 'self'",
  "frame-ancestors 'none'",
  "base-uri 'none'",
].join('; ');

const asset = (name: string) => readFileSync(new URL(`./assets/${name}`, import.meta.url), 'utf8');

export interface UiRouterOptions {
  approvals: ApprovalsHub;
  identities: Pick<IdentityStore, 'get' | 'list' | 'lookupByToken'>;
  sessions: SessionStore;
  logger?: Logger;
  now?: () => Date;
  /** The verification shown on an executed request (`investigationVerification`); default none. */
  verificationOf?: VerificationLookup;
}

/** The cluster an item targets, for grouping: requests of one cluster stay together, in their order. */
const byCluster = (a: ApprovalRequest, b: ApprovalRequest) =>
  (a.cluster?.context ?? '').localeCompare(b.cluster?.context ?? '');

export interface UiRouter {
  router: Router;
  /** Ends the live streams (on shutdown). */
  close(): void;
}

const mayDecide = (identity: Identity) => hasRole(identity, 'approver') || hasRole(identity, 'admin');

export function createUiRouter(options: UiRouterOptions): UiRouter {
  const { approvals, identities, sessions, logger } = options;
  const now = options.now ?? (() => new Date());
  const verificationOf = options.verificationOf ?? (() => undefined);
  const item = (request: ApprovalRequest, time: Date) => pageItem(request, time, verificationOf(request));
  const script = asset('approvals.js');
  const styles = asset('approvals.css');
  const favicon = asset('favicon.svg');
  type Stream = { session: string; send: () => Promise<void>; logout: () => void; end: () => void };
  const streams = new Set<Stream>();
  // A session ended anywhere (sign-out, revocation, rotation) closes its live streams at once.
  const stopListening = sessions.onEnd((ended) => {
    for (const stream of [...streams]) if (stream.session === ended.id) stream.logout();
  });

  /**
   * Fingerprint of `name`'s current credential: its token hash in tokens.yaml, so a rotated token
   * (revoked and added again under the same name) no longer matches the sessions of the old one.
   * `local`'s is its startup token's fingerprint: sessions are kept in the store across restarts,
   * and a restart with another token (or `sentinel tokens rotate local`) ends them.
   */
  const credentialOf = (name: string): string | undefined => {
    if (name === LOCAL_IDENTITY_NAME) return identities.get(name)?.credential ?? LOCAL_IDENTITY_NAME;
    try {
      return identities.list().find((record) => record.name === name)?.token_sha256;
    } catch {
      return undefined; // tokens.yaml unreadable: fail closed, like authentication does
    }
  };

  const router = express.Router();
  router.use((_req, res, next) => {
    res.setHeader('Content-Security-Policy', CSP);
    res.setHeader('Cache-Control', 'no-store');
    // same-origin, not no-referrer: with no-referrer Chromium sends `Origin: null` on the login
    // form's POST, which the server's Origin check rightly refuses. Nothing links off-site.
    res.setHeader('Referrer-Policy', 'same-origin');
    res.setHeader('X-Content-Type-Options', 'nosniff');
    res.setHeader('X-Frame-Options', 'DENY');
    next();
  });

  const startSession = async (req: Request, res: Response, identity: Identity) => {
    const credential = credentialOf(identity.name);
    if (credential === undefined) {
      res.status(401).type('html').send(loginPage('Unknown or revoked token.'));
      return;
    }
    const session = await sessions.create(identity.name, credential);
    res.cookie(SESSION_COOKIE, session.id, {
      httpOnly: true,
      sameSite: 'strict',
      secure: req.secure,
      path: UI_PREFIX,
      maxAge: sessions.cookieMaxAgeSeconds * 1000,
    });
    logger?.info({ identity: identity.name }, 'approvals page: signed in');
    res.redirect(303, PAGE_PATH);
  };

  /** The session and its (still valid) identity, or undefined. */
  const current = async (req: Request): Promise<{ session: Session; identity: Identity } | undefined> => {
    const id = parseCookies(req.headers.cookie ?? '')[SESSION_COOKIE];
    const session = id ? await sessions.touch(id) : undefined;
    if (!session) return undefined;
    const identity = identities.get(session.identity);
    if (!identity || !mayDecide(identity)) {
      await sessions.endSessionsFor(session.identity);
      return undefined;
    }
    if (credentialOf(session.identity) !== session.credential) {
      await sessions.destroy(session.id);
      return undefined;
    }
    return { session, identity };
  };

  /** `current`, with a store that cannot be read counted as no session (fail closed). */
  const currentOrNone = (req: Request) =>
    current(req).catch((error: unknown) => {
      logger?.error({ err: error }, 'approvals page: session store unreadable');
      return undefined;
    });

  const requireSession =
    (mode: 'page' | 'api') => async (req: Request, res: Response, next: NextFunction) => {
      const found = await currentOrNone(req);
      if (found) {
        res.locals.session = found.session;
        res.locals.identity = found.identity;
        req.identity = found.identity;
        next();
      } else if (mode === 'page') {
        res.redirect(303, `${UI_PREFIX}/login`);
      } else {
        res
          .status(401)
          .json({ error: { code: 'unauthorized', message: 'Your session ended; sign in again.' } });
      }
    };

  const requireCsrf = (req: Request, res: Response, next: NextFunction) => {
    const session = res.locals.session as Session;
    const presented = req.get('x-csrf-token') ?? (req.body as { csrf?: unknown } | undefined)?.csrf;
    if (sessions.checkCsrf(session, presented)) {
      next();
      return;
    }
    res.status(403).json({
      error: { code: 'forbidden', message: 'Missing or wrong CSRF token; reload the page and try again.' },
    });
  };

  const snapshot = async (): Promise<Snapshot> => {
    const service = approvals.service();
    const time = now();
    const all = await service.list({});
    // Grouped by cluster (a stable sort keeps newest first within each), so requests for
    // production and staging never interleave.
    return {
      pending: all
        .filter((request) => request.status === 'pending')
        .sort(byCluster)
        .map((request) => item(request, time)),
      history: all
        .filter((request) => request.status !== 'pending')
        .slice(0, HISTORY_SIZE)
        .sort(byCluster)
        .map((request) => item(request, time)),
    };
  };

  const fail = (res: Response, error: unknown) => {
    const failure = toSentinelError(error);
    if (failure.code === 'internal') logger?.error({ err: error }, 'approvals page request failed');
    // The page's API answers code and message only (its script shows the message).
    res.status(failure.statusCode).json({ error: { code: failure.code, message: failure.message } });
  };

  router.get(`${UI_PREFIX}/assets/approvals.js`, (_req, res) => {
    res.type('text/javascript').send(script);
  });
  router.get(`${UI_PREFIX}/assets/approvals.css`, (_req, res) => {
    res.type('text/css').send(styles);
  });
  router.get(`${UI_PREFIX}/assets/favicon.svg`, (_req, res) => {
    res.type('image/svg+xml').send(favicon);
  });
  router.get([UI_PREFIX, `${UI_PREFIX}/`], (_req, res) => res.redirect(303, PAGE_PATH));

  router.get(`${UI_PREFIX}/login`, async (req, res) => {
    const ticket = typeof req.query.ticket === 'string' ? req.query.ticket : undefined;
    if (ticket === undefined) {
      res.type('html').send(loginPage());
      return;
    }
    const name = await sessions.redeemTicket(ticket).catch((error: unknown) => {
      logger?.error({ err: error }, 'approvals page: session store unreadable');
      return undefined;
    });
    const identity = name === undefined ? undefined : identities.get(name);
    if (!identity || !mayDecide(identity)) {
      res
        .status(401)
        .type('html')
        .send(loginPage('This login link was already used or has expired. Sign in with an approver token.'));
      return;
    }
    await startSession(req, res, identity).catch((error: unknown) => fail(res, error));
  });

  router.post(
    `${UI_PREFIX}/login`,
    express.urlencoded({ extended: false, limit: '8kb' }),
    async (req, res) => {
      const token = (req.body as { token?: unknown } | undefined)?.token;
      const identity =
        typeof token === 'string' && token !== '' ? identities.lookupByToken(token) : undefined;
      if (!identity) {
        res.status(401).type('html').send(loginPage('Unknown or revoked token.'));
        return;
      }
      if (!mayDecide(identity)) {
        res
          .status(403)
          .type('html')
          .send(
            loginPage(
              `Identity '${identity.name}' is not an approver; this page is for approvers and admins.`,
            ),
          );
        return;
      }
      await startSession(req, res, identity).catch((error: unknown) => fail(res, error));
    },
  );

  router.post(
    `${UI_PREFIX}/logout`,
    express.urlencoded({ extended: false, limit: '8kb' }),
    requireSession('api'),
    requireCsrf,
    async (_req, res) => {
      await sessions.destroy((res.locals.session as Session).id).catch((error: unknown) => {
        logger?.error({ err: error }, 'approvals page: sign-out not stored');
      });
      res.clearCookie(SESSION_COOKIE, { path: UI_PREFIX });
      res.redirect(303, `${UI_PREFIX}/login`);
    },
  );

  router.get(PAGE_PATH, requireSession('page'), async (_req, res) => {
    const { session, identity } = {
      session: res.locals.session as Session,
      identity: res.locals.identity as Identity,
    };
    try {
      res
        .type('html')
        .send(approvalsPage({ identity: identity.name, csrf: session.csrf, snapshot: await snapshot() }));
    } catch (error) {
      const failure = toSentinelError(error);
      res.status(failure.statusCode).type('html').send(loginPage(failure.message));
    }
  });

  router.get(`${UI_PREFIX}/api/approvals`, requireSession('api'), async (_req, res) => {
    try {
      res.json(await snapshot());
    } catch (error) {
      fail(res, error);
    }
  });

  router.get(`${UI_PREFIX}/api/approvals/:id/check`, requireSession('api'), async (req, res) => {
    try {
      res.json(await approvals.service().check(String(req.params.id)));
    } catch (error) {
      fail(res, error);
    }
  });

  router.get(`${UI_PREFIX}/events`, requireSession('api'), (req, res) => {
    const session = res.locals.session as Session;
    res.writeHead(200, {
      'Content-Type': 'text/event-stream; charset=utf-8',
      'Cache-Control': 'no-store',
      Connection: 'keep-alive',
      'X-Accel-Buffering': 'no',
    });
    const write = (event: string, data: unknown) =>
      res.write(`event: ${event}\ndata: ${JSON.stringify(data)}\n\n`);
    let sending: Promise<void> | undefined;
    let again = false;
    let ended = false;
    const stream: Stream = {
      session: session.id,
      // Coalesces bursts: at most one snapshot in flight, and one more after it if events arrived.
      send: async () => {
        if (sending) {
          again = true;
          return sending;
        }
        sending = (async () => {
          do {
            again = false;
            if (!(await currentOrNone(req))) {
              stream.logout();
              return;
            }
            try {
              write('snapshot', await snapshot());
            } catch (error) {
              const failure = toSentinelError(error);
              write('failure', { code: failure.code, message: failure.message });
            }
          } while (again);
        })().finally(() => (sending = undefined));
        return sending;
      },
      logout: () => {
        if (ended) return;
        write('logout', { message: 'Your session ended; sign in again.' });
        stream.end();
      },
      end: () => {
        if (ended) return;
        ended = true;
        clearInterval(timer);
        unsubscribe();
        streams.delete(stream);
        res.end();
      },
    };
    const timer = setInterval(() => void stream.send(), REFRESH_MS);
    timer.unref();
    // Events of other replicas too (`remote`): the page shows the shared store, wherever it changed.
    const unsubscribe = approvals.subscribe(() => void stream.send(), { remote: true });
    streams.add(stream);
    req.on('close', () => stream.end());
    void stream.send();
  });

  const decide = (action: (request: Request, identity: Identity) => Promise<ApprovalRequest>) => [
    requireSession('api'),
    express.json({ limit: '16kb' }),
    requireCsrf,
    async (req: Request, res: Response) => {
      try {
        const request = await action(req, res.locals.identity as Identity);
        res.json({ request: item(request, now()), status: request.status });
      } catch (error) {
        fail(res, error);
      }
    },
  ];

  const parse = <S extends z.ZodType>(schema: S, body: unknown): z.infer<S> => {
    const parsed = schema.safeParse(body ?? {});
    if (parsed.success) return parsed.data;
    throw fromZod(parsed.error, [], { root: '(body)' });
  };

  router.post(
    `${UI_PREFIX}/api/approvals/:id/approve`,
    ...decide(async (req, identity) => {
      const { confirm, ...body } = parse(PageApproveBodySchema, req.body);
      const id = String(req.params.id);
      const service = approvals.service();
      const request = await service.get(id);
      // Only a pending request of someone else can be approved; otherwise the service says why
      // (decided, expired, your own request), which helps more than asking for the confirmation.
      if (request.status === 'pending' && request.requester !== identity.name) {
        checkConfirmation(request, confirm);
      }
      return service.approve(id, identity, body);
    }),
  );
  router.post(
    `${UI_PREFIX}/api/approvals/:id/deny`,
    ...decide((req, identity) =>
      approvals.service().deny(String(req.params.id), identity, parse(DenyBodySchema, req.body).reason),
    ),
  );
  // Malformed JSON and oversized bodies on the page's endpoints answer in the page's error shape.
  router.use(
    UI_PREFIX,
    (error: { status?: number; message?: string }, _req: Request, res: Response, next: NextFunction) => {
      if (res.headersSent || typeof error.status !== 'number') {
        next(error);
        return;
      }
      res.status(error.status).json({
        error: { code: 'invalid_input', message: 'The request body is not valid JSON or is too large.' },
      });
    },
  );

  return {
    router,
    close: () => {
      stopListening();
      for (const stream of [...streams]) stream.end();
    },
  };
}
