/**
 * The typed confirmation a dangerous approval needs at a terminal: the approver types the
 * Deployment's name (what `confirmationFor` in server/ui/confirmation.ts expects, the rule the
 * approvals page and its router enforce). One question for every place a human approves at a
 * terminal — `sentinel approvals approve`, the local investigator's (`investigate`, `demo`) and
 * harness mode's (`investigate --harness`) approval prompts — so a reflex "y" never approves a
 * rollback anywhere.
 */
import { sanitizeText } from '../tools/light.ts';
import type { ApprovalPrompter, PromptOptions } from './harness/prompter.ts';

/** What a dangerous approval needs typed (server/ui/confirmation.ts `Confirmation`). */
export interface TypedConfirmation {
  /** The text to type: the Deployment's name, else the request id. */
  expected: string;
  /** What approving does, one sentence. */
  effect: string;
}

/**
 * The answer to the typed question: `typed` (exactly the expected text, trimmed), `declined` (with
 * `declinable`: Enter, n or no), `wrong` (anything else, its text given), or `ended` (input ended
 * or the question was withdrawn: nothing typed).
 */
export type TypedAnswer =
  { kind: 'typed' } | { kind: 'declined' } | { kind: 'wrong'; answer: string } | { kind: 'ended' };

/** Untrusted text (typed, pasted, given as an option) quoted for a message: escapes shown, not obeyed. */
export const quotedAnswer = (text: string) => `'${sanitizeText(text)}'`;

/** Whether one of `names` (`--confirm` values, trimmed) is the text `confirmation` expects. */
export function confirmedBy(names: readonly string[] | undefined, confirmation: TypedConfirmation): boolean {
  return names?.some((name) => name.trim() === confirmation.expected) ?? false;
}

/** " (--confirm 'a', 'b' is not it)" for the `--confirm` names given, '' for none. */
export function notConfirmedBy(names: readonly string[] | undefined): string {
  return names?.length ? ` (--confirm ${names.map(quotedAnswer).join(', ')} is not it)` : '';
}

/**
 * Whether `question` is the one `askTypedConfirmation` asks (for a prompter that answers without a
 * human, e.g. the demo's declining one, to tell it from a free-text question such as a reason).
 */
export function isTypedConfirmationQuestion(question: string): boolean {
  return /Type '[^\n]*' to approve \S+( \(Enter or n declines\))?: $/.test(question);
}

/**
 * Asks, through `prompter`, for `confirmation.expected` to approve request `id`, after the effect.
 * With `declinable`, Enter/n/no declines (unless the expected text is itself that word). Resolves
 * with the answer as `TypedAnswer`; never throws for an answer.
 */
export async function askTypedConfirmation(
  prompter: Pick<ApprovalPrompter, 'ask'>,
  id: string,
  confirmation: TypedConfirmation,
  options: PromptOptions & { declinable?: boolean } = {},
): Promise<TypedAnswer> {
  const { expected, effect } = confirmation;
  const decline = options.declinable ? ' (Enter or n declines)' : '';
  const answer = await prompter.ask(
    `${effect}\nType '${expected}' to approve ${id}${decline}: `,
    options.signal ? { signal: options.signal } : {},
  );
  if (answer === undefined) return { kind: 'ended' };
  const word = answer.trim();
  if (word === expected) return { kind: 'typed' };
  if (options.declinable && ['', 'n', 'no'].includes(word.toLowerCase())) return { kind: 'declined' };
  return { kind: 'wrong', answer };
}

/**
 * The whole typed question of a dangerous approval, as every terminal that can decide asks it (the
 * local investigator, harness mode): asks `confirmation.expected` for request `id` until it is
 * typed (true) or declined with Enter, n or no (false); a wrong name is said through `say` and
 * asked again. Undefined when input ended (said) or `signal` withdrew the question (not said: the
 * withdrawer says why). `say` gets one line at a time, without its newline.
 */
export async function askTypedApproval(
  prompter: Pick<ApprovalPrompter, 'ask'>,
  id: string,
  confirmation: TypedConfirmation,
  options: PromptOptions & { say: (line: string) => void },
): Promise<boolean | undefined> {
  const { signal, say } = options;
  for (;;) {
    const answer = await askTypedConfirmation(prompter, id, confirmation, {
      ...(signal && { signal }),
      declinable: true,
    });
    if (answer.kind === 'typed') return true;
    if (answer.kind === 'declined') return false;
    if (answer.kind === 'ended') {
      if (!signal?.aborted) say('\nNo name typed (input ended): nothing was approved.');
      return undefined;
    }
    say(
      `${quotedAnswer(answer.answer.trim())} is not '${confirmation.expected}': nothing was approved. Type it exactly, or Enter to decline.`,
    );
  }
}
