/**
 * Policy evaluation: which rules match a call and what they decide together.
 *
 * Every rule whose conditions all hold matches; the most restrictive decision among them wins
 * (deny over ask over allow). Among the rules with the winning decision, the first in file order is
 * "the matched rule" (its reason and approvers are shown), and the grant validity is the most
 * restrictive of theirs (once over window, shorter window over longer). With no matching rule:
 * `read` tools allow, `write`/`destructive` tools ask, a tool the registry does not know is denied.
 * MCP annotations are never an input: risk comes from the registry.
 */
import picomatch from 'picomatch';
import type { Tool } from '../../../tools/index.ts';
import type { Role } from '../../identity.ts';
import { durationMs, type GrantValidity } from '../approval-request.ts';
import { canonicalJson, matchedArguments, sha256 } from '../canonical.ts';
import {
  compilePolicyRegex,
  MAX_MATCHED_INPUT_LENGTH,
  type ArgumentPredicate,
  type Decision,
  type PolicyFile,
  type PolicyRule,
} from './schema.ts';

/** What the policy is asked about. */
export interface PolicyQuery {
  /** The tool name as called. */
  toolName: string;
  /** The registered tool, or undefined when the registry does not know the name. */
  tool: Tool | undefined;
  /** Parsed arguments, defaults applied. */
  args: Record<string, unknown>;
  /** Kubeconfig context name of the cluster the call runs against. */
  cluster: string | undefined;
  /** Calling identity (for rules with `requester`). */
  identity?: { name: string; roles: readonly Role[] };
}

/** The policy's answer for one call. */
export interface Verdict {
  decision: Decision;
  /** Name of the matched rule, or `default:read|write|destructive|unknown-tool`. */
  rule: string;
  /** Every rule with the winning decision, in file order (just `rule` for a default). */
  rules: string[];
  reason: string;
  /** Longest validity an approver may grant. */
  validity: GrantValidity;
  approvers: string[];
  /** Whether the call is a preview (`dry_run: true` to a tool that supports it). */
  dryRun: boolean;
  /**
   * Fingerprint of the matched rules' definitions: a window grant covers later calls with the same
   * scope (same tool, same matching rules), and a policy edit to those rules ends it.
   */
  scope: string;
  /**
   * The resolved call (matched arguments) when the policy judged it and it decided the verdict: it
   * differs from the call as sent and was stricter, or equally strict through an explicit rule.
   */
  resolvedArguments?: Record<string, unknown>;
}

export interface CompiledRule {
  name: string;
  /** 0-based position in the file. */
  index: number;
  decision: Decision;
  reason: string | undefined;
  validity: GrantValidity;
  approvers: string[];
  /** Tool names in `tool` that contain no glob characters. */
  literalToolNames: string[];
  /** Hash of the rule's definition. */
  fingerprint: string;
  /**
   * The rule's matching conditions as written (`rule` name plus any of `tool`, `risk`, `cluster`,
   * `requester`, `dry_run`, `args`), shown to an approver as what a window grant covers.
   */
  conditions: { rule: string } & Partial<
    Pick<PolicyRule, 'tool' | 'risk' | 'kind' | 'cluster' | 'requester' | 'dry_run' | 'args'>
  >;
  /** Whether the rule's tool and risk conditions hold for `tool`. */
  matchesTool(tool: Tool): boolean;
  matches(query: PolicyQuery, dryRun: boolean): boolean;
}

export interface CompiledPolicy {
  /** `maxWindow`: `settings.max_window` as written (e.g. `1h`), for messages; `maxWindowMs` in ms. */
  settings: { requestTtlMs: number; replayWindowMs: number; maxWindow: string; maxWindowMs: number };
  rules: readonly CompiledRule[];
  evaluate(query: PolicyQuery): Verdict;
}

const GLOB_OPTIONS = { bash: true, dot: true } as const;
const DEFAULT_APPROVERS = ['role:approver'];
const RESTRICTIVENESS: Record<Decision, number> = { allow: 0, ask: 1, deny: 2 };

const toList = <T>(value: T | T[] | undefined): T[] | undefined =>
  value === undefined ? undefined : Array.isArray(value) ? value : [value];

