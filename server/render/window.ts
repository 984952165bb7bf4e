/**
 * What a window grant covers, in words (issue 13, finding 7): the tool, the requester, the cluster,
 * every rule a covered call must match with its predicates as written, the arguments left free,
 * until when, and a concrete call that differs from the one the approver sees. One sentence, used by
 * the grant's recorded `scope.description` and by the renderer for a pending request (CLI, page,
 * notifications), so the approver reads the same thing before and after deciding.
 */
import type { Cluster } from '../../core/index.ts';
import type { WindowCoverage } from '../gate/approval-request.ts';
import { formatArguments } from './describe-call.ts';

const list = (value: unknown): string =>
  (Array.isArray(value) ? value : [value]).map((item) => scalar(item)).join(' or ');

function scalar(value: unknown): string {
  if (typeof value === 'string') return value === '' ? '""' : value;
  return JSON.stringify(value);
}

/** `namespace = shop`, `replicas between 1 and 5`, `name matches web-*`, ... */
export function describePredicate(argument: string, predicate: unknown): string {
  if (predicate === null || typeof predicate !== 'object' || Array.isArray(predicate)) {
    return `${argument} = ${scalar(predicate)}`;
  }
  const p = predicate as Record<string, unknown>;
  const parts: string[] = [];
  if ('equals' in p) parts.push(`= ${scalar(p.equals)}`);
  if (Array.isArray(p.in)) parts.push(`one of ${p.in.map(scalar).join(', ')}`);
  if (p.glob !== undefined) parts.push(`matches ${list(p.glob)}`);
  if (typeof p.regex === 'string') parts.push(`matches regex /${p.regex}/`);
  if (p.min !== undefined && p.max !== undefined) parts.push(`between ${scalar(p.min)} and ${scalar(p.max)}`);
  else if (p.min !== undefined) parts.push(`≥ ${scalar(p.min)}`);
  else if (p.max !== undefined) parts.push(`≤ ${scalar(p.max)}`);
  if (p.present !== undefined) parts.push(p.present ? 'given' : 'not given');
  return `${argument} ${parts.join(' and ')}`;
}

function describeConditions(conditions: WindowCoverage['conditions'][number]): string {
  const groups: string[] = [];
  if (conditions.tool !== undefined) groups.push(`tool ${list(conditions.tool)}`);
  if (conditions.risk !== undefined) groups.push(`risk ${list(conditions.risk)}`);
  if (conditions.cluster !== undefined) groups.push(`cluster ${list(conditions.cluster)}`);
  if (conditions.requester !== undefined) groups.push(`requester ${list(conditions.requester)}`);
  if (conditions.dry_run !== undefined) groups.push(`dry_run ${scalar(conditions.dry_run)}`);
  const args = conditions.args;
  if (args !== null && typeof args === 'object') {
    const predicates = Object.keys(args)
      .sort()
      .map((name) => describePredicate(name, (args as Record<string, unknown>)[name]));
    if (predicates.length > 0) groups.push(predicates.join(', '));
  }
  return groups.length > 0 ? `${conditions.rule} (${groups.join('; ')})` : `${conditions.rule} (any call)`;
}

export interface WindowDescriptionInput {
  tool: string;
  requester: string;
  cluster: Cluster | null;
  /** Names of the matched rules (`policy.rules`). */
  rules: readonly string[];
  /** The recorded coverage; undefined on records made before it existed (rule names only). */
  coverage: WindowCoverage | undefined;
}

/**
 * `any <tool> call by <requester> on context <c> (<server>) that matches policy rule <r> (<its
 * predicates>) and no stricter rule, with any value of <free arguments>`: what a covered call is.
 */
export function describeWindowCovers(input: WindowDescriptionInput): string {
  const where = input.cluster
    ? `on context ${input.cluster.context} (${input.cluster.server})`
    : 'with no cluster configured';
  const noun = input.rules.length === 1 ? 'rule' : 'rules';
  if (!input.coverage) {
    return `any ${input.tool} call by ${input.requester} ${where} that matches policy ${noun} ${input.rules.join(', ')} (and no stricter rule)`;
  }
  const rules = input.coverage.conditions.map(describeConditions).join(', ');
  const free = input.coverage.free_arguments;
  return `any ${input.tool} call by ${input.requester} ${where} that matches policy ${noun} ${rules} and no stricter rule${free.length > 0 ? `, with any value of ${free.join(', ')}` : ''}`;
}

/**
 * `; for example <tool> <arguments>, which is not <subject>`, or, when no other covered call was
 * found, `; no other call found that it would cover`. Empty for records without coverage.
 */
export function describeWindowExample(input: WindowDescriptionInput, subject: string): string {
  if (!input.coverage) return '';
  const example = input.coverage.example;
  if (!example) return '; no other call found that it would cover';
  return `; for example ${`${input.tool} ${formatArguments(example.arguments)}`.trim()}, which is not ${subject}`;
}

/** The recorded description of an approved window grant lasting until `until` (ISO 8601). */
export function describeWindowGrant(input: WindowDescriptionInput, until: string): string {
  return `${describeWindowCovers(input)}, until ${until}${describeWindowExample(input, 'the approved call')}`;
}

/**
 * For a pending request whose rule offers a window of up to `window` (e.g. `15m`): what approving it
 * as a window would let through, and until when if approved at `now`.
 */
export function describeWindowOffer(input: WindowDescriptionInput, window: string, until: string): string {
  return `once by default; a window of up to ${window} (until ${until} if approved now) would cover ${describeWindowCovers(input)}${describeWindowExample(input, 'the call above')}`;
}
