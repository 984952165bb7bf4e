/**
 * The policy file's shape (YAML, validated with zod). See `server/gate/default-policy.yaml` for a
 * commented example of every field.
 */
import { RE2JS } from 're2js';
import { z } from 'zod';
import { DurationSchema, durationMs, GrantValiditySchema } from '../approval-request.ts';

const Scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const OneOrMany = <T extends z.ZodType>(item: T) => z.union([item, z.array(item).min(1)]);

/**
 * Compiles a policy regex with RE2 semantics (`re2js`): matching is linear in the input, so an
 * attacker-chosen argument value cannot make the policy hang (no catastrophic backtracking).
 * Throws the engine's error for syntax RE2 does not have (backreferences, lookaround).
 */
export function compilePolicyRegex(source: string): RE2JS {
  return RE2JS.compile(source);
}

/**
 * Longest string a glob or regex predicate is matched against (characters): 253, the longest
 * Kubernetes object name. A longer argument is never matched; the call is denied instead.
 */
export const MAX_MATCHED_INPUT_LENGTH = 253;

/**
 * Most `*` wildcards in one glob. picomatch compiles globs to backtracking JS regexes whose cost
 * grows with the input length to the power of the number of stars; three stay fast at
 * `MAX_MATCHED_INPUT_LENGTH` (a few ms worst case), four do not (about a second).
 */
export const MAX_GLOB_STARS = 3;

const GlobPattern = z
  .string()
  .min(1)
  .refine(
    (glob) => (glob.match(/\*+/g) ?? []).length <= MAX_GLOB_STARS,
    `must have at most ${MAX_GLOB_STARS} '*' wildcards (use a regex for more complex patterns)`,
  );

/** A regular expression source that RE2 compiles (RE2 syntax: no backreferences or lookaround). */
const RegexSource = z.string().superRefine((source, ctx) => {
  try {
    compilePolicyRegex(source);
  } catch (error) {
    ctx.addIssue({
      code: 'custom',
      message: `must be a regular expression the RE2 engine accepts (${(error as Error).message})`,
    });
  }
});

/**
 * A condition on one argument. A bare scalar means equality. In the object form every key present
 * must hold:
 * - `equals`: strict equality; `in`: one of a list;
 * - `glob`: string matches a glob (`*`, `?`, `[a-z]`, `{a,b}`; `*` does not stop at `/`), or any of a list;
 * - `regex`: string contains a match (RE2 syntax, linear time; anchor with `^…$` for a full match);
 *   a string longer than `MAX_REGEX_INPUT_LENGTH` is refused (the call is denied), never matched;
 * - `min` / `max`: number within an inclusive range;
 * - `present`: the argument is (true) or is not (false) given after defaults are applied.
 * A value of the wrong type (a glob against a number) does not match.
 */
export const ArgumentPredicateSchema = z.union([
  Scalar,
  z
    .strictObject({
      equals: Scalar.optional(),
      in: z.array(Scalar).min(1).optional(),
      glob: OneOrMany(GlobPattern).optional(),
      regex: RegexSource.optional(),
      min: z.number().optional(),
      max: z.number().optional(),
      present: z.boolean().optional(),
    })
    .refine(
      (p) => Object.keys(p).length > 0,
      'must hold at least one of equals, in, glob, regex, min, max, present',
    )
    .refine((p) => p.min === undefined || p.max === undefined || p.min <= p.max, 'min must not exceed max'),
]);
export type ArgumentPredicate = z.infer<typeof ArgumentPredicateSchema>;

export const DecisionSchema = z.enum(['allow', 'ask', 'deny']);
export type Decision = z.infer<typeof DecisionSchema>;

const RoleOrName = z
  .string()
  .min(1)
  .refine(
    (value) => !value.startsWith('role:') || ['role:caller', 'role:approver', 'role:admin'].includes(value),
    'a role entry must be role:caller, role:approver or role:admin',
  );

