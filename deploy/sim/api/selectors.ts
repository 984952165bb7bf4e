/**
 * Label and field selectors with the grammar and semantics of k8s.io/apimachinery
 * (`pkg/labels/selector.go`, `pkg/fields/selector.go`). No maintained npm package parses them, so
 * this is a small recursive-descent parser over that grammar:
 *
 *   labels:  requirement (',' requirement)*
 *            requirement = key | '!' key | key ('='|'=='|'!=') value
 *                        | key ('in'|'notin') '(' value (',' value)* ')' | key ('>'|'<') integer
 *   fields:  term (',' term)*, term = field ('='|'=='|'!=') value, with '\' escaping ',', '=' and '\'
 */
import { badRequest } from './status.ts';
import type { KubeObject, LabelSelector } from '../types.ts';

export type LabelRequirement =
  | { key: string; operator: 'exists' | 'notexists' }
  | { key: string; operator: 'in' | 'notin'; values: string[] }
  | { key: string; operator: 'gt' | 'lt'; value: number };

/** A parsed label selector; empty matches everything. */
export type LabelMatcher = LabelRequirement[];

const KEY_CHARS = /[A-Za-z0-9._/-]/;
const VALUE_CHARS = /[A-Za-z0-9._-]/;

/** Parses `labelSelector`; throws a 400 `ApiError` naming the broken requirement. */
export function parseLabelSelector(text: string): LabelMatcher {
  let position = 0;
  const fail = (why: string) =>
    badRequest(`unable to parse requirement: ${why} at position ${position} of labelSelector "${text}"`);
  const skipSpaces = () => {
    while (text[position] === ' ') position++;
  };
  const read = (chars: RegExp): string => {
    skipSpaces();
    const start = position;
    while (position < text.length && chars.test(text[position]!)) position++;
    return text.slice(start, position);
  };
  const requirements: LabelMatcher = [];
  skipSpaces();
  if (position >= text.length) return requirements;
  for (;;) {
    skipSpaces();
    let negated = false;
    if (text[position] === '!') {
      negated = true;
      position++;
    }
    const key = read(KEY_CHARS);
    if (!key) throw fail('expected a label key');
    skipSpaces();
    const rest = text.slice(position);
    if (negated) {
      requirements.push({ key, operator: 'notexists' });
    } else if (rest.startsWith('==') || rest.startsWith('=') || rest.startsWith('!=')) {
      const operator = rest.startsWith('!=') ? 'notin' : 'in';
      position += rest.startsWith('=') && !rest.startsWith('==') ? 1 : 2;
      requirements.push({ key, operator, values: [read(VALUE_CHARS)] });
    } else if (/^(in|notin)\s*\(/.test(rest)) {
      const operator = rest.startsWith('in') ? 'in' : 'notin';
      position = text.indexOf('(', position) + 1;
      const values: string[] = [];
      for (;;) {
        values.push(read(VALUE_CHARS));
        skipSpaces();
        if (text[position] === ',') {
          position++;
          continue;
        }
        if (text[position] === ')') {
          position++;
          break;
        }
        throw fail(`expected ',' or ')' in the value set of "${key}"`);
      }
      requirements.push({ key, operator, values });
    } else if (rest.startsWith('>') || rest.startsWith('<')) {
      position++;
      const raw = read(/[0-9-]/);
      const value = Number.parseInt(raw, 10);
      if (!/^-?\d+$/.test(raw)) throw fail(`"${key}" needs an integer after ${rest[0]}`);
      requirements.push({ key, operator: rest.startsWith('>') ? 'gt' : 'lt', value });
    } else {
      requirements.push({ key, operator: 'exists' });
    }
    skipSpaces();
    if (position >= text.length) return requirements;
    if (text[position] !== ',') throw fail(`unexpected "${text[position]}"`);
    position++;
  }
}

/** Whether `labels` satisfy every requirement. */
export function matchesLabels(matcher: LabelMatcher, labels: Record<string, string> | undefined): boolean {
  return matcher.every((requirement) => {
    const value = labels?.[requirement.key];
    switch (requirement.operator) {
      case 'exists':
        return value !== undefined;
      case 'notexists':
        return value === undefined;
      case 'in':
        return value !== undefined && requirement.values.includes(value);
      case 'notin':
        return value === undefined || !requirement.values.includes(value);
      case 'gt':
      case 'lt': {
        if (value === undefined || !/^-?\d+$/.test(value)) return false;
        const number = Number.parseInt(value, 10);
        return requirement.operator === 'gt' ? number > requirement.value : number < requirement.value;
      }
    }
  });
}

/** Converts a `metav1.LabelSelector` (as in a Deployment's `spec.selector`) to a matcher. */
export function labelSelectorToMatcher(selector: LabelSelector | undefined): LabelMatcher {
  const requirements: LabelMatcher = Object.entries(selector?.matchLabels ?? {}).map(([key, value]) => ({
    key,
    operator: 'in' as const,
    values: [value],
  }));
  for (const expression of selector?.matchExpressions ?? []) {
    const operator = expression.operator;
    if (operator === 'Exists') requirements.push({ key: expression.key, operator: 'exists' });
    else if (operator === 'DoesNotExist') requirements.push({ key: expression.key, operator: 'notexists' });
    else
      requirements.push({
        key: expression.key,
        operator: operator === 'In' ? 'in' : 'notin',
        values: expression.values ?? [],
      });
  }
  return requirements;
}

/** `metav1.FormatLabelSelector`: `app=checkout,tier in (web)`, as `kubectl` prints selectors. */
export function formatLabelSelector(selector: LabelSelector | undefined): string {
  const parts = Object.entries(selector?.matchLabels ?? {})
    .sort(([a], [b]) => a.localeCompare(b))
    .map(([key, value]) => `${key}=${value}`);
  for (const expression of selector?.matchExpressions ?? []) {
    const values = (expression.values ?? []).join(',');
    if (expression.operator === 'Exists') parts.push(expression.key);
    else if (expression.operator === 'DoesNotExist') parts.push(`!${expression.key}`);
    else parts.push(`${expression.key} ${expression.operator.toLowerCase()} (${values})`);
  }
  return parts.length ? parts.join(',') : '<none>';
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
