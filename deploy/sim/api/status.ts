/**
 * Kubernetes `Status` errors (meta/v1 Status, `status: Failure`) with the reasons, codes and message
 * wording of the real API server (k8s.io/apimachinery/pkg/api/errors), so clients that switch on
 * `reason` or parse the message behave as against a real cluster.
 */
import type { ResourceType } from '../resources.ts';
import { qualifiedResource } from '../resources.ts';

export type StatusReason =
  | 'BadRequest'
  | 'Unauthorized'
  | 'Forbidden'
  | 'NotFound'
  | 'MethodNotAllowed'
  | 'AlreadyExists'
  | 'Conflict'
  | 'Gone'
  | 'Expired'
  | 'UnsupportedMediaType'
  | 'Invalid'
  | 'RequestEntityTooLarge'
  | 'NotAcceptable'
  | 'InternalError';

export interface StatusCause {
  reason: string;
  message: string;
  field: string;
}

export interface StatusDetails {
  name?: string;
  group?: string;
  kind?: string;
  causes?: StatusCause[];
}

/** An error the API answers with a `Status` body and the given HTTP code. */
export class ApiError extends Error {
  readonly code: number;
  readonly reason: StatusReason;
  readonly details: StatusDetails | undefined;

  constructor(code: number, reason: StatusReason, message: string, details?: StatusDetails) {
    super(message);
    this.name = 'ApiError';
    this.code = code;
    this.reason = reason;
    this.details = details;
  }

  /** The `Status` object sent as the response body. */
  toStatus(): Record<string, unknown> {
    return {
      kind: 'Status',
      apiVersion: 'v1',
      metadata: {},
      status: 'Failure',
      message: this.message,
      reason: this.reason,
      ...(this.details && { details: this.details }),
      code: this.code,
    };
  }
}

function subject(type: ResourceType, name: string | undefined): StatusDetails {
  return { ...(name !== undefined && { name }), group: type.group, kind: type.plural };
}

export function notFound(type: ResourceType, name: string): ApiError {
  return new ApiError(404, 'NotFound', `${qualifiedResource(type)} "${name}" not found`, subject(type, name));
}

export function alreadyExists(type: ResourceType, name: string): ApiError {
  return new ApiError(
    409,
    'AlreadyExists',
    `${qualifiedResource(type)} "${name}" already exists`,
    subject(type, name),
  );
}

/** The optimistic-concurrency failure of an update or patch with a stale `resourceVersion`. */
export function conflict(type: ResourceType, name: string): ApiError {
  return new ApiError(
    409,
    'Conflict',
    `Operation cannot be fulfilled on ${qualifiedResource(type)} "${name}": the object has been modified; please apply your changes to the latest version and try again`,
    subject(type, name),
  );
}

export function badRequest(message: string): ApiError {
  return new ApiError(400, 'BadRequest', message);
}

/** 422 with one cause per broken field, worded like apimachinery's field errors. */
export function invalid(type: ResourceType, name: string, causes: StatusCause[]): ApiError {
  const kind = type.group ? `${type.kind}.${type.group}` : type.kind;
  const summary = causes.map((cause) => `${cause.field}: ${cause.message}`).join(', ');
  const list = causes.length > 1 ? `[${summary}]` : summary;
  return new ApiError(422, 'Invalid', `${kind} "${name}" is invalid: ${list}`, {
    name,
    group: type.group,
    kind: type.kind,
    causes,
  });
}

/** 403 of RBAC for a resource request: `deployments.apps "web" is forbidden: User "x" cannot patch resource "deployments" in API group "apps" in the namespace "shop"`. */
export function forbidden(
  user: string,
  verb: string,
  type: ResourceType,
  namespace?: string,
  name?: string,
  subresource?: string,
) {
  const where = namespace ? ` in the namespace "${namespace}"` : ' at the cluster scope';
  const what = `${qualifiedResource(type)}${name ? ` "${name}"` : ''}`;
  const resource = subresource ? `${type.plural}/${subresource}` : type.plural;
  return new ApiError(
    403,
    'Forbidden',
    `${what} is forbidden: User "${user}" cannot ${verb} resource "${resource}" in API group "${type.group}"${where}`,
    subject(type, name),
  );
}

/** 403 of RBAC for a non-resource path (`forbidden: User "x" cannot get path "/apis"`). */
export function forbiddenPath(user: string, verb: string, path: string) {
  return new ApiError(403, 'Forbidden', `forbidden: User "${user}" cannot ${verb} path "${path}"`);
}

export function unauthorized(): ApiError {
  return new ApiError(401, 'Unauthorized', 'Unauthorized');
}

/** An unknown path: the real server's 404 for a URL no handler serves. */
export function pathNotFound(): ApiError {
  return new ApiError(404, 'NotFound', 'the server could not find the requested resource');
}

export function methodNotAllowed(method: string): ApiError {
  return new ApiError(
    405,
    'MethodNotAllowed',
    `the server does not allow this method on the requested resource (${method})`,
  );
}

export function unsupportedMediaType(contentType: string, supported: string[]): ApiError {
  return new ApiError(
    415,
    'UnsupportedMediaType',
    `the body of the request was in an unknown format - accepted media types include: ${supported.join(', ')} (got ${contentType || 'none'})`,
  );
}

/** 410 for a watch or continue token older than the retained history. */
export function expired(message: string): ApiError {
  return new ApiError(410, 'Expired', message);
}
