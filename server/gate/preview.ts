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
  /** The object read (remediation tools: kind, namespace, name, uid, generation); outside `effect`. */
  target: z.unknown().optional(),
});
export type DryRunContent = z.infer<typeof DryRunContentSchema>;

/** What a held call resolves to. */
export interface Resolution {
  /** Matched arguments of the resolved call (no `reason`, `idempotency_key`, `dry_run`). */
  arguments: Record<string, unknown>;
  preview: ApprovalPreview | null;
  /**
   * `metadata.generation` of the target as the dry run read it (its `target.generation`), when the
   * tool reports one. Not part of the effect (an autoscaler moves it; approvals do not bind it): the
   * gate records it with an execution as the pre-change generation reconciliation compares against.
   */
  generation?: number;
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
  const generation = isRecord(content.data.target) ? content.data.target.generation : undefined;
  return {
    arguments: matchedArguments(parsed.data as Record<string, unknown>),
    ...(Number.isSafeInteger(generation) && { generation: generation as number }),
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

/** One field two effects disagree on: its dotted path (`effect` for the whole) and both values. */
interface EffectChange {
  path: string;
  before: unknown;
  after: unknown;
}

/** The fields `before` and `after` differ in, nested records walked (arrays compared whole). */
function changedFields(before: unknown, after: unknown, path = ''): EffectChange[] {
  if (canonicalJson(before) === canonicalJson(after)) return [];
  if (isRecord(before) && isRecord(after)) {
    const keys = [...new Set([...Object.keys(before), ...Object.keys(after)])].sort();
    return keys.flatMap((key) => changedFields(before[key], after[key], path ? `${path}.${key}` : key));
  }
  return [{ path, before, after }];
}

/**
 * Describes how two effects differ, field by field with nested fields dotted and both values whole
 * (canonical JSON, never cut), e.g. `to_template: "3f2a…" → "9b1c…"; target.generation: 3 → absent`;
 * undefined when they are the same. Key order never counts. The stale refusal and the conflict on
 * `POST /approvals` quote it.
 */
export function effectDifference(before: unknown, after: unknown): string | undefined {
  const changes = changedFields(before, after);
  if (changes.length === 0) return undefined;
  return changes
    .map(({ path, before: was, after: now }) => `${path ? `${path}: ` : ''}${shown(was)} → ${shown(now)}`)
    .join('; ');
}

/**
 * What differs between a preview's effect and the effect now, field by field with nested fields
 * dotted, e.g. `replicas_from now 4, the preview said 3` — for approvers; empty when they are the same.
 */
export function effectChanges(before: unknown, after: unknown): string[] {
  return changedFields(before, after).map(
    ({ path, before: was, after: now }) =>
      `${path || 'effect'} now ${shown(now)}, the preview said ${shown(was)}`,
  );
}

const isRecord = (value: unknown): value is Record<string, unknown> =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** A value as a refusal quotes it: canonical JSON, whole (an effect's values are short fingerprints). */
function shown(value: unknown): string {
  return value === undefined ? 'absent' : canonicalJson(value);
}