/** One policy rule. Every condition given must hold for the rule to match. */
export const PolicyRuleSchema = z.strictObject({
  /** Shown by `sentinel policy test` and recorded on approval requests. Default `rule-<position>`. */
  name: z
    .string()
    .regex(/^[A-Za-z0-9][A-Za-z0-9_.-]*$/, 'must be letters, digits, ".", "_" or "-"')
    .optional(),
  /** Tool names or globs (default: every tool). */
  tool: OneOrMany(z.string().min(1)).optional(),
  /** The tool's registered risk (from `defineTool`, never from MCP annotations). */
  risk: OneOrMany(z.enum(['read', 'write', 'destructive'])).optional(),
  /**
   * Workload kinds (issue 15): matches a call whose `kind` argument (after resolution: a Service
   * resolved to a StatefulSet is a StatefulSet) is one of these; a tool that takes `kind` and is
   * called without it acts on a Deployment. A tool without a `kind` argument never matches.
   */
  kind: OneOrMany(z.enum(['Deployment', 'StatefulSet', 'DaemonSet'])).optional(),
  /** Kubeconfig context name globs (default: every cluster). */
  cluster: OneOrMany(z.string().min(1)).optional(),
  /** Calling identities: names or `role:<role>` (default: everyone). */
  requester: OneOrMany(RoleOrName).optional(),
  /** true: only previews (`dry_run: true` to a tool that supports dry runs); false: only real calls. */
  dry_run: z.boolean().optional(),
  /** Conditions on the parsed arguments (defaults applied), by argument name. */
  args: z.record(z.string(), ArgumentPredicateSchema).optional(),
  decision: DecisionSchema,
  /** Shown to the approver (ask) or to the caller (deny). */
  reason: z.string().trim().min(1).optional(),
  /** Longest grant an approver may give for calls this rule holds (default `once`). */
  validity: GrantValiditySchema.optional(),
  /** Who may decide: identity names and `role:<role>` (default `role:approver`). */
  approvers: z.array(RoleOrName).min(1).optional(),
});
export type PolicyRule = z.infer<typeof PolicyRuleSchema>;

export const PolicySettingsSchema = z.strictObject({
  /** How long a pending approval request waits for a decision, and how long a once grant waits for its retry. */
  request_ttl: DurationSchema.default('30m'),
  /** trust_upstream_approval identities: an identical destructive call inside this window is not executed twice. */
  replay_window: DurationSchema.default('10m'),
  /**
   * Longest window grant any rule may offer and any approver may give (default `1h`). A rule whose
   * `validity.window` is longer does not load; a longer requested window is refused at approval.
   */
  max_window: DurationSchema.default('1h'),
});
export type PolicySettings = z.infer<typeof PolicySettingsSchema>;

export const PolicyFileSchema = z
  .strictObject({
    version: z.literal(1),
    settings: PolicySettingsSchema.default({ request_ttl: '30m', replay_window: '10m', max_window: '1h' }),
    /** Ordered rules; an empty or absent list leaves only the defaults. */
    rules: z
      .array(PolicyRuleSchema)
      .nullish()
      .transform((rules) => rules ?? []),
  })
  .superRefine((file, ctx) => {
    const seen = new Map<string, number>();
    const maxWindow = file.settings.max_window;
    file.rules.forEach((rule, index) => {
      const validity = rule.validity;
      if (
        validity !== undefined &&
        validity !== 'once' &&
        durationMs(validity.window) > durationMs(maxWindow)
      ) {
        ctx.addIssue({
          code: 'custom',
          path: ['rules', index, 'validity', 'window'],
          message: `${validity.window} is longer than settings.max_window (${maxWindow}); shorten the window or raise settings.max_window`,
        });
      }
      if (rule.name === undefined) return;
      const first = seen.get(rule.name);
      if (first !== undefined) {
        ctx.addIssue({
          code: 'custom',
          path: ['rules', index, 'name'],
          message: `duplicates the name of rule ${first + 1}; rule names must be unique`,
        });
      }
      seen.set(rule.name, index);
    });
  });
export type PolicyFile = z.infer<typeof PolicyFileSchema>;
