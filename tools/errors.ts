/**
 * The one error type Sentinel raises on purpose. Every failure that reaches a user or a model is a
 * `SentinelError` with a stable `code`, a message that says what failed, where, and what to do
 * next, and typed fields naming the Kubernetes object involved. Anything else is a bug and is shown
 * as `internal` without its stack.
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
}

export class SentinelError extends Error {
  readonly code: ErrorCode;
  readonly kind: string | undefined;
  readonly namespace: string | undefined;
  readonly resourceName: string | undefined;
  readonly field: string | undefined;
  readonly details: Record<string, unknown> | undefined;

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
}

/** Normalises anything thrown into a `SentinelError`; unknown errors become `internal` without a stack. */
export function toSentinelError(error: unknown): SentinelError {
  if (error instanceof SentinelError) return error;
  return new SentinelError('internal', 'Sentinel hit an unexpected internal error; see the server log.', {
    cause: error,
  });
}
