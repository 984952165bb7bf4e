/**
 * Parses `tools/call` arguments with a tool's strict schema and turns zod issues into one message
 * that names each field and the rule it broke — the text a model reads to fix its call.
 *
 * Every line reads `arguments.<field>: <rule>`: a missing required field says `required`, an unknown
 * field says so and lists the accepted ones, and a rule the tool did not word itself (zod's generic
 * "Invalid input: expected number, received string") is reworded as `must be a number`. Identical
 * lines are given once (a value can break several checks that share one message).
 */
import type { z } from 'zod';
import type { Tool } from '../tools/define-tool.ts';
import { SentinelError } from '../tools/errors.ts';
import { publishedInput } from './tool-input.ts';

/** `arguments.a.b[0]`-style path of an issue; `arguments` for the top level. */
function pathOf(path: readonly PropertyKey[]): string {
  return path.reduce<string>(
    (text, part) => (typeof part === 'number' ? `${text}[${part}]` : `${text}.${String(part)}`),
    'arguments',
  );
}

/** Whether the field at `path` is absent from `raw` (its parent is an object without that key). */
function isMissing(raw: unknown, path: readonly PropertyKey[]): boolean {
  if (path.length === 0) return raw === undefined;
  let parent: unknown = raw;
  for (const part of path.slice(0, -1)) {
    if (typeof parent !== 'object' || parent === null) return false;
    parent = (parent as Record<PropertyKey, unknown>)[part];
  }
  const key = path[path.length - 1]!;
  return (
    typeof parent === 'object' &&
    parent !== null &&
    (parent as Record<PropertyKey, unknown>)[key] === undefined
  );
}

/** zod's own (English) messages start like this; tools word theirs as rules ("must be ..."). */
const GENERIC_MESSAGE = /^(Invalid|Too (small|big)|Unrecognized|Expected)\b/;

const article = (noun: string) => (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`);

/** The rule of an issue as a tool would word it, for issues that carry zod's generic message. */
function ruleOf(issue: z.core.$ZodIssue): string {
  if (!GENERIC_MESSAGE.test(issue.message)) return issue.message;
  switch (issue.code) {
    case 'invalid_type':
      return `must be ${article(issue.expected === 'int' ? 'integer' : issue.expected)}`;
    case 'too_small':
    case 'too_big': {
      const bound = issue.code === 'too_small' ? issue.minimum : issue.maximum;
      const inclusive = issue.inclusive !== false;
      const word =
        issue.code === 'too_small'
          ? inclusive
            ? 'at least'
            : 'more than'
          : inclusive
            ? 'at most'
            : 'less than';
      const plural = Number(bound) === 1 ? '' : 's';
      if (issue.origin === 'string') return `must be ${word} ${String(bound)} character${plural} long`;
      if (issue.origin === 'array' || issue.origin === 'set') {
        return `must have ${word} ${String(bound)} item${plural}`;
      }
      return `must be ${word} ${String(bound)}`;
    }
    case 'invalid_value':
      return `must be one of ${issue.values.map((value) => JSON.stringify(value)).join(', ')}`;
    case 'invalid_format':
      return issue.format === 'regex' && 'pattern' in issue
        ? `must match ${String(issue.pattern)}`
        : `must be a valid ${issue.format}`;
    case 'not_multiple_of':
      return `must be a multiple of ${String(issue.divisor)}`;
    default:
      return 'is not valid';
  }
}

/** A tool's rule without the note on what it received (`(got a non-string)`), for missing fields. */
const withoutReceived = (rule: string) => rule.replace(/\s*\(got [^)]*\)$/, '');

/** The lines for one issue, e.g. `arguments.dryrun: unknown argument (accepted: ...)`. */
function describeIssue(issue: z.core.$ZodIssue, raw: unknown, accepted: readonly string[]): string[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map(
      (key) =>
        `${pathOf([...issue.path, key])}: unknown argument (accepted: ${accepted.join(', ') || 'none'})`,
    );
  }
  if (issue.code === 'invalid_type' && issue.path.length > 0 && isMissing(raw, issue.path)) {
    return [`${pathOf(issue.path)}: required; ${withoutReceived(ruleOf(issue))}`];
  }
  return [`${pathOf(issue.path)}: ${ruleOf(issue)}`];
}

/**
 * Validates `raw` against `publishedInput(tool)` (the tool's strict schema, plus the gate-owned
 * `idempotency_key` on write/destructive tools) and returns the parsed arguments with defaults applied.
 * Throws `SentinelError('invalid_input')` whose message lists every broken rule by field
 * (`arguments.replicas: required; ...`) and whose `field` is the first offending field (`replicas`).
 */
export function parseToolArguments(tool: Tool, raw: unknown): Record<string, unknown> {
  const schema = publishedInput(tool);
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data as Record<string, unknown>;
  const accepted = Object.keys(schema.shape);
  const issues = parsed.error.issues;
  const lines = [...new Set(issues.flatMap((issue) => describeIssue(issue, raw, accepted)))];
  const first = issues[0];
  const field =
    first?.code === 'unrecognized_keys' ? first.keys[0] : first?.path.map(String).join('.') || undefined;
  throw new SentinelError(
    'invalid_input',
    `Invalid arguments for ${tool.name}: ${lines.join('; ')}. Nothing was run; fix the arguments and call again.`,
    { ...(field !== undefined && { field }) },
  );
}
