/**
 * The policy file's shape (YAML, validated with zod). See `server/gate/default-policy.yaml` for a
 * commented example of every field.
 */
import { z } from 'zod';
import { DurationSchema, GrantValiditySchema } from '../approval-request.ts';

const Scalar = z.union([z.string(), z.number(), z.boolean(), z.null()]);
const OneOrMany = <T extends z.ZodType>(item: T) => z.union([item, z.array(item).min(1)]);

/** A regular expression source that compiles (JavaScript syntax, `u` flag). */
const RegexSource = z.string().refine((source) => {
  try {
    new RegExp(source, 'u');
    return true;
  } catch {
    return false;
  }
}, 'must be a valid regular expression');

/**
 * A condition on one argument. A bare scalar means equality. In the object form every key present
 * must hold:
 * - `equals`: strict equality; `in`: one of a list;
 * - `glob`: string matches a glob (`*`, `?`, `[a-z]`, `{a,b}`; `*` does not stop at `/`), or any of a list;
 * - `regex`: string contains a match (anchor with `^…$` for a full match);
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
      glob: OneOrMany(z.string().min(1)).optional(),
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
});
export type PolicySettings = z.infer<typeof PolicySettingsSchema>;

export const PolicyFileSchema = z
  .strictObject({
    version: z.literal(1),
    settings: PolicySettingsSchema.default({ request_ttl: '30m', replay_window: '10m' }),
    /** Ordered rules; an empty or absent list leaves only the defaults. */
    rules: z
      .array(PolicyRuleSchema)
      .nullish()
      .transform((rules) => rules ?? []),
  })
  .superRefine((file, ctx) => {
    const seen = new Map<string, number>();
    file.rules.forEach((rule, index) => {
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
