/**
 * Reading a tool's dry-run result. The remediation tools' contract: a `dry_run: true` call returns
 * `structuredContent` with `resolved_arguments` (the concrete call, e.g. a rollback with
 * `to_revision` filled in; executing it does exactly what the preview shows), `effect` (a JSON
 * fingerprint of the observed target and the change), `summary` (one sentence), `changes`,
 * `warnings` and `cluster`. A tool without dry-run support has no preview: its call is its own
 * resolution.
 */
import { zodIssueLines, SentinelError } from '../../core/index.ts';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { z } from 'zod';
import type { Tool } from '../../tools/index.ts';
import type { ApprovalPreview } from './approval-request.ts';
import { canonicalJson, matchedArguments } from './canonical.ts';

/** The part of a dry-run `structuredContent` the gate reads. Other fields are ignored. */
export const DryRunContentSchema = z.looseObject({
  resolved_arguments: z.record(z.string(), z.unknown()).optional(),
  effect: z.unknown().optional(),
  summary: z.string().optional(),
  changes: z.array(z.unknown()).optional(),
  warnings: z.array(z.unknown()).optional(),
  template_diff: z.string().optional(),
});
export type DryRunContent = z.infer<typeof DryRunContentSchema>;

/** What a held call resolves to. */
export interface Resolution {
  /** Matched arguments of the resolved call (no `reason`, `idempotency_key`, `dry_run`). */
  arguments: Record<string, unknown>;
  preview: ApprovalPreview | null;
}

/** Text of a result (all text items joined). */
export function resultText(result: CallToolResult): string {
  return result.content
    .filter((item) => item.type === 'text')
    .map((item) => (item as { text: string }).text)
    .join('\n');
}

/**
 * Turns a successful dry-run result into the resolved call and its preview. The resolved arguments
 * are re-parsed with the tool's strict schema, so what executes later is a valid call. Throws
 * `SentinelError('internal')` when the tool's preview breaks the contract.
 */
export function resolutionFromDryRun(
  tool: Tool,
  requested: Record<string, unknown>,
  result: CallToolResult,
): Resolution {
  const content = DryRunContentSchema.safeParse(result.structuredContent ?? {});
  if (!content.success) {
    throw new SentinelError(
      'internal',
      `Tool '${tool.name}' returned a dry-run preview the gate cannot read.`,
      {
        cause: content.error,
      },
    );
  }
  const resolved = content.data.resolved_arguments ?? requested;
  const parsed = tool.input.safeParse(matchedArguments(resolved));
  if (!parsed.success) {
    throw new SentinelError(
      'internal',
      `Tool '${tool.name}' resolved its call to arguments its own schema rejects (${zodIssueLines(parsed.error)[0]?.rule ?? 'invalid'}).`,
      { cause: parsed.error },
    );
  }
  return {
    arguments: matchedArguments(parsed.data as Record<string, unknown>),
    preview: {
      summary: content.data.summary ?? firstLineOf(resultText(result)),
      changes: content.data.changes ?? [],
      warnings: content.data.warnings ?? [],
      effect: content.data.effect ?? null,
      text: resultText(result),
      ...(content.data.template_diff && { template_diff: content.data.template_diff }),
    },
  };
}

/**
 * Whether a dry run shows nothing to do: its `effect.no_op` is true or its `status` is `no_op` (the
 * remediation tools' contract, e.g. scaling to the current replica count).
 */
export function isNoOpPreview(result: CallToolResult): boolean {
  const content = result.structuredContent;
  if (!content || result.isError) return false;
  const effect = content.effect;
  return content.status === 'no_op' || (isRecord(effect) && effect.no_op === true);
}

function firstLineOf(text: string): string {
  return text.split('\n')[0] ?? '';
}

/**
 * Describes how two effects differ, e.g. `generation: 7 → 8; to_revision: 6 → 7`, or undefined when
 * they are the same. Compares canonical JSON, so key order never counts.
 */
export function effectDifference(before: unknown, after: unknown): string | undefined {
  if (canonicalJson(before) === canonicalJson(after)) return undefined;
  if (isRecord(before) && isRecord(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    const changed = keys.filter((key) => canonicalJson(before[key]) !== canonicalJson(after[key]));
    return changed.map((key) => `${key}: ${short(before[key])} → ${short(after[key])}`).join('; ');
  }
  return `${short(before)} → ${short(after)}`;
}

/**
 * What differs between a preview's effect and the effect now, field by field with nested fields
 * dotted, e.g. `replicas.from now 4, the preview said 3` — for approvers; empty when they are the same.
 */
export function effectChanges(before: unknown, after: unknown, path = ''): string[] {
  if (canonicalJson(before) === canonicalJson(after)) return [];
  if (isRecord(before) && isRecord(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => effectChanges(before[key], after[key], path ? `${path}.${key}` : key));
  }
  return [`${path || 'effect'} now ${short(after)}, the preview said ${short(before)}`];
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

function short(value: unknown): string {
  const text = value === undefined ? 'absent' : canonicalJson(value);
  return text.length > 80 ? `${text.slice(0, 77)}...` : text;
}
