/**
 * The error class of a failed Kubernetes API call, apart from the mapping in ./errors.ts (which
 * needs `@kubernetes/client-node`): tools test for it through tools/kube/index.ts, which loads
 * without the library.
 */
import { SentinelError, type ErrorCode, type SentinelErrorOptions } from '../errors.ts';

/**
 * A failed Kubernetes API call. A `SentinelError` with the HTTP status (when there was a response),
 * whether a read may be retried (429, 5xx, connection reset) and the server's `Retry-After` in ms.
 */
export class KubeApiError extends SentinelError {
  readonly httpStatus: number | undefined;
  readonly retryable: boolean;
  readonly retryAfterMs: number | undefined;

  constructor(
    code: ErrorCode,
    message: string,
    options: SentinelErrorOptions & { httpStatus?: number; retryable?: boolean; retryAfterMs?: number },
  ) {
    const { httpStatus, retryable, retryAfterMs, ...rest } = options;
    super(code, message, {
      ...rest,
      details: { ...rest.details, ...(httpStatus !== undefined && { httpStatus }) },
    });
    this.httpStatus = httpStatus;
    this.retryable = retryable ?? false;
    this.retryAfterMs = retryAfterMs;
  }
}
