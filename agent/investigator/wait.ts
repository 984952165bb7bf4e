/**
 * Waiting for a human's decision on an approval request: a client-side loop that polls
 * `GET /approvals/{id}` (never a blocking tool call). When the user at the terminal can approve, it
 * shows the rendered request and asks y/N — for a dangerous request (a destructive tool, a scale to
 * 0) the Deployment's name typed instead, as `sentinel approvals approve` and the approvals page ask
 * (agent/typed-confirmation.ts) — or approves at once with `--yes` (a dangerous request only with
 * `--confirm <name>`, as `approvals approve --confirm` off a terminal), deciding through the
 * approvals API with the user's token; otherwise it shows the request id and waits for a decision
 * made elsewhere (approvals page, `sentinel approvals`), with a spinner on stderr when it is a
 * terminal (a plain line otherwise).
 */
import { setTimeout as sleep } from 'node:timers/promises';
import yoctoSpinner from 'yocto-spinner';
import { oneLine } from '../../tools/index.ts';
import { SentinelError, sentinelCommand } from '../../core/index.ts';
import {
  type ApprovalRequest,
  type ApprovalsClient,
  confirmationFor,
  renderApprovalText,
} from '../../server/index.ts';
import { unguarded } from '../terminal-guard.ts';
import { askTypedApproval, confirmedBy, notConfirmedBy } from '../typed-confirmation.ts';
import { colorsEnabled, palette } from '../colors.ts';
import type { ApprovalPrompter } from '../harness/prompter.ts';

/** How the human decides. */
export type DecisionMode =
  /**
   * Approve at once (`--yes`, scripted runs). A dangerous request only when `confirm` (`--confirm`)
   * names its Deployment, or `simulated` (the demo's and eval's embedded simulator, where nothing
   * real can change); otherwise nothing is approved and the wait throws `invalid_input`.
   */
  | { kind: 'auto-approve'; confirm?: readonly string[]; simulated?: boolean }
  /** Ask y/N at the terminal. */
  | { kind: 'prompt'; prompter: ApprovalPrompter }
  /** Someone decides elsewhere; just wait. */
  | { kind: 'wait' };

export interface WaitOptions {
  /** The approvals API with the human's token (reading works with any valid token). */
  /** The part of the approvals API client the investigator uses. */
  approvals: Pick<ApprovalsClient, 'get' | 'approve' | 'deny'>;
  mode: DecisionMode;
  /** Where progress goes (stderr). */
  progress: NodeJS.WritableStream;
  /** Milliseconds between polls (default 1000). */
  pollMs?: number;
  /** Stops waiting (the request stays pending on the server). */
  signal?: AbortSignal;
  /** How a human approves request `id` elsewhere (page URL, command, where the token is); printed before waiting. */
  howToApprove?: (id: string) => string;
  /** The server's base URL, named when it stops answering while the request is watched. */
  serverUrl?: string;
  /** The investigation waiting (`inv_…`): the resume command printed when the server is lost names it. */
  investigationId?: string;
  now?: () => Date;
}

/** Reason recorded when the user answers "no" without typing one. */
export const DEFAULT_DENY_REASON = 'Declined at the terminal by the on-call engineer.';

/**
 * Waits until request `id` is no longer pending and returns it as it then is (`approved`, `denied`,
 * `expired`, `withdrawn`, or already `executing`/`executed`). Throws `SentinelError`: `timeout` when
 * `signal` aborts; the approvals API's errors for reads.
 */
export async function waitForDecision(id: string, options: WaitOptions): Promise<ApprovalRequest> {
  const { approvals, progress } = options;
  const pollMs = options.pollMs ?? 1000;
  const now = options.now ?? (() => new Date());
  let request = await approvals.get(id);
  if (request.status !== 'pending') return request;

  const decided = await decideHere(request, options);
  if (decided) return decided;

  if (options.howToApprove) progress.write(`${options.howToApprove(id)}\n`);
  const spinner = waitingIndicator(
    progress,
    `Waiting for a decision on approval request ${id} (Ctrl-C stops waiting, the request stays pending)`,
  );
  const watch = { lost: false };
  try {
    while (request.status === 'pending') {
      if (Date.parse(request.expires_at) <= now().getTime()) {
        // The server's sweep marks it expired; until then, it can no longer be approved anyway.
        request = { ...request, status: 'expired' };
        break;
      }
      try {
        await sleep(pollMs, undefined, { signal: options.signal });
      } catch {
        throw new SentinelError(
          'timeout',
          `Stopped waiting for approval request ${id}; it is still pending. Resume the investigation to keep waiting.`,
        );
      }
      request = (await watchedRead(id, options, watch)) ?? request;
    }
  } finally {
    spinner.stop(`Approval request ${id}: ${request.status}`);
  }
  return request;
}

