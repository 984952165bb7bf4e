/**
 * What a window grant would cover beyond the call in front of the approver (issue 13, finding 7):
 * the matching conditions of the rules a covered call must match, the arguments no rule constrains,
 * and one concrete call that differs from this one and that the policy really lets through under the
 * same grant (same tool, same matched rules, hence the same scope). Recorded on the request when
 * it is created, so every surface (API, CLI, page, notifications) shows the same thing.
 */
import type { Tool } from '../../tools/index.ts';
import type { WindowCoverage } from './approval-request.ts';
import { matchedArguments, UNMATCHED_ARGUMENTS } from './canonical.ts';
import type { CompiledPolicy, PolicyQuery, Verdict } from './policy/evaluate.ts';
import type { ArgumentPredicate } from './policy/schema.ts';

/** Arguments never part of what a window covers (they do not change the call's effect, or are previews). */
const IGNORED = new Set([...UNMATCHED_ARGUMENTS, 'dry_run']);

/** Other values worth trying for one argument, most readable first. */
function alternatives(value: unknown, predicate: ArgumentPredicate | undefined): unknown[] {
  if (predicate === undefined) {
    if (typeof value === 'string') return [`other-${value}`, `${value}-2`];
    if (typeof value === 'number') return [value + 1, value - 1];
    if (typeof value === 'boolean') return [!value];
    return [];
  }
  if (predicate === null || typeof predicate !== 'object') return []; // equality: one value only
  const out: unknown[] = [];
  if (predicate.in) out.push(...predicate.in.filter((candidate) => candidate !== value));
  const globs = predicate.glob === undefined ? [] : [predicate.glob].flat();
  for (const glob of globs) if (glob.includes('*')) out.push(glob.replace('*', 'other'));
  if (typeof value === 'number' && (predicate.min !== undefined || predicate.max !== undefined)) {
    out.push(value + 1, value - 1);
  }
  if (typeof value === 'string' && predicate.regex !== undefined) out.push(`other-${value}`);
  return out;
}

/**
 * The coverage of a window for the call `query` (as resolved: `resolvedArguments`) that `verdict`
 * holds, or undefined when the verdict offers no window. Pure apart from evaluating the policy.
 */
export function windowCoverage(
  policy: CompiledPolicy,
  query: PolicyQuery & { tool: Tool },
  verdict: Verdict,
  resolvedArguments: Record<string, unknown>,
): WindowCoverage | undefined {
  if (verdict.validity === 'once') return undefined;
  const rules = verdict.rules
    .map((name) => policy.rules.find((rule) => rule.name === name))
    .filter((rule) => rule !== undefined);
  const constrained = new Map<string, ArgumentPredicate>();
  for (const rule of rules) {
    for (const [name, predicate] of Object.entries(rule.conditions.args ?? {})) {
      if (!constrained.has(name)) constrained.set(name, predicate);
    }
  }
  const argumentNames = Object.keys(query.tool.input.shape).filter((name) => !IGNORED.has(name));
  const free = argumentNames.filter((name) => !constrained.has(name)).sort();
  const base = matchedArguments(resolvedArguments);
  // Free arguments first (the likeliest surprise: another object), `name` before the rest.
  const order = [...free.sort((a, b) => Number(b === 'name') - Number(a === 'name')), ...constrained.keys()];
  let example: WindowCoverage['example'] = null;
  search: for (const name of order) {
    if (!(name in base)) continue;
    for (const candidate of alternatives(base[name], constrained.get(name))) {
      const parsed = query.tool.input.safeParse({ ...base, [name]: candidate });
      if (!parsed.success) continue;
      const args = matchedArguments(parsed.data as Record<string, unknown>);
      const covered = policy.evaluate({ ...query, args });
      if (covered.decision === 'ask' && covered.scope === verdict.scope) {
        const { dry_run: _preview, ...shown } = args;
        example = { arguments: shown, differs_in: [name] };
        break search;
      }
    }
  }
  return {
    conditions: rules.map((rule) => rule.conditions),
    free_arguments: free,
    example,
  };
}
