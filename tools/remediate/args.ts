/**
 * The arguments every remediation tool takes besides its target: `dry_run` and `reason`. Defined
 * once here; the approval gate treats `reason` as free text that is recorded but never matched.
 */
import { z } from 'zod';

/** Longest accepted `reason`, in characters. */
export const MAX_REASON_LENGTH = 500;
/**
 * Longest reason quoted in `kubernetes.io/change-cause`, in characters (a longer one is cut, ending
 * in `…`): the change-cause is a column of `kubectl rollout history`. The whole reason (up to
 * `MAX_REASON_LENGTH`) stays in `sentinel.dev/reason`.
 */
export const CHANGE_CAUSE_REASON_LENGTH = 100;

export const DryRunSchema = z
  .boolean({ error: 'must be true or false' })
  .default(false)
  .describe(
    'true: change nothing and return the preview (resolved call, effect, every change, warnings). Default false.',
  );

export const ReasonSchema = z
  .string({ error: 'must be a string' })
  .trim()
  .min(1, { error: 'must not be empty when given' })
  .max(MAX_REASON_LENGTH, { error: `must be at most ${MAX_REASON_LENGTH} characters` })
  .optional()
  .describe(
    `Why the change is made, in a sentence (at most ${MAX_REASON_LENGTH} characters); recorded on the Deployment ` +
      `(annotation sentinel.dev/reason and, when a new revision results, the change-cause \`kubectl rollout history\` shows, cut there to ${CHANGE_CAUSE_REASON_LENGTH} characters). Optional.`,
  );

/** `dry_run` and `reason`, spread into each remediation tool's `toolInput({...})`. */
export const remediationArgs = {
  dry_run: DryRunSchema,
  reason: ReasonSchema,
};

/** The parsed `dry_run` and `reason` of a call. */
export interface RemediationArgs {
  dry_run: boolean;
  reason?: string | undefined;
}
