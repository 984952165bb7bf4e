/**
 * A client of a running server's approvals API (`GET /approvals`, `GET /approvals/{id}`,
 * `POST /approvals/{id}/approve|deny|withdraw|revoke`, `POST /approvals`) with a bearer token, for `sentinel approvals` and
 * anything else that decides requests from outside the server. Answers are validated with the
 * shapes in `server/gate/approval-request.ts`; an error answer becomes a `SentinelError` with the
 * server's own code and message (e.g. `forbidden`: "… cannot decide a request it made").
 */
import { z } from 'zod';
import { SentinelError, type ErrorCode } from '../core/index.ts';
import {
  ApiErrorSchema,
  ApprovalCheckSchema,
  ApprovalListSchema,
  ApprovalNotRequiredSchema,
  ApprovalRequestSchema,
  type ApprovalCheck,
  type ApprovalListQuery,
  type ApprovalNotRequired,
  type ApprovalRequest,
  type ApproveBody,
  type CreateApprovalBody,
} from './gate/approval-request.ts';

import { refusedToken } from './client-token.ts';
import { serverBaseUrl } from './server-url.ts';
import { serverUnreachable } from './unreachable.ts';

export { DEFAULT_SERVER_URL, serverBaseUrl } from './server-url.ts';

const CODES: readonly ErrorCode[] = [
  'invalid_input',
  'not_found',
  'forbidden',
  'unauthorized',
  'conflict',
  'unavailable',
  'timeout',
  'refused',
  'approval_expired',
];

export interface ApprovalsClientOptions {
  /** Server base URL (`http://127.0.0.1:7070`); a trailing `/mcp` is accepted. */
  server: string;
  token: string;
  /**
   * Where `token` came from (`ClientToken.source`: `--token`, `SENTINEL_TOKEN` or a file), for the
   * message when the server refuses it (401); never the token itself.
   */
  tokenSource?: string;
  /** Deadline per request, in ms. Default 15 000. */
  timeoutMs?: number;
}

export interface ApprovalsClient {
  readonly baseUrl: string;
  list(query?: ApprovalListQuery): Promise<ApprovalRequest[]>;
  get(id: string): Promise<ApprovalRequest>;
  /** `GET /approvals/{id}/check`: what changed on the target since the preview, and the freeze. */
  check(id: string): Promise<ApprovalCheck>;
  approve(id: string, body?: ApproveBody): Promise<ApprovalRequest>;
  deny(id: string, reason: string): Promise<ApprovalRequest>;
  withdraw(id: string): Promise<ApprovalRequest>;
  /** `POST /approvals/{id}/revoke`: takes back an approved grant no call has used yet. */
  revoke(id: string, reason: string): Promise<ApprovalRequest>;
  /**
   * `POST /approvals`: as an approver, creates for `body.requester` and the exact call a request
   * approved in the same step; or, when the policy lets the call run without approval, says so.
   */
  create(body: CreateApprovalBody): Promise<ApprovalRequest | ApprovalNotRequired>;
  /**
   * `create`, saying whether the server made a request now (201) or answered with the request its
   * `client_ref` already had (200, `created: false`; also for "no approval required").
   */
  createOnce(
    body: CreateApprovalBody,
  ): Promise<{ answer: ApprovalRequest | ApprovalNotRequired; created: boolean }>;
}

/** Builds the client. Throws `invalid_input` for a bad `server` URL. */
export function createApprovalsClient(options: ApprovalsClientOptions): ApprovalsClient {
  const baseUrl = serverBaseUrl(options.server);
  const timeoutMs = options.timeoutMs ?? 15_000;

  async function call<S extends z.ZodType>(
    method: string,
    path: string,
    schema: S,
    body?: unknown,
    onStatus?: (status: number) => void,
  ): Promise<z.infer<S>> {
    let response: Response;
    let text: string;
    try {
      response = await fetch(`${baseUrl}${path}`, {
        method,
        headers: {
          authorization: `Bearer ${options.token}`,
          accept: 'application/json',
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      const timedOut = (error as Error).name === 'TimeoutError';
      if (!timedOut) throw serverUnreachable(baseUrl, error);
      throw new SentinelError(
        'timeout',
        `The Sentinel server at ${baseUrl} did not answer ${method} ${path} within ${timeoutMs / 1000} s.`,
        { cause: error },
      );
    }
    let json: unknown;
    try {
      json = text ? JSON.parse(text) : undefined;
    } catch {
      json = undefined;
    }
    if (!response.ok) {
      if (response.status === 401) {
        throw refusedToken(baseUrl, options.tokenSource, 'approver');
      }
      const failure = ApiErrorSchema.safeParse(json);
      if (failure.success) {
        const { code, message, field } = failure.data.error;
        throw new SentinelError(
          CODES.includes(code as ErrorCode) ? (code as ErrorCode) : 'unavailable',
          message,
          {
            ...(field && { field }),
          },
        );
      }
      throw new SentinelError(
        'unavailable',
        `The Sentinel server answered ${method} ${path} with HTTP ${response.status}.`,
      );
    }
    onStatus?.(response.status);
    const parsed = schema.safeParse(json);
    if (!parsed.success) {
      throw new SentinelError(
        'unavailable',
        `The Sentinel server's answer to ${method} ${path} is not an approvals API response; is ${baseUrl} a Sentinel server?`,
      );
    }
    return parsed.data;
  }

  const path = (id: string, action = '') => `/approvals/${encodeURIComponent(id)}${action}`;
  return {
    baseUrl,
    async list(query = {}) {
      const search = new URLSearchParams(
        Object.entries(query).filter((entry): entry is [string, string] => typeof entry[1] === 'string'),
      ).toString();
      return (await call('GET', `/approvals${search ? `?${search}` : ''}`, ApprovalListSchema)).approvals;
    },
    get: (id) => call('GET', path(id), ApprovalRequestSchema),
    check: (id) => call('GET', path(id, '/check'), ApprovalCheckSchema),
    approve: (id, body = {}) => call('POST', path(id, '/approve'), ApprovalRequestSchema, body),
    deny: (id, reason) => call('POST', path(id, '/deny'), ApprovalRequestSchema, { reason }),
    withdraw: (id) => call('POST', path(id, '/withdraw'), ApprovalRequestSchema, {}),
    revoke: (id, reason) => call('POST', path(id, '/revoke'), ApprovalRequestSchema, { reason }),
    create: (body) =>
      call('POST', '/approvals', z.union([ApprovalNotRequiredSchema, ApprovalRequestSchema]), body),
    async createOnce(body) {
      let status = 0;
      const answer = await call(
        'POST',
        '/approvals',
        z.union([ApprovalNotRequiredSchema, ApprovalRequestSchema]),
        body,
        (code) => (status = code),
      );
      return { answer, created: status === 201 };
    },
  };
}