/**
 * A spinner with `text` on a terminal; on a file or a pipe (`2>file`, CI logs) `text` as a plain
 * line, since the spinner would write colour codes and frames there. `stop` ends it with `finalText`
 * on its own line either way. With colours off (agent/colors.ts rules) the plain line too.
 */
function waitingIndicator(
  stream: NodeJS.WritableStream,
  text: string,
): { stop: (finalText: string) => void } {
  // Colours off (NO_COLOR, FORCE_COLOR=0, --no-color): the spinner would still colour its frames.
  if (
    (stream as Partial<NodeJS.WriteStream>).isTTY !== true ||
    !colorsEnabled(stream as Partial<NodeJS.WriteStream>)
  ) {
    stream.write(`${text}\n`);
    return { stop: (finalText) => void stream.write(`${finalText}\n`) };
  }
  // The spinner writes its own control codes past the terminal guard, so its text is sanitized here.
  const spinner = yoctoSpinner({
    text: oneLine(text, Number.MAX_SAFE_INTEGER),
    stream: unguarded(stream) as NodeJS.WriteStream,
    handleSignals: false,
  }).start();
  return { stop: (finalText) => void spinner.stop(oneLine(finalText, Number.MAX_SAFE_INTEGER)) };
}

/**
 * Decides at the terminal when the mode allows it; returns the decided request, or undefined when
 * the decision must come from elsewhere (no answer, or the user's token may not decide).
 */
async function decideHere(
  request: ApprovalRequest,
  options: WaitOptions,
): Promise<ApprovalRequest | undefined> {
  const { approvals, progress, mode } = options;
  const p = palette(progress);
  const style = { status: p.status, warning: p.warn, heading: (text: string) => p.paint('bold', text) };
  progress.write(`${renderApprovalText(request, { style })}\n`);
  if (mode.kind === 'wait') return undefined;
  try {
    if (mode.kind === 'auto-approve') {
      refuseUnconfirmed(request, mode, options.investigationId);
      progress.write('Approving (--yes).\n');
      return await approvals.approve(request.id);
    }
    // The question stands only while the request is pending: a decision on the page or with
    // `sentinel approvals` withdraws it, and the investigation goes on with that decision.
    const withdraw = new AbortController();
    const interrupted = () => withdraw.abort();
    options.signal?.addEventListener('abort', interrupted, { once: true });
    // A question pushed out of sight by "server lost … is back" is asked again below those lines.
    const elsewhere = decidedElsewhere(request.id, options, withdraw.signal, () => mode.prompter.repeat?.());
    const answer = await Promise.race([
      askApproval(request, mode.prompter, progress, withdraw.signal, p.paint('bold', 'Approve this call?')),
      elsewhere,
    ]);
    withdraw.abort();
    options.signal?.removeEventListener('abort', interrupted);
    if (options.signal?.aborted) throw stoppedWaiting(request.id);
    if (typeof answer === 'object') {
      progress.write(`${decisionLine(answer)}\n`);
      return answer;
    }
    if (answer === undefined) return undefined;
    if (answer) return await approvals.approve(request.id);
    // Ctrl-C here stops as at the y/N question: the request stays pending, nothing is denied.
    const reason = (
      await mode.prompter.ask('Reason for declining (Enter for none): ', {
        ...(options.signal && { signal: options.signal }),
      })
    )?.trim();
    if (options.signal?.aborted) throw stoppedWaiting(request.id);
    return await approvals.deny(request.id, reason || DEFAULT_DENY_REASON);
  } catch (error) {
    // Someone else decided first, or this token may not decide: fall back to watching the request.
    if (
      error instanceof SentinelError &&
      ['forbidden', 'conflict', 'unauthorized', 'approval_expired'].includes(error.code)
    ) {
      const now = await approvals.get(request.id).catch(() => undefined);
      if (now && now.status !== 'pending' && now.decision) {
        progress.write(`${decisionLine(now)}\n`);
        return now;
      }
      progress.write(`Cannot decide here: ${error.message}\n`);
      return undefined;
    }
    throw error;
  }
}

/**
 * Throws `invalid_input` (field `--confirm`, exit 2) when `--yes` meets a dangerous request whose
 * Deployment `--confirm` does not name (and the cluster is not the embedded simulator): `--yes`
 * alone is the blind "y" a typed name exists to stop. Nothing is approved; the request stays pending.
 */
