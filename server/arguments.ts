/**
 * Parses `tools/call` arguments with a tool's strict schema and turns zod issues into one message
 * that names each field and the rule it broke — the text a model reads to fix its call.
 */
import type { z } from 'zod';
import type { Tool } from '../tools/define-tool.ts';
import { SentinelError } from '../tools/errors.ts';
import { publishedInput } from './tool-input.ts';

/** `a.b[0]`-style path of an issue; `(arguments)` for the top level. */
function pathOf(path: readonly PropertyKey[]): string {
  if (path.length === 0) return '(arguments)';
  return path
    .map((part, index) => (typeof part === 'number' ? `[${part}]` : `${index > 0 ? '.' : ''}${String(part)}`))
    .join('');
}

/** One line per broken rule, e.g. `dryrun: unknown argument (accepted: namespace, name, dry_run)`. */
function describeIssue(issue: z.core.$ZodIssue, accepted: readonly string[]): string[] {
  if (issue.code === 'unrecognized_keys') {
    return issue.keys.map(
      (key) =>
        `${pathOf([...issue.path, key])}: unknown argument (accepted: ${accepted.join(', ') || 'none'})`,
    );
  }
  return [`${pathOf(issue.path)}: ${issue.message}`];
}

/**
 * Validates `raw` against `publishedInput(tool)` (the tool's strict schema, plus the gate-owned
 * `idempotency_key` on write/destructive tools) and returns the parsed arguments with defaults applied.
 * Throws `SentinelError('invalid_input')` whose message lists every broken rule by field and whose
 * `field` is the first offending field.
 */
export function parseToolArguments(tool: Tool, raw: unknown): Record<string, unknown> {
  const schema = publishedInput(tool);
  const parsed = schema.safeParse(raw);
  if (parsed.success) return parsed.data as Record<string, unknown>;
  const accepted = Object.keys(schema.shape);
  const issues = parsed.error.issues;
  const lines = issues.flatMap((issue) => describeIssue(issue, accepted));
  const first = issues[0];
  const field =
    first?.code === 'unrecognized_keys' ? first.keys[0] : first?.path.map(String).join('.') || undefined;
  throw new SentinelError(
    'invalid_input',
    `Invalid arguments for ${tool.name}: ${lines.join('; ')}. Nothing was run; fix the arguments and call again.`,
    { ...(field !== undefined && { field }) },
  );
}
