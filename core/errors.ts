/**
 * The one error type Sentinel raises on purpose. Every failure that reaches a user or a model is a
 * `SentinelError` with a stable `code`, a message that says what failed, where, and what to do
 * next, and typed fields naming the Kubernetes object involved. Anything else is a bug and is shown
 * as `internal` without its stack.
 *
 * The error also carries how it is answered on the wire (like the TrueForge core's error classes):
 * `statusCode` for the JSON APIs (approvals API, approvals page, every route outside `/mcp`) and
 * `jsonRpcCode` for an error answered as a JSON-RPC error on `/mcp` (transport-level only: a tool's
 * own failure is an `isError` tool result, never a JSON-RPC error). Both come from one table
 * (`HTTP_STATUS`, `JSON_RPC_CODE`); a caller overrides them only where the transport knows better
 * (a body too large is `invalid_input` answered 413).
 */

/** Stable error codes; tools, the gate and the CLI switch on these, never on message text. */
export type ErrorCode =
  | 'invalid_input'
  | 'not_found'
  | 'forbidden'
  | 'unauthorized'
  | 'conflict'
  | 'unavailable'
  | 'timeout'
  | 'cancelled'
  | 'refused'
  | 'approval_pending'
  | 'approval_denied'
  | 'approval_stale'
  | 'approval_expired'
  | 'internal';

/**
 * HTTP status of each code on Sentinel's JSON APIs. `unavailable` is 503 (a dependency — the gate,
 * the cluster, the store — cannot serve now; retry later), not 500 (a bug). Codes with no HTTP
 * meaning of their own (a tool's `timeout`, `refused`, the approval states a tool result carries)
 * answer 500 should they ever reach a router.
 */
export const HTTP_STATUS: Readonly<Record<ErrorCode, number>> = {
  invalid_input: 422,
  unauthorized: 401,
  forbidden: 403,
  not_found: 404,
  conflict: 409,
  approval_expired: 410,
  unavailable: 503,
  timeout: 500,
  cancelled: 500,
  refused: 500,
  approval_pending: 500,
  approval_denied: 500,
  approval_stale: 500,
  internal: 500,
};

/**
 * JSON-RPC 2.0 error code of each code when `/mcp` answers with a JSON-RPC error: `invalid_input`
 * is Invalid Request (-32600), `internal` is Internal error (-32603), everything else the
 * implementation-defined server error -32000 (JSON-RPC 2.0 §5.1). A body that is not JSON overrides
 * it with Parse error (-32700).
 */
export const JSON_RPC_CODE: Readonly<Record<ErrorCode, number>> = {
  invalid_input: -32600,
  internal: -32603,
  unauthorized: -32000,
  forbidden: -32000,
  not_found: -32000,
  conflict: -32000,
  approval_expired: -32000,
  unavailable: -32000,
  timeout: -32000,
  cancelled: -32000,
  refused: -32000,
  approval_pending: -32000,
  approval_denied: -32000,
  approval_stale: -32000,
};

/** Which Kubernetes object (or Sentinel field) an error is about. */
export interface ErrorSubject {
  /** Kubernetes kind, e.g. `Deployment`. */
  kind?: string;
  namespace?: string;
  name?: string;
  /** Input field that broke a rule, e.g. `namespace` or `replicas`. */
  field?: string;
}

export interface SentinelErrorOptions extends ErrorSubject {
  cause?: unknown;
  /** Extra machine-readable facts (e.g. the revisions that exist); must be JSON-serialisable. */
  details?: Record<string, unknown>;
  /** HTTP status to answer with instead of `HTTP_STATUS[code]` (e.g. 413 for a body too large). */
  statusCode?: number;
  /** JSON-RPC error code instead of `JSON_RPC_CODE[code]` (e.g. -32700 for a body that is not JSON). */
  jsonRpcCode?: number;
}

/** The approvals API's error body (`ApiErrorSchema`): every JSON route outside `/mcp` answers it. */
export interface ApiErrorBody {
  error: { code: string; message: string; field?: string };
}

/** A JSON-RPC 2.0 error response with no request id (the request could not be read). */
export interface JsonRpcErrorBody {
  jsonrpc: '2.0';
  error: { code: number; message: string };
  id: null;
}

export class SentinelError extends Error {
  readonly code: ErrorCode;
  readonly kind: string | undefined;
  readonly namespace: string | undefined;
  readonly resourceName: string | undefined;
  readonly field: string | undefined;
  readonly details: Record<string, unknown> | undefined;
  /** HTTP status a JSON API answers this error with. */
  readonly statusCode: number;
  /** JSON-RPC error code `/mcp` answers this error with. */
  readonly jsonRpcCode: number;

  /**
   * @param code stable error code
   * @param message what failed, where, and what to do next (shown to people and models verbatim)
   */
  constructor(code: ErrorCode, message: string, options: SentinelErrorOptions = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.name = 'SentinelError';
    this.code = code;
    this.kind = options.kind;
    this.namespace = options.namespace;
    this.resourceName = options.name;
    this.field = options.field;
    this.details = options.details;
    this.statusCode = options.statusCode ?? HTTP_STATUS[code] ?? 500;
    this.jsonRpcCode = options.jsonRpcCode ?? JSON_RPC_CODE[code] ?? -32000;
  }

  /** JSON shape used in tool results and API responses (no stack, no cause chain). */
  toJSON(): Record<string, unknown> {
    return {
      code: this.code,
      message: this.message,
      ...(this.kind && { kind: this.kind }),
      ...(this.namespace && { namespace: this.namespace }),
      ...(this.resourceName && { name: this.resourceName }),
      ...(this.field && { field: this.field }),
      ...(this.details && { details: this.details }),
    };
  }

  /** The body a JSON API answers with: `{"error": {code, message, field?}}`. */
  toApiBody(): ApiErrorBody {
    return { error: { code: this.code, message: this.message, ...(this.field && { field: this.field }) } };
  }

  /** The body `/mcp` answers with when the request fails before the MCP server reads it. */
  toJsonRpcBody(): JsonRpcErrorBody {
    return { jsonrpc: '2.0', error: { code: this.jsonRpcCode, message: this.message }, id: null };
  }
}

/** Normalises anything thrown into a `SentinelError`; unknown errors become `internal` without a stack. */
export function toSentinelError(error: unknown): SentinelError {
  if (error instanceof SentinelError) return error;
  return new SentinelError('internal', 'Sentinel hit an unexpected internal error; see the server log.', {
    cause: error,
  });
}
