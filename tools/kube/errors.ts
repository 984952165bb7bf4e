/**
 * Maps what a Kubernetes API call throws (an HTTP status with a `Status` body, a network failure, a
 * timeout) to a `SentinelError` that names the resource and the cause in plain language, and says
 * whether a read may be retried.
 */
import { ApiException } from '@kubernetes/client-node';
import { SentinelError } from '../errors.ts';
import { KubeApiError } from './api-error.ts';
import type { ClusterIdentity } from '../define-tool.ts';
import { describeOperation, type KubeNonResourceOperation, type KubeOperation } from './operations.ts';
import { sanitizeFromCluster } from './sanitize.ts';
import { sanitizeText } from '../format/text.ts';

export { KubeApiError } from './api-error.ts';

/** The object a call is about. */
export interface KubeCallSubject {
  namespace?: string;
  name?: string;
}

/** Everything needed to explain a failed call. */
export interface KubeCallContext {
  operation: KubeOperation | KubeNonResourceOperation;
  subject: KubeCallSubject;
  cluster: ClusterIdentity;
  requestTimeoutMs: number;
}

/** The parts of a Kubernetes `Status` body Sentinel reads. */
interface KubeStatus {
  message?: string;
  reason?: string;
  details?: { retryAfterSeconds?: number; causes?: { message?: string; field?: string }[] };
}

/** Node/undici error codes meaning the connection broke mid-request (safe to retry a read). */
const CONNECTION_RESET_CODES = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET', 'UND_ERR_CLOSED']);
/** Codes meaning the API server cannot be reached at all. */
const UNREACHABLE_CODES = new Set([
  'ECONNREFUSED',
  'ENOTFOUND',
  'EAI_AGAIN',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'UND_ERR_CONNECT_TIMEOUT',
]);

const MAX_STATUS_MESSAGE = 500;

/**
 * Converts anything a Kubernetes call threw into a `KubeApiError`:
 * 401 → `unauthorized`, 403 → `forbidden` (verb and resource the role lacks), 404 → `not_found`,
 * 409/410 → `conflict`, 400/422 → `invalid_input`, 429/5xx → `unavailable` (retryable),
 * connection reset → `unavailable` (retryable), unreachable → `unavailable`,
 * request timeout → `timeout`. A `SentinelError` passes through unchanged.
 */
export function toKubeError(error: unknown, ctx: KubeCallContext): SentinelError {
  if (error instanceof SentinelError) return error;
  if (error instanceof ApiException) return fromHttpStatus(error, ctx);
  return fromTransportError(error, ctx);
}

function fromHttpStatus(error: ApiException<unknown>, ctx: KubeCallContext): KubeApiError {
  const status = parseStatus(error.body);
  const httpStatus = error.code;
  const said = status.message ? ` Kubernetes said: ${truncate(status.message)}` : '';
  const where = describeSubject(ctx);
  const onCluster = `on cluster '${ctx.cluster.context}'`;
  const op = ctx.operation;
  const kind = 'kind' in op ? op.kind : undefined;
  const base = {
    cause: error,
    httpStatus,
    kind,
    namespace: ctx.subject.namespace,
    name: ctx.subject.name,
  };
  switch (true) {
    case httpStatus === 401:
      return new KubeApiError(
        'unauthorized',
        `Cluster '${ctx.cluster.context}' (${ctx.cluster.server}) rejected Sentinel's credentials (401 Unauthorized) for ${describeOperation(op)}. Check the kubeconfig user or the service account token; it may have expired.`,
        base,
      );
    case httpStatus === 403:
      return new KubeApiError(
        'forbidden',
        `Forbidden: Sentinel's identity ${onCluster} may not ${describeOperation(op)}${ctx.subject.namespace ? ` in namespace '${ctx.subject.namespace}'` : ''}.${said} Grant that verb on that resource to Sentinel's role (deploy/k8s/).`,
        {
          ...base,
          details: { verb: op.verb, ...('resource' in op && { resource: op.resource, group: op.group }) },
        },
      );
    case httpStatus === 404:
      return new KubeApiError('not_found', notFoundMessage(ctx, where, onCluster), base);
    case httpStatus === 409:
      return new KubeApiError(
        'conflict',
        `Conflict on ${where} ${onCluster} (409): it changed while Sentinel was working on it.${said} Re-read it and try again.`,
        base,
      );
    case httpStatus === 410:
      return new KubeApiError(
        'conflict',
        `The list of ${where} ${onCluster} changed too much while it was being read page by page (410 Gone). Try the call again.`,
        base,
      );
    case httpStatus === 400 || httpStatus === 422:
      return new KubeApiError(
        'invalid_input',
        `The Kubernetes API server rejected the request for ${where} ${onCluster} (${httpStatus}).${said || ' No reason given.'}`,
        { ...base, details: causesOf(status) },
      );
    case httpStatus === 429 || httpStatus >= 500:
      return new KubeApiError(
        'unavailable',
        `The Kubernetes API server of cluster '${ctx.cluster.context}' could not answer ${describeOperation(op)} for ${where} (${httpStatus}${status.reason ? ` ${status.reason}` : ''}).${said} Try again shortly.`,
        { ...base, retryable: true, retryAfterMs: retryAfterMs(error.headers, status) },
      );
    default:
      return new KubeApiError(
        'unavailable',
        `Unexpected answer ${httpStatus} from the Kubernetes API server of cluster '${ctx.cluster.context}' for ${describeOperation(op)} on ${where}.${said}`,
        base,
      );
  }
}

