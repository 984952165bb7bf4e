/**
 * zod errors turned into `SentinelError('invalid_input')`: the one place that reads zod issues.
 * Each line names the field by its path and says the rule it broke (`arguments.replicas: required;
 * must be an integer`). Built on zod 4's issues (`path`, `code` and the code's typed facts);
 * callers choose only the presentation their readers already know (a path prefix, dots or
 * brackets, every issue or the first, the sentence around the lines).
 */
import type { z } from 'zod';
import { SentinelError } from './errors.ts';

/** One broken rule: the field's path as shown, the same path without the prefix, the rule, the issue. */
export interface ZodIssueLine {
  /** Shown path: prefix and issue path (`arguments.replicas`, `rules[0].decision`), or the root label. */
  field: string;
  /** The issue's own path, dotted, without the prefix (`replicas`); `''` at the root. */
  local: string;
  /** The rule broken: zod's (or the schema's) message, reworded when `reword` is set. */
  rule: string;
  issue: z.core.$ZodIssue;
}

export interface ZodIssueOptions {
  /** Shown for an issue at the root when there is no prefix. Default `(root)`. */
  root?: string;
  /** `a[0].b` instead of `a.0.b`. */
  brackets?: boolean;
  /** Every issue (default: the first only). Identical lines are given once. */
  all?: boolean;
  /**
   * Unknown keys: `zod` keeps zod's message on the object's path (`(body): Unrecognized key: "x"`);
   * `field` names each key as a field (`rules[0].decison: unknown field`); `keys` lists them on the
   * object's path (`mcp_servers.0: unknown key(s) a, b`); or a rule of the caller's per key, e.g.
   * naming the accepted keys. Default `zod`.
   */
  unknownKeys?: 'zod' | 'field' | 'keys' | ((key: string) => string);
  /** Put a misspelled (unknown) key first: the likeliest cause of every other issue on that object. */
  unknownFirst?: boolean;
  /**
   * Reword zod's generic English ("Invalid input: expected number, received string") as a rule
   * (`must be a number`); a schema's own message is kept. With `input`, a missing field says
   * `required; <rule>`.
   */
  reword?: boolean;
  /** The value that was parsed, to tell a missing field from a wrong one (with `reword`). */
  input?: unknown;
}

export interface FromZodOptions extends ZodIssueOptions {
  /** The sentence around the joined lines. Default: the lines and a full stop. */
  message?: (lines: string, issues: readonly ZodIssueLine[]) => string;
  /** The error's `field`: a name, or chosen from the first line. Default: the first line's `field`. */
  field?: string | ((first: ZodIssueLine) => string | undefined);
  details?: Record<string, unknown>;
}

const dotted = (path: readonly PropertyKey[]) => path.map(String).join('.');

/** `a.b.0` (default) or `a.b[0]` (indexes in brackets, keys always dotted: `labels.app.kubernetes.io/name`). */
function showPath(path: readonly PropertyKey[], brackets: boolean | undefined): string {
  if (!brackets) return dotted(path);
  return path.reduce<string>(
    (text, part) =>
      typeof part === 'number' ? `${text}[${part}]` : text ? `${text}.${String(part)}` : String(part),
    '',
  );
}

/** zod's own (English) messages start like this; Sentinel words its rules as "must be ...". */
const GENERIC_MESSAGE = /^(Invalid|Too (small|big)|Unrecognized|Expected)\b/;

const article = (noun: string) => (/^[aeiou]/.test(noun) ? `an ${noun}` : `a ${noun}`);

/** The rule of an issue as Sentinel words it, for issues that carry zod's generic message. */
function ruleOf(issue: z.core.$ZodIssue): string {
  if (!GENERIC_MESSAGE.test(issue.message)) return issue.message;
  switch (issue.code) {
    case 'invalid_type':
      return `must be ${article(issue.expected === 'int' ? 'integer' : issue.expected)}`;
    case 'too_small':
    case 'too_big': {
      const bound = issue.code === 'too_small' ? issue.minimum : issue.maximum;
      const inclusive = issue.inclusive !== false;
      const words = issue.code === 'too_small' ? ['at least', 'more than'] : ['at most', 'less than'];
      const word = inclusive ? words[0] : words[1];
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

/** A rule without the note on what it received (`(got a non-string)`), for a missing field. */
const withoutReceived = (rule: string) => rule.replace(/\s*\(got [^)]*\)$/, '');

function linesOf(
  issue: z.core.$ZodIssue,
  prefix: readonly PropertyKey[],
  options: ZodIssueOptions,
): ZodIssueLine[] {
  const line = (path: readonly PropertyKey[], rule: string): ZodIssueLine => ({
    field: showPath([...prefix, ...path], options.brackets) || (options.root ?? '(root)'),
    local: dotted(path),
    rule,
    issue,
  });
  const unknownKeys = options.unknownKeys ?? 'zod';
  if (issue.code === 'unrecognized_keys' && unknownKeys !== 'zod') {
    if (unknownKeys === 'keys') return [line(issue.path, `unknown key(s) ${issue.keys.join(', ')}`)];
    const rule = unknownKeys === 'field' ? () => 'unknown field' : unknownKeys;
    return issue.keys.map((key) => line([...issue.path, key], rule(key)));
  }
  if (!options.reword) return [line(issue.path, issue.message)];
  const rule = ruleOf(issue);
  if (
    'input' in options &&
    issue.code === 'invalid_type' &&
    issue.path.length > 0 &&
    isMissing(options.input, issue.path)
  ) {
    return [line(issue.path, `required; ${withoutReceived(rule)}`)];
  }
  return [line(issue.path, rule)];
}

/**
 * The broken rules of `error`, one line each, in zod's order (unknown keys first with
 * `unknownFirst`), named by `path` (a prefix such as `['arguments']`) and the issue's path.
 */
export function zodIssueLines(
  error: z.ZodError,
  path: readonly PropertyKey[] = [],
  options: ZodIssueOptions = {},
): ZodIssueLine[] {
  const issues = [...error.issues];
  if (options.unknownFirst) {
    const unknown = issues.findIndex((issue) => issue.code === 'unrecognized_keys');
    if (unknown > 0) issues.unshift(...issues.splice(unknown, 1));
  }
  const lines = (options.all ? issues : issues.slice(0, 1)).flatMap((issue) => linesOf(issue, path, options));
  const seen = new Set<string>();
  return lines.filter((line) => {
    const text = `${line.field}: ${line.rule}`;
    if (seen.has(text)) return false;
    seen.add(text);
    return true;
  });
}

/**
 * `SentinelError('invalid_input')` for a zod error: message `<field>: <rule>` per line (joined with
 * `; `) inside `options.message`, `field` the first offending field. `path` prefixes every field
 * (`fromZod(error, ['arguments'])` → `arguments.replicas: ...`).
 */
export function fromZod(
  error: z.ZodError,
  path: readonly PropertyKey[] = [],
  options: FromZodOptions = {},
): SentinelError {
  const lines = zodIssueLines(error, path, options);
  const text = lines.map((line) => `${line.field}: ${line.rule}`).join('; ');
  const first = lines[0];
  const field =
    typeof options.field === 'function' ? first && options.field(first) : (options.field ?? first?.field);
  return new SentinelError('invalid_input', options.message ? options.message(text, lines) : `${text}.`, {
    ...(field !== undefined && { field }),
    ...(options.details && { details: options.details }),
  });
}
