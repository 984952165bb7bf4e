/**
 * RBAC authorization over the stored Roles, ClusterRoles, RoleBindings and ClusterRoleBindings, as
 * k8s.io/kubernetes/plugin/pkg/auth/authorizer/rbac does: a request is allowed when some binding
 * whose subject is the user (User by name, Group by membership, ServiceAccount as
 * `system:serviceaccount:<namespace>:<name>`) grants a rule matching its verb, API group, resource
 * (`pods/log` for a subresource), name, or non-resource path. `system:masters` is allowed everything
 * (the apiserver's privileged group). Built in, as the default bootstrap roles grant them to every
 * authenticated user: discovery, OpenAPI, version and health paths (system:discovery,
 * system:public-info-viewer) and the self-subject reviews (system:basic-user).
 */
import type { ObjectStore } from '../store.ts';
import type { KubeObject } from '../types.ts';

/** Who a request is from (authentication's result). */
export interface UserInfo {
  username: string;
  groups: string[];
  /** Rules granted outside RBAC objects (the simulator's legacy read-only identities). */
  extraRules?: PolicyRule[];
}

export interface PolicyRule {
  verbs: string[];
  apiGroups?: string[];
  resources?: string[];
  resourceNames?: string[];
  nonResourceURLs?: string[];
}

interface Subject {
  kind: string;
  name: string;
  namespace?: string;
}

interface Binding extends KubeObject {
  subjects?: Subject[];
  roleRef: { kind: string; name: string; apiGroup?: string };
}

/** What a request asks to do (the apiserver's authorizer.Attributes). */
export type RequestAttributes =
  | {
      verb: string;
      group: string;
      resource: string;
      subresource?: string;
      namespace?: string;
      name?: string;
    }
  | { verb: string; path: string };

export interface Decision {
  allowed: boolean;
  /** `RBAC: allowed by RoleBinding "x/shop" of Role "y" to User "z"` when allowed. */
  reason: string;
}

const PRIVILEGED_GROUP = 'system:masters';

/** The bootstrap rules every authenticated user has (system:discovery, basic-user, public-info-viewer). */
export const AUTHENTICATED_RULES: readonly PolicyRule[] = [
  {
    verbs: ['get'],
    nonResourceURLs: [
      '/api',
      '/api/*',
      '/apis',
      '/apis/*',
      '/openapi',
      '/openapi/*',
      '/version',
      '/version/',
      '/healthz',
      '/livez',
      '/readyz',
    ],
  },
  {
    verbs: ['create'],
    apiGroups: ['authorization.k8s.io'],
    resources: ['selfsubjectaccessreviews', 'selfsubjectrulesreviews'],
  },
  { verbs: ['create'], apiGroups: ['authentication.k8s.io'], resources: ['selfsubjectreviews'] },
];

/** The rule set of `system:masters` as a rules review reports it. */
export const ALL_RULES: readonly PolicyRule[] = [
  { verbs: ['*'], apiGroups: ['*'], resources: ['*'] },
  { verbs: ['*'], nonResourceURLs: ['*'] },
];

function subjectMatches(subject: Subject, user: UserInfo, bindingNamespace: string | undefined): boolean {
  switch (subject.kind) {
    case 'User':
      return subject.name === user.username;
    case 'Group':
      return user.groups.includes(subject.name);
    case 'ServiceAccount': {
      const namespace = subject.namespace || bindingNamespace;
      return user.username === `system:serviceaccount:${namespace}:${subject.name}`;
    }
    default:
      return false;
  }
}

const has = (list: string[] | undefined, value: string) =>
  (list ?? []).some((entry) => entry === '*' || entry === value);