function fromTransportError(error: unknown, ctx: KubeCallContext): KubeApiError {
  const server = `the Kubernetes API server of cluster '${ctx.cluster.context}' (${ctx.cluster.server})`;
  const base = { cause: error, namespace: ctx.subject.namespace, name: ctx.subject.name };
  if (isTimeout(error)) {
    return new KubeApiError(
      'timeout',
      `No answer from ${server} within ${ctx.requestTimeoutMs / 1000} s for ${describeOperation(ctx.operation)} on ${describeSubject(ctx)}. The cluster may be overloaded or unreachable; try again, and check it with kubectl if this persists.`,
      base,
    );
  }
  const code = errorCode(error);
  if (code && CONNECTION_RESET_CODES.has(code)) {
    return new KubeApiError(
      'unavailable',
      `The connection to ${server} was reset (${code}) during ${describeOperation(ctx.operation)}. Try again shortly.`,
      { ...base, retryable: true },
    );
  }
  const detail = code && UNREACHABLE_CODES.has(code) ? code : errorMessage(error);
  return new KubeApiError(
    'unavailable',
    `Cannot reach ${server}: ${detail}. Check that the cluster is running and that the kubeconfig context points to it; a running \`sentinel serve\` read the kubeconfig when it started, so restart it after the kubeconfig changes (e.g. after restarting \`sentinel sim\`, which moves the API server to a new port).`,
    base,
  );
}

function notFoundMessage(ctx: KubeCallContext, where: string, onCluster: string): string {
  const op = ctx.operation;
  if (op.verb === 'list' || 'nonResourceURL' in op) {
    return `The Kubernetes API server of cluster '${ctx.cluster.context}' does not serve ${describeOperation(op)} (404).`;
  }
  const hint = NEXT_STEP[op.kind];
  return `${where} not found ${onCluster}.${hint ? ` ${hint}` : ''}`;
}

/** What to do after a `not_found`, per kind. */
const NEXT_STEP: Record<string, string> = {
  Deployment: 'list_deployments shows the Deployments that exist.',
  Pod: 'list_pods shows the Pods that exist.',
  Service: 'Check the name with kubectl get services.',
};

/** `Deployment 'web' in namespace 'prod'`, `Pods in namespace 'prod'`, `/version`. */
function describeSubject(ctx: KubeCallContext): string {
  const op = ctx.operation;
  if ('nonResourceURL' in op) return op.nonResourceURL;
  const { namespace, name } = ctx.subject;
  const inNamespace = namespace ? ` in namespace '${namespace}'` : '';
  if (name) return `${op.kind} '${name}'${inNamespace}`;
  return `${op.resource}${inNamespace}`;
}

/** The Status body the API server sent, sanitized (`sanitizeFromCluster`): its message, reason and causes are cluster text. */
function parseStatus(body: unknown): KubeStatus {
  return sanitizeFromCluster(parseStatusBody(body));
}

function parseStatusBody(body: unknown): KubeStatus {
  if (typeof body === 'string') {
    try {
      const parsed: unknown = JSON.parse(body);
      return typeof parsed === 'object' && parsed !== null ? (parsed as KubeStatus) : {};
    } catch {
      return body.trim() ? { message: body.trim() } : {};
    }
  }
  return typeof body === 'object' && body !== null ? (body as KubeStatus) : {};
}

function causesOf(status: KubeStatus): Record<string, unknown> | undefined {
  const causes = status.details?.causes
    ?.map((c) => ({ field: c.field, message: c.message && truncate(c.message) }))
    .slice(0, 10);
  return causes?.length ? { causes } : undefined;
}

/** `Retry-After` (seconds or HTTP date) or the Status' `details.retryAfterSeconds`, in ms. */
function retryAfterMs(headers: Record<string, string>, status: KubeStatus): number | undefined {
  const header = headers['retry-after'];
  if (header !== undefined) {
    const seconds = Number(header);
    if (Number.isFinite(seconds) && seconds >= 0) return seconds * 1000;
    const date = Date.parse(header);
    if (!Number.isNaN(date)) return Math.max(0, date - Date.now());
  }
  const fromStatus = status.details?.retryAfterSeconds;
  return typeof fromStatus === 'number' && fromStatus >= 0 ? fromStatus * 1000 : undefined;
}

function isTimeout(error: unknown): boolean {
  return (
    error instanceof Error &&
    (error.name === 'TimeoutError' || errorCode(error) === 'UND_ERR_HEADERS_TIMEOUT')
  );
}

/** The errno-style code of an error or of its cause chain (undici wraps socket errors in `fetch failed`). */
function errorCode(error: unknown): string | undefined {
  for (let e: unknown = error, depth = 0; e && depth < 5; depth++) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
    e = (e as { cause?: unknown }).cause;
  }
  return undefined;
}

function errorMessage(error: unknown): string {
  const cause = (error as { cause?: unknown } | undefined)?.cause;
  if (cause instanceof Error) return truncate(cause.message);
  return error instanceof Error ? truncate(error.message) : 'unknown error';
}

/** A message from the API server (or the network stack), sanitized and cut to `MAX_STATUS_MESSAGE` characters. */
function truncate(text: string): string {
  const clean = sanitizeText(text, { multiline: true });
  return clean.length > MAX_STATUS_MESSAGE ? `${clean.slice(0, MAX_STATUS_MESSAGE)}…` : clean;
}