function globMatcher(patterns: string[] | undefined): (value: string | undefined) => boolean {
  if (!patterns) return () => true;
  const match = picomatch(patterns, GLOB_OPTIONS);
  return (value) => value !== undefined && match(value);
}

/** Thrown while matching when an argument is too long to match; `evaluate` turns it into a deny. */
class ArgumentTooLong extends Error {
  readonly argument: string;
  readonly length: number;
  constructor(argument: string, length: number) {
    super(`argument '${argument}' is too long to match`);
    this.argument = argument;
    this.length = length;
  }
}

/** Bounds the work a glob or regex does on an attacker-chosen string (fail closed beyond it). */
function bounded(argument: string, value: string): string {
  if (value.length > MAX_MATCHED_INPUT_LENGTH) throw new ArgumentTooLong(argument, value.length);
  return value;
}

function predicateMatcher(argument: string, predicate: ArgumentPredicate): (value: unknown) => boolean {
  if (predicate === null || typeof predicate !== 'object') return (value) => value === predicate;
  const checks: ((value: unknown) => boolean)[] = [];
  if ('equals' in predicate) checks.push((value) => value === predicate.equals);
  if (predicate.in) {
    const allowed = predicate.in;
    checks.push((value) => allowed.some((candidate) => candidate === value));
  }
  if (predicate.glob !== undefined) {
    const match = picomatch(toList(predicate.glob)!, GLOB_OPTIONS);
    checks.push((value) => typeof value === 'string' && match(bounded(argument, value)));
  }
  if (predicate.regex !== undefined) {
    const regex = compilePolicyRegex(predicate.regex);
    checks.push((value) => typeof value === 'string' && regex.test(bounded(argument, value)));
  }
  if (predicate.min !== undefined) {
    const min = predicate.min;
    checks.push((value) => typeof value === 'number' && value >= min);
  }
  if (predicate.max !== undefined) {
    const max = predicate.max;
    checks.push((value) => typeof value === 'number' && value <= max);
  }
  if (predicate.present !== undefined) {
    const present = predicate.present;
    checks.push((value) => (value !== undefined) === present);
  }
  return (value) => checks.every((check) => check(value));
}

function identityMatcher(entries: string[] | undefined): (identity: PolicyQuery['identity']) => boolean {
  if (!entries) return () => true;
  return (identity) =>
    identity !== undefined &&
    entries.some((entry) =>
      entry.startsWith('role:') ? identity.roles.includes(entry.slice(5) as Role) : entry === identity.name,
    );
}

function compileRule(rule: PolicyRule, index: number): CompiledRule {
  const tools = toList(rule.tool);
  const matchTool = globMatcher(tools);
  const risks = toList(rule.risk);
  const matchCluster = globMatcher(toList(rule.cluster));
  const matchRequester = identityMatcher(toList(rule.requester));
  const argMatchers = Object.entries(rule.args ?? {}).map(
    ([name, predicate]) => [name, predicateMatcher(name, predicate)] as const,
  );
  const matchesTool = (tool: Tool) => matchTool(tool.name) && (!risks || risks.includes(tool.risk));
  const kinds = toList(rule.kind) as string[] | undefined;
  return {
    name: rule.name ?? `rule-${index + 1}`,
    index,
    decision: rule.decision,
    reason: rule.reason,
    validity: rule.validity ?? 'once',
    approvers: rule.approvers ?? DEFAULT_APPROVERS,
    literalToolNames: (tools ?? []).filter((name) => picomatch.scan(name).isGlob === false),
    fingerprint: sha256(canonicalJson(rule)),
    conditions: {
      rule: rule.name ?? `rule-${index + 1}`,
      ...(rule.tool !== undefined && { tool: rule.tool }),
      ...(rule.risk !== undefined && { risk: rule.risk }),
      ...(rule.kind !== undefined && { kind: rule.kind }),
      ...(rule.cluster !== undefined && { cluster: rule.cluster }),
      ...(rule.requester !== undefined && { requester: rule.requester }),
      ...(rule.dry_run !== undefined && { dry_run: rule.dry_run }),
      ...(rule.args !== undefined && { args: rule.args }),
    },
    matchesTool,
    matches(query, dryRun) {
      if (!query.tool) return false;
      if (!matchesTool(query.tool)) return false;
      if (rule.dry_run !== undefined && rule.dry_run !== dryRun) return false;
      if (!matchCluster(query.cluster)) return false;
      if (!matchRequester(query.identity)) return false;
      if (kinds) {
        const kind = callKind(query);
        if (kind === undefined || !kinds.includes(kind)) return false;
      }
      return argMatchers.every(([name, match]) => match(query.args[name]));
    },
  };
}

