/**
 * The audit log's view of a request the handler served: verb, user, objectRef and dry run, read
 * from the handler's request context when the response completes.
 */
import { groupVersion } from '../resources.ts';
import type { AuditFacts } from './audit-log.ts';
import type { RequestContext } from './handler.ts';

/** Audit facts of `context` (non-resource paths: the lowercase HTTP method as verb, no objectRef). */
export function auditFacts(context: RequestContext): AuditFacts {
  const route = context.route;
  const facts: AuditFacts = {
    verb: context.verb ?? (context.request.method ?? 'GET').toLowerCase(),
    user: context.identity?.name,
    dryRun: context.deleteOptions?.dryRun ?? context.url.searchParams.getAll('dryRun').includes('All'),
    requestBytes: context.requestBytes ?? 0,
  };
  if (route?.kind === 'resource') {
    const version = groupVersion(route.type);
    facts.objectRef = {
      resource: route.type.plural,
      ...(route.namespace && { namespace: route.namespace }),
      ...(route.name && { name: route.name }),
      ...(route.type.group && { apiGroup: route.type.group }),
      apiVersion: version.includes('/') ? version.split('/')[1]! : version,
      ...(route.subresource && { subresource: route.subresource }),
    };
  }
  return facts;
}
