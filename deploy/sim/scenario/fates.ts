/**
 * Resolves scenario fate rules to a container's fate when its Pod is created: the first rule whose
 * every condition holds wins; no match means healthy.
 */
import { canonicalQuantity } from '../api/quantity.ts';
import { DEFAULT_HEALTHY } from '../fate.ts';
import type { ContainerFate } from '../fate.ts';
import type { Container, Pod } from '../types.ts';
import type { FateMatch, FateRule, FateWhen, WorkloadRef } from './schema.ts';

function subset(
  expected: Record<string, string> | undefined,
  actual: Record<string, string> | undefined,
): boolean {
  return Object.entries(expected ?? {}).every(([key, value]) => actual?.[key] === value);
}

/** A quantity in canonical form (the API stores them so), or the text itself when it is not one. */
function canonical(value: string | undefined): string | undefined {
  if (value === undefined) return undefined;
  try {
    return canonicalQuantity(value);
  } catch {
    return value;
  }
}

/** `subset` for resource lists: quantities compare by value (`0.5Gi` matches a stored `512Mi`). */
function quantitySubset(
  expected: Record<string, string> | undefined,
  actual: Record<string, string> | undefined,
): boolean {
  return Object.entries(expected ?? {}).every(
    ([key, value]) => canonical(actual?.[key]) === canonical(value),
  );
}

/** The value at a dotted path (`spec.imagePullSecrets`), undefined when absent. */
function at(object: unknown, path: string): unknown {
  return path
    .split('.')
    .reduce<unknown>(
      (value, key) =>
        value !== null && typeof value === 'object' ? (value as Record<string, unknown>)[key] : undefined,
      object,
    );
}

/** Missing, null, an empty list and an empty map are the same (Kubernetes' semantic equality). */
function empty(value: unknown): boolean {
  return (
    value === undefined ||
    value === null ||
    (Array.isArray(value) && value.length === 0) ||
    (typeof value === 'object' && Object.keys(value).length === 0)
  );
}

function fieldsMatch(fields: Record<string, unknown>, pod: Pod): boolean {
  return Object.entries(fields).every(([path, expected]) => {
    const actual = at(pod, path);
    if (expected === null) return empty(actual);
    return JSON.stringify(actual) === JSON.stringify(expected);
  });
}

function matches(match: FateMatch, pod: Pod, container: Container, startTime: number): boolean {
  if (match.namespace !== undefined && pod.metadata.namespace !== match.namespace) return false;
  if (!subset(match.labels, pod.metadata.labels)) return false;
  if (match.container !== undefined && container.name !== match.container) return false;
  if (match.image !== undefined && container.image !== match.image) return false;
  const env = Object.fromEntries(
    (container.env ?? []).flatMap((variable) =>
      variable.value === undefined ? [] : [[variable.name, variable.value]],
    ),
  );
  if (!subset(match.env, env)) return false;
  if (!quantitySubset(match.resources?.limits, container.resources?.limits)) return false;
  if (!quantitySubset(match.resources?.requests, container.resources?.requests)) return false;
  if (match.fields !== undefined && !fieldsMatch(match.fields, pod)) return false;
  if (match.createdBefore !== undefined) {
    // creationTimestamp has second precision: compare whole seconds.
    const cutoff = Math.floor((startTime + match.createdBefore) / 1000) * 1000;
    if (!(Date.parse(pod.metadata.creationTimestamp ?? '') < cutoff)) return false;
  }
  return true;
}

/** What `when` conditions read: the simulated time and the cluster's workloads. */
export interface FateConditions {
  /** Simulated epoch ms. */
  now(): number;
  /** Whether `ref` (in `namespace` unless it names one) has available replicas. */
  available(ref: WorkloadRef, namespace: string): boolean;
}

function holds(
  when: FateWhen | undefined,
  pod: Pod,
  startTime: number,
  conditions?: FateConditions,
): boolean {
  if (when === undefined) return true;
  if (!conditions) throw new Error('a fate rule with `when` needs the cluster to evaluate it');
  if (when.after !== undefined && conditions.now() < startTime + when.after) return false;
  if (when.unavailable && conditions.available(when.unavailable, pod.metadata.namespace ?? 'default'))
    return false;
  return true;
}

/**
 * A fate resolver for `rules`, with scenario offsets relative to `startTime` (epoch ms of t = 0).
 * `conditions` evaluates rules' `when` (required when a rule has one); the result then depends on
 * the moment it is asked, so the kubelet asks again at every container start (`Kubelet.refate`).
 */
export function fateResolver(rules: FateRule[], startTime: number, conditions?: FateConditions) {
  return (pod: Pod, container: Container): ContainerFate => {
    const rule = rules.find(
      (candidate) =>
        matches(candidate.match, pod, container, startTime) &&
        holds(candidate.when, pod, startTime, conditions),
    );
    if (!rule) return DEFAULT_HEALTHY;
    const fate: ContainerFate = rule.usage ? { ...rule.fate, usage: rule.usage } : rule.fate;
    // Scenario offsets become epoch ms.
    if ('since' in fate && fate.since !== undefined) return { ...fate, since: startTime + fate.since };
    return fate;
  };
}