/**
 * The workload kind a call acts on, for rules with `kind`: its `kind` argument; a tool that takes
 * `kind` called without it acts on a Deployment; undefined for a tool without one.
 */
export function callKind(query: PolicyQuery): string | undefined {
  if (typeof query.args.kind === 'string') return query.args.kind;
  return query.tool && 'kind' in query.tool.input.shape ? 'Deployment' : undefined;
}

/** The more restrictive of two validities: once over window, shorter window over longer. */
export function stricterValidity(a: GrantValidity, b: GrantValidity): GrantValidity {
  if (a === 'once' || b === 'once') return 'once';
  return durationMs(a.window) <= durationMs(b.window) ? a : b;
}

/** sha256 of `text`, memoised: scopes repeat (one per tool default, one per set of matched rules). */
const scopes = new Map<string, string>();
function scopeOf(text: string): string {
  let scope = scopes.get(text);
  if (scope === undefined) {
    scope = sha256(text);
    if (scopes.size < 10_000) scopes.set(text, scope);
  }
  return scope;
}

function defaultVerdict(query: PolicyQuery, dryRun: boolean): Verdict {
  const base = { validity: 'once' as const, approvers: DEFAULT_APPROVERS, dryRun };
  if (!query.tool) {
    const rule = 'default:unknown-tool';
    return {
      ...base,
      decision: 'deny',
      rule,
      rules: [rule],
      reason: `Tool '${query.toolName}' is not registered on this server.`,
      scope: scopeOf(rule),
    };
  }
  const rule = `default:${query.tool.risk}`;
  if (query.tool.risk === 'read') {
    return {
      ...base,
      decision: 'allow',
      rule,
      rules: [rule],
      reason: 'Read-only tool.',
      scope: scopeOf(rule),
    };
  }
  if (!dryRun && query.args.grace_period_seconds === 0) {
    // A force deletion (kubectl --force --grace-period=0) is never a default: a rule must say so.
    const force = 'default:force-delete';
    return {
      ...base,
      decision: 'deny',
      rule: force,
      rules: [force],
      reason: `A force deletion (grace_period_seconds: 0) removes the Pod without waiting for its containers to stop; no policy rule allows it. Call ${query.tool.name} without grace_period_seconds 0, or have an operator add a policy rule for it.`,
      scope: scopeOf(`${force}:${query.tool.name}`),
    };
  }
  return {
    ...base,
    decision: 'ask',
    rule,
    rules: [rule],
    reason: `${query.tool.risk === 'destructive' ? 'Destructive' : 'Write'} tool: a human approves every change.`,
    scope: scopeOf(`${rule}:${query.tool.name}`),
  };
}

const isDefault = (verdict: Verdict) => verdict.rule.startsWith('default:');

/**
 * The verdict on a call the server resolved before running it (a Service name becomes the Deployment
 * behind it, an omitted `to_revision` the concrete previous revision): `asSent` is the policy on the
 * arguments as sent, `resolved` on the resolved arguments (the call as sent with the resolved ones
 * laid over it). The more restrictive decision wins (deny > ask > allow), so a rule cannot be
 * sidestepped by spelling the same change another way. On equal decisions the verdicts merge: the
 * rule, reason and approvers come from the one an explicit rule decided (the resolved one when both
 * or neither did), `rules` lists both, the validity is the stricter, and the scope covers both.
 */