/** Whether `rule` grants `attributes` (rbac's RuleAllows). */
export function ruleAllows(rule: PolicyRule, attributes: RequestAttributes): boolean {
  if (!has(rule.verbs, attributes.verb)) return false;
  if ('path' in attributes) {
    return (rule.nonResourceURLs ?? []).some(
      (url) =>
        url === '*' ||
        url === attributes.path ||
        (url.endsWith('*') && attributes.path.startsWith(url.slice(0, -1))),
    );
  }
  if (!has(rule.apiGroups, attributes.group)) return false;
  const resource = attributes.subresource
    ? `${attributes.resource}/${attributes.subresource}`
    : attributes.resource;
  const resourceMatches = (rule.resources ?? []).some(
    (entry) =>
      entry === '*' ||
      entry === resource ||
      (attributes.subresource !== undefined && entry === `*/${attributes.subresource}`),
  );
  if (!resourceMatches) return false;
  const names = rule.resourceNames ?? [];
  return names.length === 0 || (attributes.name !== undefined && names.includes(attributes.name));
}

interface Grant {
  rules: PolicyRule[];
  /** `RoleBinding "name/ns" of Role "role"`, for the allowed reason. */
  source: string;
}

function rulesOf(store: ObjectStore, namespace: string | undefined, ref: Binding['roleRef']): PolicyRule[] {
  const role =
    ref.kind === 'Role' && namespace !== undefined
      ? store.get('roles', namespace, ref.name)
      : ref.kind === 'ClusterRole'
        ? store.get('clusterroles', undefined, ref.name)
        : undefined;
  return ((role?.['rules'] as PolicyRule[] | undefined) ?? []).filter(
    (rule) => typeof rule === 'object' && rule !== null && Array.isArray(rule.verbs),
  );
}

/**
 * The grants that apply to `user` in `namespace` (undefined: cluster scope only): cluster role
 * bindings everywhere, role bindings of that namespace.
 */
export function grantsFor(store: ObjectStore, user: UserInfo, namespace: string | undefined): Grant[] {
  const grants: Grant[] = [{ rules: [...AUTHENTICATED_RULES], source: 'the default bootstrap roles' }];
  if (user.extraRules) grants.push({ rules: user.extraRules, source: 'the simulator identity' });
  const subjectKind = (subject: Subject) =>
    subject.kind === 'ServiceAccount' ? 'ServiceAccount' : subject.kind;
  for (const binding of store.list<Binding>('clusterrolebindings')) {
    const subject = binding.subjects?.find((candidate) => subjectMatches(candidate, user, undefined));
    if (!subject) continue;
    grants.push({
      rules: rulesOf(store, undefined, binding.roleRef),
      source: `ClusterRoleBinding "${binding.metadata.name}" of ClusterRole "${binding.roleRef.name}" to ${subjectKind(subject)} "${subject.name}"`,
    });
  }
  if (namespace !== undefined) {
    for (const binding of store.list<Binding>('rolebindings', namespace)) {
      const subject = binding.subjects?.find((candidate) => subjectMatches(candidate, user, namespace));
      if (!subject) continue;
      grants.push({
        rules: rulesOf(store, namespace, binding.roleRef),
        source: `RoleBinding "${binding.metadata.name}/${namespace}" of ${binding.roleRef.kind} "${binding.roleRef.name}" to ${subjectKind(subject)} "${subject.name}"`,
      });
    }
  }
  return grants;
}

/** Authorizes one request. */
export function authorize(store: ObjectStore, user: UserInfo, attributes: RequestAttributes): Decision {
  if (user.groups.includes(PRIVILEGED_GROUP)) return { allowed: true, reason: '' };
  const namespace = 'path' in attributes ? undefined : attributes.namespace;
  for (const grant of grantsFor(store, user, namespace)) {
    if (grant.rules.some((rule) => ruleAllows(rule, attributes)))
      return { allowed: true, reason: `RBAC: allowed by ${grant.source}` };
  }
  return { allowed: false, reason: '' };
}

/** Every rule `user` holds in `namespace` (a rules review). */
export function rulesFor(store: ObjectStore, user: UserInfo, namespace: string | undefined): PolicyRule[] {
  if (user.groups.includes(PRIVILEGED_GROUP)) return [...ALL_RULES];
  return grantsFor(store, user, namespace).flatMap((grant) => grant.rules);
}
