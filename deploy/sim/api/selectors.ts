/**
 * Label and field selectors of list and watch requests, with the semantics of k8s.io/apimachinery
 * (`pkg/labels/selector.go`, `pkg/fields/selector.go`). Label selectors use the project's parser
 * (tools/kube/label-selector.ts); field selectors are `term (',' term)*` with
 * `term = field ('='|'=='|'!=') value` and `\` escaping `,`, `=` and `\`. Malformed selectors are
 * 400 `ApiError`s, as from the real server.
 */
import {
  LabelSelectorSyntaxError,
  formatLabelSelector as formatSelectorString,
  matchesLabels as matchesRequirements,
  parseLabelSelector as parseRequirements,
  type LabelRequirement,
} from '../../../tools/index.ts';
import { badRequest } from './status.ts';
import type { KubeObject, LabelSelector } from '../types.ts';

/** A parsed label selector; empty matches everything. */
export type LabelMatcher = LabelRequirement[];

/** Parses `labelSelector`; throws a 400 `ApiError` naming the broken requirement. */
export function parseLabelSelector(text: string): LabelMatcher {
  try {
    return parseRequirements(text);
  } catch (error) {
    if (error instanceof LabelSelectorSyntaxError)
      throw badRequest(`unable to parse requirement: ${error.message}`);
    throw error;
  }
}

/** Whether `labels` satisfy every requirement. */
export function matchesLabels(matcher: LabelMatcher, labels: Record<string, string> | undefined): boolean {
  return matchesRequirements(labels, matcher);
}

/** A `metav1.LabelSelector` (as in a Deployment's `spec.selector`) as a matcher. */
export function labelSelectorToMatcher(selector: LabelSelector | undefined): LabelMatcher {
  return parseRequirements(formatSelectorString(selector));
}

/** `metav1.FormatLabelSelector`: `app=checkout`, or `<none>` for an empty selector (kubectl's column text). */
export function formatLabelSelector(selector: LabelSelector | undefined): string {
  return formatSelectorString(selector) || '<none>';
}

export interface FieldTerm {
  field: string;
  operator: '=' | '!=';
  value: string;
}

/**
 * Parses `fieldSelector`; rejects fields the resource does not index with the real server's
 * "field label not supported" 400.
 */
export function parseFieldSelector(text: string, supported: readonly string[]): FieldTerm[] {
  const terms: FieldTerm[] = [];
  if (!text.trim()) return terms;
  for (const raw of splitUnescaped(text, ',')) {
    const match = /^([^=!]+?)\s*(==|=|!=)\s*(.*)$/s.exec(raw.trim());
    if (!match) throw badRequest(`invalid selector: '${text}'; can't understand '${raw}'`);
    const field = match[1]!;
    if (field !== 'metadata.name' && field !== 'metadata.namespace' && !supported.includes(field)) {
      throw badRequest(`field label not supported: ${field}`);
    }
    terms.push({ field, operator: match[2] === '!=' ? '!=' : '=', value: unescape(match[3]!) });
  }
  return terms;
}

/** Whether the object's field values satisfy every term (a missing field reads as ""). */
export function matchesFields(terms: FieldTerm[], object: KubeObject): boolean {
  return terms.every((term) => {
    const actual = fieldValue(object, term.field);
    return term.operator === '=' ? actual === term.value : actual !== term.value;
  });
}

function fieldValue(object: KubeObject, field: string): string {
  // Core Events index `source` as the reporting component.
  const path = field === 'source' ? ['source', 'component'] : field.split('.');
  let current: unknown = object;
  for (const segment of path) {
    if (current === null || typeof current !== 'object') return '';
    current = (current as Record<string, unknown>)[segment];
  }
  return current === undefined || current === null ? '' : String(current);
}

function splitUnescaped(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let index = 0; index < text.length; index++) {
    const char = text[index]!;
    if (char === '\\' && index + 1 < text.length) {
      current += char + text[++index];
    } else if (char === separator) {
      parts.push(current);
      current = '';
    } else {
      current += char;
    }
  }
  parts.push(current);
  return parts;
}

function unescape(value: string): string {
  return value.replace(/\\(.)/g, '$1');
}