export function stricterVerdict(
  asSent: Verdict,
  resolved: Verdict,
  resolvedArguments: Record<string, unknown>,
): Verdict {
  const order = RESTRICTIVENESS[resolved.decision] - RESTRICTIVENESS[asSent.decision];
  if (order < 0) return asSent;
  if (order > 0) return { ...resolved, resolvedArguments };
  const resolvedLeads = isDefault(asSent) || !isDefault(resolved);
  const [lead, other] = resolvedLeads ? [resolved, asSent] : [asSent, resolved];
  const explicit = [lead, other].filter((verdict) => !isDefault(verdict));
  return {
    ...lead,
    rules: [...new Set([...lead.rules, ...other.rules])],
    reason: [...new Set((explicit.length > 0 ? explicit : [lead]).map((verdict) => verdict.reason))].join(
      ' ',
    ),
    validity: stricterValidity(lead.validity, other.validity),
    scope: asSent.scope === resolved.scope ? asSent.scope : scopeOf(`${asSent.scope}+${resolved.scope}`),
    ...(resolvedLeads && !isDefault(resolved) && { resolvedArguments }),
  };
}

/**
 * Evaluates the policy on the resolved call too: `resolvedArguments` (the tool's dry run's
 * `resolved_arguments`) laid over `query.args`, so the arguments never matched (`reason`) stay as
 * sent. Returns `asSent` when the resolved call is the call as sent; otherwise `stricterVerdict`.
 */
export function evaluateResolved(
  policy: CompiledPolicy,
  query: PolicyQuery,
  asSent: Verdict,
  resolvedArguments: Record<string, unknown>,
): Verdict {
  const args = { ...query.args, ...resolvedArguments };
  if (canonicalJson(matchedArguments(args)) === canonicalJson(matchedArguments(query.args))) return asSent;
  return stricterVerdict(asSent, policy.evaluate({ ...query, args }), matchedArguments(resolvedArguments));
}

/** Fail closed: an argument too long to match cannot slip past a deny rule by matching nothing. */
function tooLongVerdict(error: ArgumentTooLong, dryRun: boolean): Verdict {
  const rule = 'default:argument-too-long';
  return {
    decision: 'deny',
    rule,
    rules: [rule],
    reason: `Argument '${error.argument}' is ${error.length} characters long; policy rules match strings of at most ${MAX_MATCHED_INPUT_LENGTH} characters (the longest Kubernetes object name).`,
    validity: 'once',
    approvers: DEFAULT_APPROVERS,
    dryRun,
    scope: scopeOf(rule),
  };
}

/** Compiles a validated policy file (globs and regexes compiled once, not per call). */
export function compilePolicy(file: PolicyFile): CompiledPolicy {
  const rules = file.rules.map(compileRule);
  return {
    settings: {
      requestTtlMs: durationMs(file.settings.request_ttl),
      replayWindowMs: durationMs(file.settings.replay_window),
      maxWindow: file.settings.max_window,
      maxWindowMs: durationMs(file.settings.max_window),
    },
    rules,
    evaluate(query) {
      const dryRun = query.tool?.supportsDryRun === true && query.args.dry_run === true;
      let matched: CompiledRule[];
      try {
        matched = rules.filter((rule) => rule.matches(query, dryRun));
      } catch (error) {
        if (error instanceof ArgumentTooLong) return tooLongVerdict(error, dryRun);
        throw error;
      }
      if (matched.length === 0) return defaultVerdict(query, dryRun);
      const strictest = Math.max(...matched.map((rule) => RESTRICTIVENESS[rule.decision]));
      const winners = matched.filter((rule) => RESTRICTIVENESS[rule.decision] === strictest);
      const first = winners[0]!;
      const reasons = [
        ...new Set(winners.map((rule) => rule.reason).filter((r): r is string => r !== undefined)),
      ];
      return {
        decision: first.decision,
        rule: first.name,
        rules: winners.map((rule) => rule.name),
        reason:
          reasons.length > 0 ? reasons.join(' ') : `Policy rule '${first.name}' decides ${first.decision}.`,
        validity: winners.map((rule) => rule.validity).reduce(stricterValidity),
        approvers: first.approvers,
        dryRun,
        scope: scopeOf(matched.map((rule) => rule.fingerprint).join(',')),
      };
    },
  };
}
