/**
 * The input schema a tool is published with (`tools/list`) and parsed by (`tools/call`): the tool's
 * own strict schema, plus — for write/destructive tools — the optional `idempotency_key` that the
 * approval gate owns. No tool declares `idempotency_key`; the gate reads it from the parsed
 * arguments and strips it before the handler runs (server/gate/gate.ts).
 */
import { z } from 'zod';
import type { StrictObjectSchema, Tool } from '../tools/index.ts';

/** The gate-owned optional argument of every write/destructive tool. */
export const IdempotencyKeySchema = z
  .string()
  .min(1)
  .max(200)
  .describe(
    'Optional key you choose for this change (e.g. a UUID), at most 200 characters. Repeating the same call with the same key returns the first result instead of executing again.',
  );

const published = new WeakMap<Tool, StrictObjectSchema>();

/** The schema `tool` is published and parsed with (computed once per tool). */
export function publishedInput(tool: Tool): StrictObjectSchema {
  if (tool.risk === 'read') return tool.input;
  let schema = published.get(tool);
  if (!schema) {
    schema = tool.input.extend({
      idempotency_key: IdempotencyKeySchema.optional(),
    }) as unknown as StrictObjectSchema;
    published.set(tool, schema);
  }
  return schema;
}
