/**
 * Turns a TrueForge harness error answer into one `SentinelError` whose message quotes the harness,
 * names the request and says what to do next. Never a stack trace.
 */
import { zodIssueLines, SentinelError, type ErrorCode } from '../core/index.ts';
import type { z } from 'zod';
import { RequestErrorResponseSchema } from './schemas.ts';

/** What to tell the user for a status, by the operation that failed; overrides the defaults. */
export type StatusHints = Partial<Record<number, string>>;

const DEFAULT_HINTS: StatusHints = {
  401: 'The harness needs a login token: set SENTINEL_HARNESS_TOKEN.',
  403: 'The harness token is not allowed to do this (sessions can only be used by their creator).',
  413: 'The request is larger than the harness accepts.',
};

/**
 * Maps an HTTP status to an error code. 400 and 413 are malformed input; 422 is the harness saying
 * the input conflicts with the turn's state (pending approvals, partial batch), hence `conflict`
 * (OBSERVED.md: mixing messages and approvals is 400, a partial batch 422).
 */
export function codeForStatus(status: number): ErrorCode {
  if (status === 400 || status === 413) return 'invalid_input';
  if (status === 401) return 'unauthorized';
  if (status === 403) return 'forbidden';
  if (status === 404) return 'not_found';
  if (status === 408 || status === 504) return 'timeout';
  if (status === 409 || status === 412 || status === 422) return 'conflict';
  return 'unavailable';
}

/**
 * The message of an error body: `{"error": {"message"}}` (the harness's `RequestErrorResponse`) or
 * `{"message"}`; otherwise the raw text, whitespace collapsed and cut at 300 characters.
 */
export function errorBodyMessage(bodyText: string): string {
  const parsed = RequestErrorResponseSchema.safeParse(parseJsonOrUndefined(bodyText));
  if (parsed.success) return parsed.data.error.message;
  const flat = parseJsonOrUndefined(bodyText) as { message?: unknown } | undefined;
  if (typeof flat?.message === 'string') return flat.message;
  const text = bodyText.trim().replace(/\s+/g, ' ');
  return text.length > 300 ? `${text.slice(0, 300)}…` : text || '(empty body)';
}

/** `JSON.parse`, or undefined when the text is not JSON. */
export function parseJsonOrUndefined(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

/**
 * Builds the error for a non-2xx answer: "TrueForge harness answered 422 to POST
 * /api/v1/sessions/s1/turns: <harness message>. <hint>".
 */
export function harnessHttpError(
  request: { method: string; path: string },
  status: number,
  bodyText: string,
  hints: StatusHints = {},
): SentinelError {
  const hint = hints[status] ?? DEFAULT_HINTS[status] ?? (status >= 500 ? 'Try again shortly.' : '');
  const message = errorBodyMessage(bodyText);
  return new SentinelError(
    codeForStatus(status),
    `TrueForge harness answered ${status} to ${request.method} ${request.path}: ${message}${
      /[.!?]$/.test(message) ? '' : '.'
    }${hint ? ` ${hint}` : ''}`,
    { details: { status, harnessMessage: message } },
  );
}

/** The error for a request that never got an answer (refused connection, DNS, timeout). */
export function harnessTransportError(
  request: { method: string; url: string },
  error: unknown,
  timeoutMs: number,
): SentinelError {
  if (error instanceof Error && (error.name === 'TimeoutError' || error.name === 'AbortError')) {
    return new SentinelError(
      'timeout',
      `TrueForge harness did not answer ${request.method} ${request.url} within ${timeoutMs / 1000} s; check that it is running, or raise --timeout.`,
      { cause: error },
    );
  }
  const reason = error instanceof Error ? (causeMessage(error) ?? error.message) : String(error);
  return new SentinelError(
    'unavailable',
    `Cannot reach the TrueForge harness at ${request.url} (${reason}); check --harness / SENTINEL_HARNESS_URL.`,
    { cause: error },
  );
}

/** fetch wraps the socket error ("ECONNREFUSED ...") in `cause`; that is the useful part. */
function causeMessage(error: Error): string | undefined {
  const cause = (error as { cause?: unknown }).cause;
  if (cause instanceof Error) return (cause as { code?: string }).code ?? cause.message;
  return undefined;
}

/** The first problem zod found, as its field path (or `whole` when at the root) and message. */
export function firstIssue(error: z.ZodError, whole: string): { field: string; message: string } {
  const [first] = zodIssueLines(error, [], { root: whole });
  return { field: first?.field ?? whole, message: first?.rule ?? 'invalid' };
}
