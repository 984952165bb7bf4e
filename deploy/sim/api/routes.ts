/**
 * Parses a request path into what it addresses, following the API server's URL layout:
 * `/api/v1[/namespaces/{ns}]/{resource}[/{name}[/{subresource}]]` and the same under
 * `/apis/{group}/{version}`. Anything else is a discovery path or unknown (404).
 */
import { findResourceType } from '../resources.ts';
import type { ResourceType } from '../resources.ts';

export type Route =
  | { kind: 'version' }
  | { kind: 'health' }
  | { kind: 'coreVersions' }
  | { kind: 'groupList' }
  | { kind: 'group'; group: string }
  | { kind: 'resourceList'; group: string; version: string }
  /** `/openapi/v2`, `/openapi/v3` (document ''), `/openapi/v3/apis/apps/v1` (document 'apis/apps/v1'). */
  | { kind: 'openapi'; version: 'v2' | 'v3'; document: string }
  | {
      kind: 'resource';
      type: ResourceType;
      /** Namespace from the path (undefined for cluster-scoped or all-namespaces requests). */
      namespace: string | undefined;
      name: string | undefined;
      subresource: string | undefined;
    }
  | { kind: 'unknown' };

export function parseRoute(pathname: string): Route {
  const segments = pathname.split('/').filter(Boolean).map(decodeURIComponent);
  if (pathname === '/version' || pathname === '/version/') return { kind: 'version' };
  if (['healthz', 'livez', 'readyz'].includes(segments[0] ?? '') && segments.length === 1)
    return { kind: 'health' };
  if (segments[0] === 'openapi' && (segments[1] === 'v2' || segments[1] === 'v3')) {
    if (segments[1] === 'v2' && segments.length > 2) return { kind: 'unknown' };
    return { kind: 'openapi', version: segments[1], document: segments.slice(2).join('/') };
  }
  let group: string;
  let version: string;
  let rest: string[];
  if (segments[0] === 'api') {
    if (segments.length === 1) return { kind: 'coreVersions' };
    group = '';
    version = segments[1]!;
    rest = segments.slice(2);
  } else if (segments[0] === 'apis') {
    if (segments.length === 1) return { kind: 'groupList' };
    if (segments.length === 2) return { kind: 'group', group: segments[1]! };
    group = segments[1]!;
    version = segments[2]!;
    rest = segments.slice(3);
  } else {
    return { kind: 'unknown' };
  }
  if (rest.length === 0) return { kind: 'resourceList', group, version };
  // /namespaces/{ns}/{resource}/... is namespaced unless {resource} is not a served plural
  // (then it is the Namespace object itself, e.g. /namespaces/shop/status).
  if (rest[0] === 'namespaces' && rest.length >= 3) {
    const type = findResourceType(group, version, rest[2]!);
    if (type?.namespaced) {
      if (rest.length > 5) return { kind: 'unknown' };
      return { kind: 'resource', type, namespace: rest[1]!, name: rest[3], subresource: rest[4] };
    }
  }
  const type = findResourceType(group, version, rest[0]!);
  if (!type || rest.length > 3) return { kind: 'unknown' };
  // `/api/v1/pods/x` (a namespaced resource by name without a namespace) is not a valid path.
  if (type.namespaced && rest.length > 1) return { kind: 'unknown' };
  return { kind: 'resource', type, namespace: undefined, name: rest[1], subresource: rest[2] };
}