function refuseUnconfirmed(
  request: ApprovalRequest,
  mode: { confirm?: readonly string[]; simulated?: boolean },
  investigationId: string | undefined,
): void {
  const confirmation = confirmationFor(request);
  if (!confirmation || mode.simulated) return;
  if (confirmedBy(mode.confirm, confirmation)) return;
  const { expected, effect } = confirmation;
  const given = notConfirmedBy(mode.confirm);
  throw new SentinelError(
    'invalid_input',
    `Approval request ${request.id} is dangerous: --yes approves it only with --confirm ${expected} (the Deployment's name)${given}, as \`${sentinelCommand()} approvals approve --confirm\` needs. Nothing was approved; it stays pending${investigationId ? `: resume with \`${sentinelCommand()} investigate --resume ${investigationId} --yes --confirm ${expected}\`` : ''}. ${effect}`,
    { field: '--confirm' },
  );
}

/**
 * The question at the terminal: y/N, or for a dangerous request the Deployment's name typed
 * (Enter or n declines; a wrong name is said and asked again). True approves, false declines,
 * undefined when input ended or `signal` withdrew the question.
 */
async function askApproval(
  request: ApprovalRequest,
  prompter: ApprovalPrompter,
  progress: NodeJS.WritableStream,
  signal: AbortSignal,
  question: string,
): Promise<boolean | undefined> {
  const confirmation = confirmationFor(request);
  if (!confirmation) return prompter.confirm(question, { signal });
  return askTypedApproval(prompter, request.id, confirmation, {
    signal,
    say: (line) => progress.write(`${line}\n`),
  });
}

/** The interrupted wait (Ctrl-C, SIGTERM, a closed output): `timeout`, the request still pending. */
function stoppedWaiting(id: string): SentinelError {
  return new SentinelError(
    'timeout',
    `Stopped waiting for approval request ${id}; it is still pending. Resume the investigation to keep waiting.`,
  );
}

/** "Approved elsewhere by alice" / "Denied elsewhere by bob: <reason>" (or the status). */
export function decisionLine(request: ApprovalRequest): string {
  const { decision } = request;
  if (!decision) return `Approval request ${request.id} is now ${request.status}.`;
  return decision.decision === 'allow'
    ? `Approved elsewhere by ${decision.by} (approvals page or \`${sentinelCommand()} approvals\`); the prompt is withdrawn.`
    : `Denied elsewhere by ${decision.by}: ${decision.reason ?? '(no reason)'}; the prompt is withdrawn.`;
}

/**
 * Polls request `id` while the terminal asks, and resolves with it once it is no longer pending
 * (decided on the page, with `sentinel approvals`, expired); never resolves once `signal` aborts.
 * `onBack` runs when the server answers again after it was lost (to ask the question again).
 */
async function decidedElsewhere(
  id: string,
  options: WaitOptions,
  signal: AbortSignal,
  onBack: () => void,
): Promise<ApprovalRequest> {
  const pollMs = options.pollMs ?? 1000;
  const watch = { lost: false, onBack };
  for (;;) {
    try {
      await sleep(pollMs, undefined, { signal });
    } catch {
      return new Promise<never>(() => {});
    }
    const request = await watchedRead(id, options, watch);
    if (signal.aborted) return new Promise<never>(() => {});
    if (request && request.status !== 'pending') return request;
  }
}

/**
 * One read of request `id` while watching it. When the server stops answering (`unavailable`, e.g.
 * `sentinel serve` was killed) it says so once — the request stays pending on the server — and
 * returns undefined until the server answers again, which it says too (then calls `watch.onBack`);
 * other errors are thrown.
 */
async function watchedRead(
  id: string,
  options: WaitOptions,
  watch: { lost: boolean; onBack?: () => void },
): Promise<ApprovalRequest | undefined> {
  const where = options.serverUrl ? ` at ${options.serverUrl}` : '';
  try {
    const request = await options.approvals.get(id);
    if (watch.lost) {
      watch.lost = false;
      options.progress.write(`The Sentinel server${where} is back; still watching approval request ${id}.\n`);
      watch.onBack?.();
    }
    return request;
  } catch (error) {
    if (!(error instanceof SentinelError) || error.code !== 'unavailable') throw error;
    if (!watch.lost) {
      watch.lost = true;
      const resume = options.investigationId
        ? `resume with \`${sentinelCommand()} investigate --resume ${options.investigationId}\``
        : 'resume the investigation';
      options.progress.write(
        `Lost the Sentinel server${where}; approval request ${id} stays pending there — waiting for the server to come back (or Ctrl-C, then ${resume}).\n`,
      );
    }
    return undefined;
  }
}
