/**
 * The self-subject reviews, answered from the request and never stored (201 with `status` filled),
 * as the apiserver's authorization.k8s.io and authentication.k8s.io registries do:
 * - SelfSubjectAccessReview (`kubectl auth can-i VERB RESOURCE`): `status.allowed` and the reason;
 * - SelfSubjectRulesReview (`kubectl auth can-i --list`): the user's resource and non-resource rules
 *   in `spec.namespace`;
 * - SelfSubjectReview (`kubectl auth whoami`): `status.userInfo`.
 */
import type { ObjectStore } from '../store.ts';
import { badRequest } from '../api/status.ts';
import { authorize, rulesFor } from './authorizer.ts';
import type { PolicyRule, UserInfo } from './authorizer.ts';

type Json = Record<string, unknown>;

function isPlainObject(value: unknown): value is Json {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

const text = (value: unknown): string => (typeof value === 'string' ? value : '');

/**
 * The answer to a review of kind `kind` from `user`. @throws ApiError 400 for a body without the
 * spec the kind needs.
 */
export function answerReview(kind: string, body: unknown, user: UserInfo, store: ObjectStore): Json {
  const review = isPlainObject(body) ? body : {};
  const spec = isPlainObject(review['spec']) ? review['spec'] : {};
  const metadata = {
    ...(isPlainObject(review['metadata']) ? review['metadata'] : {}),
    creationTimestamp: null,
  };
  switch (kind) {
    case 'SelfSubjectAccessReview': {
      const resource = isPlainObject(spec['resourceAttributes']) ? spec['resourceAttributes'] : undefined;
      const nonResource = isPlainObject(spec['nonResourceAttributes'])
        ? spec['nonResourceAttributes']
        : undefined;
      if (!resource && !nonResource) {
        throw badRequest(
          'SelfSubjectAccessReview.authorization.k8s.io "" is invalid: spec.resourceAttributes: Invalid value: "null": exactly one of nonResourceAttributes or resourceAttributes must be specified',
        );
      }
      const decision = authorize(
        store,
        user,
        resource
          ? {
              verb: text(resource['verb']),
              group: text(resource['group']),
              resource: text(resource['resource']),
              ...(text(resource['subresource']) && { subresource: text(resource['subresource']) }),
              ...(text(resource['namespace']) && { namespace: text(resource['namespace']) }),
              ...(text(resource['name']) && { name: text(resource['name']) }),
            }
          : { verb: text(nonResource!['verb']), path: text(nonResource!['path']) },
      );
      return {
        kind,
        apiVersion: 'authorization.k8s.io/v1',
        metadata,
        spec,
        status: { allowed: decision.allowed, ...(decision.reason && { reason: decision.reason }) },
      };
    }
    case 'SelfSubjectRulesReview': {
      const namespace = text(spec['namespace']) || undefined;
      const rules = rulesFor(store, user, namespace);
      const resourceRules = rules
        .filter((rule) => (rule.resources ?? []).length > 0)
        .map((rule: PolicyRule) => ({
          verbs: rule.verbs,
          apiGroups: rule.apiGroups ?? [],
          resources: rule.resources ?? [],
          ...(rule.resourceNames?.length && { resourceNames: rule.resourceNames }),
        }));
      const nonResourceRules = rules
        .filter((rule) => (rule.nonResourceURLs ?? []).length > 0)
        .map((rule) => ({ verbs: rule.verbs, nonResourceURLs: rule.nonResourceURLs ?? [] }));
      return {
        kind,
        apiVersion: 'authorization.k8s.io/v1',
        metadata,
        spec,
        status: { resourceRules, nonResourceRules, incomplete: false },
      };
    }
    case 'SelfSubjectReview':
      return {
        kind,
        apiVersion: 'authentication.k8s.io/v1',
        metadata,
        status: { userInfo: { username: user.username, groups: user.groups } },
      };
    default:
      throw badRequest(`${kind} is not a review`);
  }
}
