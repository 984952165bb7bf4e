/**
 * The typed confirmation a dangerous approval needs on the command line, the same one the approvals
 * page asks for (server/ui/confirmation.ts `confirmationFor`, the pattern of GitHub's repository
 * deletion): the approver types the Deployment's name. On a terminal it is asked for; off one
 * (stdin not a TTY: a script, a pipe) `--confirm <name>` must carry it, so no stray `yes` piped in
 * approves a rollback or a scale to 0. Requests that need no confirmation pass untouched.
 */
import { askTypedConfirmation, quotedAnswer, terminalPrompter } from '../agent/light.ts';
import { SentinelError } from '../core/light.ts';
import type { ApprovalRequest } from '../server/client.ts';

/**
 * Resolves when `request` may be approved: it needs no confirmation, `confirm` (the `--confirm`
 * value) is its expected text, or — with no `--confirm` and stdin a terminal — the approver typed
 * it at the question written to stderr (agent/typed-confirmation.ts, the question the local
 * investigator asks too). A request no longer pending passes (the server refuses it). Throws
 * `invalid_input` (field `--confirm`, exit 2) saying what to type and what approving does; nothing
 * has been approved then.
 */
export async function confirmDangerousApproval(
  request: ApprovalRequest,
  confirm: string | undefined,
  input: NodeJS.ReadStream = process.stdin,
): Promise<void> {
  const { confirmationFor } = await import('../server/client.ts');
  // Decided already: approving cannot work, and the server says why better than a question would.
  const confirmation = request.status === 'pending' ? confirmationFor(request) : undefined;
  if (!confirmation) return;
  const { expected, effect } = confirmation;
  const refuse = (why: string) =>
    new SentinelError('invalid_input', `${why}: nothing was approved. ${effect}`, { field: '--confirm' });
  if (confirm !== undefined) {
    if (confirm.trim() === expected) return;
    throw refuse(`--confirm ${quotedAnswer(confirm)} is not '${expected}'`);
  }
  if (input.isTTY !== true) {
    throw new SentinelError(
      'invalid_input',
      `Approval request ${request.id} is dangerous and stdin is not a terminal to ask on: add --confirm ${expected} (the Deployment's name) to approve it. ${effect}`,
      { field: '--confirm' },
    );
  }
  const prompter = terminalPrompter(input, process.stderr);
  try {
    const answer = await askTypedConfirmation(prompter, request.id, confirmation);
    if (answer.kind === 'ended') throw refuse('No name typed (input ended)');
    if (answer.kind === 'wrong') throw refuse(`${quotedAnswer(answer.answer)} is not '${expected}'`);
  } finally {
    prompter.close();
  }
}
