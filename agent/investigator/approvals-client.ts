/**
 * The approvals API (server/gate/router.ts) as the human uses it, with the human's own bearer
 * token: read a request, approve it, deny it. The investigator's token is never used here — the
 * investigator can never approve what it asked for.
 */
import { z } from 'zod';
import { SentinelError } from '../../tools/errors.ts';
import {
  ApiErrorSchema,
  ApprovalRequestSchema,
  type ApprovalRequest,
} from '../../server/gate/approval-request.ts';
import { codeForStatus, parseJsonOrUndefined } from '../harness/errors.ts';

export interface ApprovalsApi {
  /** `GET /approvals/{id}`. */
  get(id: string): Promise<ApprovalRequest>;
  /** `POST /approvals/{id}/approve` (a `once` grant). */
  approve(id: string): Promise<ApprovalRequest>;
  /** `POST /approvals/{id}/deny {reason}`. */
  deny(id: string, reason: string): Promise<ApprovalRequest>;
}

export interface ApprovalsClientOptions {
  /** The approvals API base, e.g. `http://127.0.0.1:7070/approvals`. */
  url: URL;
  /** The human's bearer token. */
  token: string;
  /** Deadline of each request, in milliseconds (default 30 000). */
  timeoutMs?: number;
}

/**
 * An HTTP client for the approvals API. Every method throws `SentinelError`: the API's own error
 * code and message for a 4xx (403 when the token may not decide, 409 when already decided, 410
 * when expired), `unavailable` when the server cannot be reached or answers something unexpected.
 */
export function approvalsClient(options: ApprovalsClientOptions): ApprovalsApi {
  const base = options.url.href.replace(/\/+$/, '');
  const timeout = options.timeoutMs ?? 30_000;
  async function send(method: 'GET' | 'POST', path: string, body?: unknown): Promise<ApprovalRequest> {
    const url = `${base}${path}`;
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, {
        method,
        headers: {
          authorization: `Bearer ${options.token}`,
          ...(body !== undefined && { 'content-type': 'application/json' }),
        },
        ...(body !== undefined && { body: JSON.stringify(body) }),
        signal: AbortSignal.timeout(timeout),
      });
      text = await response.text();
    } catch (error) {
      throw new SentinelError(
        'unavailable',
        `Cannot reach the approvals API at ${url} (${error instanceof Error ? error.message : String(error)}).`,
        { cause: error },
      );
    }
    const json = parseJsonOrUndefined(text);
    if (!response.ok) {
      const failure = ApiErrorSchema.safeParse(json);
      const code = failure.success ? knownCode(failure.data.error.code) : codeForStatus(response.status);
      throw new SentinelError(
        code,
        failure.success
          ? failure.data.error.message
          : `The approvals API answered ${response.status} to ${method} ${path}.`,
        { details: { status: response.status } },
      );
    }
    const parsed = ApprovalRequestSchema.safeParse(json);
    if (!parsed.success) {
      throw new SentinelError(
        'unavailable',
        `The approvals API answered ${method} ${path} with something that is not an approval request (${z.prettifyError(parsed.error).split('\n')[0]}).`,
      );
    }
    return parsed.data;
  }
  const path = (id: string, action = '') => `/${encodeURIComponent(id)}${action}`;
  return {
    get: (id) => send('GET', path(id)),
    approve: (id) => send('POST', path(id, '/approve'), {}),
    deny: (id, reason) => send('POST', path(id, '/deny'), { reason }),
  };
}

const CODES = new Set([
  'invalid_input',
  'not_found',
  'forbidden',
  'unauthorized',
  'conflict',
  'unavailable',
  'timeout',
  'refused',
  'approval_expired',
]);

function knownCode(code: string): SentinelError['code'] {
  return CODES.has(code) ? (code as SentinelError['code']) : 'unavailable';
}
