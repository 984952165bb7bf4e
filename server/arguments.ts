/**
 * Parses `tools/call` arguments with a tool's strict schema and turns zod issues into one message
 * that names each field and the rule it broke — the text a model reads to fix its call.
 *
 * Every line reads `arguments.<field>: <rule>`: a missing required field says `required`, an unknown
 * field says so and lists the accepted ones, and a rule the tool did not word itself (zod's generic
 * "Invalid input: expected number, received string") is reworded as `must be a number`. Identical
 * lines are given once (a value can break several checks that share one message).
 */
import type { Tool } from '../tools/index.ts';
import { fromZod } from '../core/index.ts';
import { publishedInput } from './tool-input.ts';

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
  throw fromZod(parsed.error, ['arguments'], {
    all: true,
    brackets: true,
    reword: true,
    input: raw,
    unknownKeys: () => `unknown argument (accepted: ${accepted.join(', ') || 'none'})`,
    field: (first) => first.local || undefined,
    message: (lines) =>
      `Invalid arguments for ${tool.name}: ${lines}. Nothing was run; fix the arguments and call again.`,
  });
}
