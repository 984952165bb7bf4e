/**
 * The approvals HTTP API (JSON), mounted behind the server's bearer-token authentication:
 *
 *   GET    /approvals?status=&tool=&requester=   → 200 { approvals: ApprovalRequest[] } (newest first)
 *   GET    /approvals/{id}                       → 200 ApprovalRequest
 *   GET    /approvals/{id}/check                 → 200 ApprovalCheck (the target re-read now vs its preview;
 *          read-only; warnings for a changed target or a change freeze, shown before a decision)
 *   POST   /approvals                            → 201 ApprovalRequest (approved or denied) | 200 { approval_required: false, ... }
 *          { requester, tool, arguments, validity?, effect?, client_ref?, decision?, reason? }
 *          an approver approves (or, with decision deny and a reason, declines) an exact call for a
 *          named requester; with a client_ref already answered: 200 and the first request, unchanged;
 *          decision ask: 201 a pending request for anyone entitled to decide (a later allow/deny POST
 *          with its client_ref decides it, unless decided first)
 *   POST   /approvals/{id}/approve  { validity? } → 200 ApprovalRequest
 *   POST   /approvals/{id}/deny     { reason }    → 200 ApprovalRequest
 *   POST   /approvals/{id}/withdraw              → 200 ApprovalRequest (the requester only)
 *   POST   /approvals/{id}/revoke   { reason }    → 200 ApprovalRequest (an approver takes back an unused grant)
 *   GET    /freeze                               → 200 FreezeState
 *   POST   /freeze                  { reason }    → 200 FreezeState (admin)
 *   DELETE /freeze                               → 200 FreezeState (admin)
 *
 * Errors: `{ error: { code, message, field? } }` with 401 (no identity), 403 (not allowed), 404
 * (unknown id), 409 (already decided), 410 (expired), 415 (a body that is not JSON), 422 (invalid
 * body), 503 (unavailable); the statuses are core's `HTTP_STATUS`. Shapes are defined in
 * `approval-request.ts`.
 */
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { z } from 'zod';
import { fromZod, SentinelError, toSentinelError } from '../../core/index.ts';
import { MAX_BODY_BYTES } from '../limits.ts';
import type { Identity } from '../pipeline.ts';
import {
  ApprovalListQuerySchema,
  ApproveBodySchema,
  CreateApprovalBodySchema,
  DenyBodySchema,
  FreezeBodySchema,
  RevokeBodySchema,
  type ApiError,
} from './approval-request.ts';
import type { ApprovalsService } from './approvals.ts';

export interface ApprovalsRouterOptions {
  /** The authenticated identity of a request. Default: `res.locals.identity`. */
  identityOf?: (req: Request, res: Response) => Identity | undefined;
}

function parseBody<S extends z.ZodType>(schema: S, body: unknown): z.infer<S> {
  const parsed = schema.safeParse(body ?? {});
  if (parsed.success) return parsed.data;
  throw fromZod(parsed.error, [], {
    root: '(body)',
    unknownKeys: 'field',
    message: (lines) => `Invalid request: ${lines}.`,
  });
}

/** Whether a request carries a body (a length other than 0, or chunked), as body-parser decides. */
function hasBody(req: Request): boolean {
  const length = req.headers['content-length'];
  return req.headers['transfer-encoding'] !== undefined || (length !== undefined && length !== '0');
}

/**
 * Refuses a body that is not JSON with 415: express.json() skips it, and the route would read an
 * empty body — an approval sent as text would silently become a once grant.
 */
function requireJsonBody(req: Request, _res: Response, next: NextFunction): void {
  if (!hasBody(req) || req.is('application/json')) return next();
  const type = req.headers['content-type'] ?? '(no Content-Type)';
  next(
    new SentinelError(
      'invalid_input',
      `Invalid request: the body is sent as '${type}'; a request body must be JSON (Content-Type: application/json).`,
      { statusCode: 415 },
    ),
  );
}

/** Answers a failed request with `{ error: { code, message, field? } }` and its HTTP status. */
function sendApiError(error: unknown, _req: Request, res: Response, next: NextFunction): void {
  if (res.headersSent) return next(error);
  // body-parser errors (malformed JSON, too large) carry an HTTP status of their own.
  const httpStatus = (error as { status?: number; type?: string }).status;
  const failure =
    typeof httpStatus === 'number' && !(error instanceof SentinelError)
      ? new SentinelError('invalid_input', `Invalid request body: ${(error as Error).message}.`, {
          statusCode: httpStatus,
        })
      : toSentinelError(error);
  res.status(failure.statusCode).json(failure.toApiBody() satisfies ApiError);
}

/** The `{id}` of an `/approvals/{id}/...` path. */
const id = (req: Request) => String(req.params.id);

/** Builds the router. Mount it where the server's bearer authentication has run. */
export function createApprovalsRouter(
  service: ApprovalsService,
  options: ApprovalsRouterOptions = {},
): Router {
  const identityOf = options.identityOf ?? ((_req, res) => res.locals.identity as Identity | undefined);
  const router = express.Router();
  router.use(['/approvals', '/freeze'], requireJsonBody, express.json({ limit: MAX_BODY_BYTES }));

  const handle =
    (
      fn: (req: Request, who: Identity) => Promise<unknown>,
      statusOf: (body: unknown) => number = () => 200,
    ) =>
    async (req: Request, res: Response, next: NextFunction) => {
      try {
        const who = identityOf(req, res);
        if (!who) throw new SentinelError('unauthorized', 'A bearer token of a known identity is required.');
        const body = await fn(req, who);
        res.status(statusOf(body)).json(body);
      } catch (error) {
        next(error);
      }
    };

  router.get(
    '/approvals',
    handle((req) =>
      service.list(parseBody(ApprovalListQuerySchema, req.query)).then((approvals) => ({ approvals })),
    ),
  );
  router.post('/approvals', async (req: Request, res: Response, next: NextFunction) => {
    try {
      const who = identityOf(req, res);
      if (!who) throw new SentinelError('unauthorized', 'A bearer token of a known identity is required.');
      const { answer, created } = await service.createOnce(
        who,
        parseBody(CreateApprovalBodySchema, req.body),
      );
      // 201: a request made now; 200: nothing made (no approval needed, or the client_ref's first answer).
      res.status(created && !('approval_required' in answer) ? 201 : 200).json(answer);
    } catch (error) {
      next(error);
    }
  });
  router.get(
    '/approvals/:id',
    handle((req) => service.get(id(req))),
  );
  router.get(
    '/approvals/:id/check',
    handle((req) => service.check(id(req))),
  );
  router.post(
    '/approvals/:id/approve',
    handle((req, who) => service.approve(id(req), who, parseBody(ApproveBodySchema, req.body))),
  );
  router.post(
    '/approvals/:id/deny',
    handle((req, who) => service.deny(id(req), who, parseBody(DenyBodySchema, req.body).reason)),
  );
  router.post(
    '/approvals/:id/withdraw',
    handle((req, who) => service.withdraw(id(req), who)),
  );
  router.post(
    '/approvals/:id/revoke',
    handle((req, who) => service.revokeGrant(id(req), who, parseBody(RevokeBodySchema, req.body).reason)),
  );
  router.get(
    '/freeze',
    handle(() => service.getFreeze()),
  );
  router.post(
    '/freeze',
    handle((req, who) => service.setFreeze(who, true, parseBody(FreezeBodySchema, req.body).reason)),
  );
  router.delete(
    '/freeze',
    handle((_req, who) => service.setFreeze(who, false, null)),
  );

  router.use(['/approvals', '/freeze'], sendApiError);
  return router;
}
