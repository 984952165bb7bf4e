/**
 * Resolves scenario fate rules to a container's fate when its Pod is created: the first rule whose
 * every condition holds wins; no match means healthy.
 */
import { canonicalQuantity } from '../api/quantity.ts';
import { DEFAULT_HEALTHY } from '../fate.ts';
import type { ContainerFate } from '../fate.ts';
import type { Container, Pod } from '../types.ts';
import type { FateMatch, FateRule } from './schema.ts';

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
  if (match.createdBefore !== undefined) {
    // creationTimestamp has second precision: compare whole seconds.
    const cutoff = Math.floor((startTime + match.createdBefore) / 1000) * 1000;
    if (!(Date.parse(pod.metadata.creationTimestamp ?? '') < cutoff)) return false;
  }
  return true;
}

/**
 * A fate resolver for `rules`, with scenario offsets relative to `startTime` (epoch ms of t = 0).
 */
export function fateResolver(rules: FateRule[], startTime: number) {
  return (pod: Pod, container: Container): ContainerFate => {
    const rule = rules.find((candidate) => matches(candidate.match, pod, container, startTime));
    if (!rule) return DEFAULT_HEALTHY;
    const fate = rule.fate;
    if (fate.kind === 'readinessFailure') {
      return { ...fate, since: fate.since === undefined ? undefined : startTime + fate.since };
    }
    return fate;
  };
}
