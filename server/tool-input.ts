/**
 * The input schema a tool is published with (`tools/list`) and parsed by (`tools/call`): the tool's
 * own strict schema, plus — for write/destructive tools — the optional arguments the approval gate
 * owns: `idempotency_key`, and what the approver is shown besides the call (`evidence`, the lines
 * that justify it with the call that returned each; `investigation`, where the call comes from). No
 * tool declares them; the gate reads them from the parsed arguments, never matches them (like
 * `reason`) and never passes them to the handler (server/gate/gate.ts, canonical.ts).
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

/** Most evidence lines a call may carry. */
export const MAX_EVIDENCE_LINES = 20;

/** One line of evidence: what the requester found, and the call that returned it. */
export const EvidenceLineSchema = z.strictObject({
  line: z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(400, { error: 'must be at most 400 characters' })
    .describe('What you found, in one line, e.g. "checkout-7f9c-abcde: CrashLoopBackOff, 14 restarts".'),
  call: z
    .string({ error: 'must be a string' })
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(300, { error: 'must be at most 300 characters' })
    .describe('The tool call that returned it, e.g. "list_pods namespace=shop deployment=checkout".'),
});
export type EvidenceLine = z.infer<typeof EvidenceLineSchema>;

/** The gate-owned `evidence` argument: shown to the approver, recorded, never matched. */
export const EvidenceSchema = z
  .array(EvidenceLineSchema)
  .max(MAX_EVIDENCE_LINES, { error: `must have at most ${MAX_EVIDENCE_LINES} lines` })
  .describe(
    `Optional: the evidence for this change, at most ${MAX_EVIDENCE_LINES} lines, each with the call that returned it (the fatal log line, the Pod states, the rollout history). Shown to the human who approves; not part of the call.`,
  );

/** The gate-owned `investigation` argument: the investigation or harness session the call comes from. */
export const InvestigationRefSchema = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, { error: 'must not be empty when given' })
  .max(200, { error: 'must be at most 200 characters' })
  .describe(
    'Optional: the investigation or harness session this change comes from (e.g. inv_0123456789abcdef, or a TrueForge session id). Shown to the human who approves; not part of the call.',
  );

/** Arguments the gate owns on write/destructive tools, by name. */
export const GATE_OWNED_ARGUMENTS = ['idempotency_key', 'evidence', 'investigation'] as const;

const published = new WeakMap<Tool, StrictObjectSchema>();

/** The schema `tool` is published and parsed with (computed once per tool). */
export function publishedInput(tool: Tool): StrictObjectSchema {
  if (tool.risk === 'read') return tool.input;
  let schema = published.get(tool);
  if (!schema) {
    schema = tool.input.extend({
      idempotency_key: IdempotencyKeySchema.optional(),
      evidence: EvidenceSchema.optional(),
      investigation: InvestigationRefSchema.optional(),
    }) as unknown as StrictObjectSchema;
    published.set(tool, schema);
  }
  return schema;
}
