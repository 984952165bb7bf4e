/**
 * Decides every pending call of a paused turn with the human, then builds the one turn that sends
 * the decisions back.
 *
 * Order matters: all questions are asked first; then, for each "yes" to a Sentinel tool call, the
 * server-side grant for that exact call is created and approved with the human's token (carrying the
 * harness tool call as `client_ref`: one decision per call), and for each "no" the denial is recorded
 * at the server; only then is the approval turn built. A grant the server refuses turns that "yes" into a deny whose reason says
 * why, so the harness never runs a call the server would hold, and every pending call is still
 * resolved in one batch (a live harness rejects partial batches with 422).
 *
 * A dangerous Sentinel call (a destructive tool, a scale to 0: `confirmationFor`, the approvals
 * page's rule) is asked as the local investigator asks it: the Deployment's name typed, not y/N;
 * `--yes` approves one only when `--confirm` names it, else nothing of the batch is granted or sent
 * and `invalid_input` is thrown. The risk is the Sentinel server's (the request it holds, else its
 * tools/list), never the model's; when the server cannot say, the call is taken as dangerous.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import { SentinelError, sentinelCommand, toSentinelError } from '../../core/index.ts';
import { confirmationFor, type Confirmation } from '../../server/index.ts';
import { askTypedApproval, confirmedBy, notConfirmedBy } from '../typed-confirmation.ts';
import type { LedgerEntry, SessionLedger } from './ledger.ts';
import type { PendingCall } from './pending.ts';
import type { ApprovalPrompter } from './prompter.ts';
import { callFacts, previewSummary, type PendingCallRenderer } from './render.ts';
import type { ApprovalDecision, CreateTurnRequest } from '../../trueforge/index.ts';
import type { ClientRef, HeldCall, PreviewLike, ServerAnswer, ServerGrantClient } from './server-grants.ts';

/** Reason sent with a "no" when the human gives none (the model sees it). */
export const DEFAULT_DENY_REASON = 'The on-call engineer declined this call.';

export interface DecisionOptions {
  grants: ServerGrantClient;
  renderer: PendingCallRenderer;
  prompter: ApprovalPrompter;
  /**
   * Approve every call without asking (`--yes`, for scripted runs); a dangerous Sentinel call only
   * when `confirm` names its Deployment.
   */
  autoApprove: boolean;
  /** With `autoApprove` (`--confirm`, repeatable): the Deployments a dangerous call may be approved for. */
  confirm?: readonly string[] | undefined;
  /**
   * The command that continues this session (`sentinel investigate --harness <url> --resume-session
   * <id>`), named when `--yes` refuses a dangerous call.
   */
  resumeCommand?: string | undefined;
  /** Name of Sentinel's MCP connector in the harness; calls to it need a server-side grant. */
  connectorName: string;
  /** Progress and questions' context, one line at a time (stderr). */
  log: (line: string) => void;
  /** The harness reference of a pending call (sent as `client_ref`, shown in the prompt). */
  refOf?: (call: PendingCall) => ClientRef;
  /** The session's ledger: decisions already made are not asked again, new ones are recorded. */
  ledger?: SessionLedger | undefined;
  /** Clock for "N min ago". Default: now. */
  now?: () => Date;
  /** Milliseconds between reads of a held request while the terminal asks. Default 1000. */
  pollMs?: number;
}

/** The decision on one pending call. */
export interface Decision {
  call: PendingCall;
  /** The rendered question the human answered. */
  question: string;
  approval: ApprovalDecision;
  /** Id of the approved server-side request, for an allowed Sentinel call. */
  grantId?: string | undefined;
  /** Id of the server-side request recording a denial. */
  deniedId?: string | undefined;
  /** The call was decided before (ledger or server) and not asked again. */
  earlier?: boolean | undefined;
}

/** A decision made before this prompt: from the ledger, or the server's answer for the call. */
interface Known {
  decision: 'allow' | 'deny';
  requestId: string | null;
  by: string;
  at: string;
  reason: string | null;
}

/**
 * Asks about each call not decided before (rendered with its dry-run preview), then, for the new
 * answers, creates the server-side grant for each approved Sentinel call and records each declined
 * one at the server (with the reason, before the harness hears "deny"), and writes every decision to
 * the ledger. A call the ledger or the server (by `client_ref`) already has a decision for is shown
 * as "already approved by alice 12 min ago (request apr_…)" and that decision is sent again.
 * Returns undefined, having granted nothing, when input ends before every call is answered (the
 * calls stay pending in the harness). Throws `SentinelError('invalid_input')` (field `--confirm`),
 * having granted and recorded nothing, when `autoApprove` meets a dangerous Sentinel call whose
 * Deployment `confirm` does not name.
 */
export async function decidePendingCalls(
  calls: readonly PendingCall[],
  options: DecisionOptions,
): Promise<Decision[] | undefined> {
  const { log } = options;
  const now = options.now ?? (() => new Date());
  log(`The agent is waiting for approval of ${calls.length} call${calls.length === 1 ? '' : 's'}.`);
  const answers: {
    call: PendingCall;
    question: string;
    ref?: ClientRef | undefined;
    preview?: PreviewLike | undefined;
    deny?: string;
    known?: Known;
    ended?: HeldCall;
  }[] = [];
  /** `--yes`: the dangerous calls `--confirm` does not name, and the names it confirmed. */
  const unconfirmed: ({ call: PendingCall } & Dangerous)[] = [];
  const confirmed: string[] = [];
  for (const call of calls) {
    const ref = options.refOf?.(call);
    const known = await knownDecision(call, ref, options);
    const { preview, note } = known ? {} : await previewOf(call, options);
    const { question, details } = options.renderer.render(call, preview);
    log('');
    log(`${call.threadId === 'main' ? '' : `[${call.threadId}] `}${question}`);
    for (const line of [...(note ? [note] : details), ...callFacts(call, preview, ref)]) log(`    ${line}`);
    if (known) {
      log(`  ${describeKnown(known, now())}; not asked again`);
      answers.push({ call, question, ref, known });
      continue;
    }
    if (options.autoApprove) {
      // Nothing is put up for the page: the server's tools/list says what needs --confirm.
      const dangerous = await dangerOf(call, undefined, preview, options);
      if (dangerous && !confirmedBy(options.confirm, dangerous.confirmation)) {
        log(`  not approved: --yes needs --confirm ${dangerous.confirmation.expected} for this call`);
        unconfirmed.push({ call, ...dangerous });
        continue;
      }
      if (dangerous) confirmed.push(dangerous.confirmation.expected);
      log(`  approved (--yes${dangerous ? ` --confirm ${dangerous.confirmation.expected}` : ''})`);
      answers.push({ call, question, ref, preview });
      continue;
    }
    const held = await holdOnServer(call, ref, options);
    const ended = held && held.status !== 'pending' ? held : undefined;
    const dangerous = ended ? undefined : await dangerOf(call, held, preview, options);
    const ask = (signal?: AbortSignal) =>
      dangerous
        ? askTypedApproval(options.prompter, dangerous.id, dangerous.confirmation, {
            ...(signal && { signal }),
            say: log,
          })
        : options.prompter.confirm('Allow?', signal ? { signal } : {});
    const answer = held?.status === 'pending' ? await confirmWhileHeld(held, ask, options) : undefined;
    const elsewhere = ended ?? answer?.elsewhere;
    if (elsewhere) {
      log(`  ${describeEnded(elsewhere)}`);
      answers.push({ call, question, ref, ended: elsewhere });
      continue;
    }
    const allow = answer ? answer.allow : await ask();
    if (allow === undefined) return undefined;
    if (allow) {
      answers.push({ call, question, ref, preview });
      continue;
    }
    const reason = await options.prompter.ask('Reason, shown to the agent (optional): ');
    answers.push({ call, question, ref, deny: reason?.trim() || DEFAULT_DENY_REASON });
  }
  // Every answer is in before any grant: one refused call leaves the whole batch untouched.
  if (unconfirmed.length > 0) throw unconfirmedError(unconfirmed, confirmed, calls.length, options);
  const decisions: Decision[] = [];
  const ledgered: Record<string, LedgerEntry> = {};
  for (const { call, question, ref, preview, deny, known, ended } of answers) {
    const decided = known
      ? fromKnown(known)
      : ended
        ? fromEnded(ended)
        : deny === undefined
          ? await grant(call, preview, ref, options)
          : await decline(call, deny, ref, options);
    decisions.push({ call, question, ...decided });
    if (!known && ref) {
      ledgered[call.toolCallId] = {
        decision: decided.approval.status,
        request_id: decided.grantId ?? decided.deniedId ?? null,
        decided_by: decided.by ?? 'you',
        at: decided.at ?? now().toISOString(),
        turn_id: ref.turn_id,
        tool: call.toolName,
        reason: decided.approval.status === 'deny' ? (decided.approval.reason ?? null) : null,
      };
    }
  }
  if (Object.keys(ledgered).length > 0) options.ledger?.record(ledgered);
  return decisions;
}

/**
 * Puts a Sentinel call up for a decision at the server while the terminal asks, so an approver can
 * decide it on the page (or with `approvals approve|deny`) too; says where. Undefined — the terminal
 * alone decides — for other calls, when the policy needs no approval, or when the server refuses
 * (said, not fatal: the terminal's answer still goes through `preapprove`/`recordDenial`).
 */
async function holdOnServer(
  call: PendingCall,
  ref: ClientRef | undefined,
  { grants, connectorName, log }: DecisionOptions,
): Promise<HeldCall | undefined> {
  if (!ref || !call.arguments || !isSentinelCall(call, connectorName)) return undefined;
  try {
    const held = await grants.hold({ tool: call.toolName, arguments: call.arguments }, ref);
    if (held?.status === 'pending') {
      log(
        `  also waiting on the approvals page (${held.pageUrl}) as approval request ${held.id}; a decision there answers this prompt`,
      );
    }
    return held;
  } catch (error) {
    log(`  (not put up on the approvals page: ${toSentinelError(error).message})`);
    return undefined;
  }
}

/**
 * Asks (`ask`: y/N, or the typed name) while watching the held request: the terminal's answer
 * (`allow`, undefined when input ended), or the request once it is no longer pending (`elsewhere`:
 * decided on the page or with `approvals`, expired, cancelled) — then the question is withdrawn and
 * a line typed late answers nothing.
 */
async function confirmWhileHeld(
  held: HeldCall,
  ask: (signal: AbortSignal) => Promise<boolean | undefined>,
  options: DecisionOptions,
): Promise<{ allow?: boolean | undefined; elsewhere?: HeldCall }> {
  const withdraw = new AbortController();
  const asking = ask(withdraw.signal);
  const answer = await Promise.race([
    asking.then((allow) => ({ allow })),
    watchHeld(held.id, options, withdraw.signal).then((elsewhere) => ({ elsewhere })),
  ]);
  withdraw.abort();
  // The withdrawn question ends its line before anything else is said.
  await asking;
  return answer;
}

/** Polls request `id` until it is no longer pending; never settles once `signal` aborts. */
async function watchHeld(id: string, options: DecisionOptions, signal: AbortSignal): Promise<HeldCall> {
  const never = new Promise<never>(() => {});
  for (;;) {
    try {
      await sleep(options.pollMs ?? 1000, undefined, { signal });
    } catch {
      return never;
    }
    // A failed read (server restarting) is not a decision: keep asking and watching.
    const now = await options.grants.held(id).catch(() => undefined);
    if (signal.aborted) return never;
    if (now && now.status !== 'pending') return now;
  }
}

/** "approved on the page by alice …" / "denied by bob: reason …" / "… expired without a decision …". */
function describeEnded(held: HeldCall): string {
  const { answer } = held;
  const request = `approval request ${held.id}`;
  if (!answer) {
    return `${request} is ${held.status} without a decision; the prompt is withdrawn and the agent is told the call was not approved`;
  }
  return answer.decision === 'allow'
    ? `approved on the page by ${answer.by} (${request}); the prompt is withdrawn`
    : `denied by ${answer.by}: ${answer.reason ?? 'no reason given'} (${request}); the prompt is withdrawn`;
}

/** The decision a held request ended with, as sent to the harness (no decision: a deny saying why). */
function fromEnded(held: HeldCall): Decided {
  const { answer } = held;
  if (!answer) {
    return {
      approval: {
        status: 'deny',
        reason: `Not approved: approval request ${held.id} is ${held.status} without a decision; nothing ran. Propose the call again if it is still needed.`,
      },
    };
  }
  return answer.decision === 'allow'
    ? { approval: { status: 'allow' }, grantId: held.id, by: answer.by, at: answer.at }
    : {
        approval: { status: 'deny', reason: answer.reason ?? DEFAULT_DENY_REASON },
        deniedId: held.id,
        by: answer.by,
        at: answer.at,
      };
}

/** "already approved by alice 12 min ago (request apr_…)" / "already declined by …: reason". */
function describeKnown(known: Known, now: Date): string {
  const minutes = Math.max(0, Math.round((now.getTime() - Date.parse(known.at)) / 60_000));
  const verb = known.decision === 'allow' ? 'approved' : 'declined';
  const request = known.requestId ? ` (request ${known.requestId})` : '';
  const why = known.decision === 'deny' && known.reason ? `: ${known.reason}` : '';
  return `already ${verb} by ${known.by} ${minutes} min ago${request}${why}`;
}

/** The decision recorded for the call: the ledger first, else the server's answer for its ref. */
async function knownDecision(
  call: PendingCall,
  ref: ClientRef | undefined,
  options: DecisionOptions,
): Promise<Known | undefined> {
  const entry = options.ledger?.get(call.toolCallId);
  if (entry) {
    return {
      decision: entry.decision,
      requestId: entry.request_id,
      by: entry.decided_by,
      at: entry.at,
      reason: entry.reason,
    };
  }
  if (!ref || !isSentinelCall(call, options.connectorName)) return undefined;
  try {
    const answer = await options.grants.answerFor(ref);
    return answer && knownOf(answer);
  } catch (error) {
    options.log(
      `  (could not ask the Sentinel server about earlier decisions: ${toSentinelError(error).message})`,
    );
    return undefined;
  }
}

function knownOf(answer: ServerAnswer): Known {
  return {
    decision: answer.decision,
    requestId: answer.id,
    by: answer.by,
    at: answer.at,
    reason: answer.reason,
  };
}

type Decided = Pick<Decision, 'approval' | 'grantId' | 'deniedId' | 'earlier'> & { by?: string; at?: string };

function fromKnown(known: Known): Decided {
  return known.decision === 'allow'
    ? { approval: { status: 'allow' }, grantId: known.requestId ?? undefined, earlier: true }
    : {
        approval: { status: 'deny', reason: known.reason ?? DEFAULT_DENY_REASON },
        deniedId: known.requestId ?? undefined,
        earlier: true,
      };
}

/** What a dangerous call needs typed, and the id its question names (the held request, else the call). */
interface Dangerous {
  id: string;
  confirmation: Confirmation;
}

/**
 * Whether approving `call` needs its Deployment's name, by `confirmationFor` (the approvals page's
 * rule) over what the Sentinel server says: the request it holds for the call, else the tool's risk
 * in its tools/list. Fails closed: a server that cannot be asked, or publishes no risk for the tool,
 * makes the call dangerous (said). Undefined for calls not to Sentinel, or whose arguments are not
 * an object (the server cannot grant those: they are denied).
 */
async function dangerOf(
  call: PendingCall,
  held: HeldCall | undefined,
  preview: PreviewLike | undefined,
  { grants, connectorName, log }: DecisionOptions,
): Promise<Dangerous | undefined> {
  if (!isSentinelCall(call, connectorName) || !call.arguments) return undefined;
  if (held) return held.confirmation && { id: held.id, confirmation: held.confirmation };
  const risk = await grants.risk(call.toolName).then(
    (risk) => {
      if (!risk) log(`  (the Sentinel server publishes no risk for ${call.toolName}: taken as dangerous)`);
      return risk;
    },
    (error: unknown) => {
      log(
        `  (could not learn the risk of ${call.toolName} from the Sentinel server (${toSentinelError(error).message}): taken as dangerous)`,
      );
      return undefined;
    },
  );
  const confirmation = confirmationFor({
    id: call.toolCallId,
    tool: call.toolName,
    risk: risk ?? 'destructive',
    arguments: call.arguments,
    preview: previewSummary(preview),
  });
  return confirmation && { id: call.toolCallId, confirmation };
}

/**
 * `invalid_input` (field `--confirm`, exit 2) for `--yes` meeting dangerous calls `--confirm` does
 * not name, as the local investigator's `--yes` refuses one: `--yes` alone is the blind "y" a typed
 * name exists to stop. Says each call, its effect, and the command that resumes with the names
 * (`confirmed`: those `--confirm` already gave for other calls of the batch).
 */
function unconfirmedError(
  unconfirmed: readonly ({ call: PendingCall } & Dangerous)[],
  confirmed: readonly string[],
  pending: number,
  { confirm, resumeCommand }: DecisionOptions,
): SentinelError {
  const given = notConfirmedBy(confirm);
  const refusals = unconfirmed.map(
    ({ call, confirmation: { expected, effect } }) =>
      `Tool call ${call.toolCallId} (${call.toolName}) is dangerous: --yes approves it only with --confirm ${expected} (the Deployment's name)${given}, as \`${sentinelCommand()} approvals approve --confirm\` needs. ${effect}`,
  );
  const names = [...new Set([...confirmed, ...unconfirmed.map(({ confirmation }) => confirmation.expected)])];
  const resume = resumeCommand
    ? `: resume with \`${resumeCommand} --yes ${names.map((name) => `--confirm ${shellWord(name)}`).join(' ')}\``
    : '';
  return new SentinelError(
    'invalid_input',
    `${refusals.join(' ')} Nothing was approved or sent to the harness; the ${pending === 1 ? 'call stays' : `${pending} pending calls stay`} pending${resume}.`,
    { field: '--confirm' },
  );
}

/**
 * `text` as one shell word, for a command the engineer may paste: the name comes from the model's
 * arguments, so anything but a plain name (`checkout`, `web-1.v2`) is single-quoted.
 */
function shellWord(text: string): string {
  return /^[\w.-]+$/.test(text) ? text : `'${text.replaceAll("'", "'\\''")}'`;
}

/**
 * The turn that resolves every pending call at once: only `user.tool_approval` items, chained to the
 * session's last turn (`previous_turn_id: "auto"`). Never the paused turn's id: naming a turn that
 * was already answered (by another process, the harness UI) makes the harness replay it and send
 * its calls again (OBSERVED.md, defect 1); chained to the last turn, a second answer is refused
 * (422) and the first one stands.
 */
export function approvalTurn(decisions: readonly Decision[]): CreateTurnRequest {
  return {
    input: decisions.map(({ call, approval }) => ({
      type: 'user.tool_approval',
      thread_id: call.threadId,
      tool_call_id: call.toolCallId,
      approval,
    })),
    previous_turn_id: 'auto',
  };
}

function isSentinelCall(call: PendingCall, connectorName: string): boolean {
  return call.serverName === connectorName;
}

async function previewOf(
  call: PendingCall,
  { grants, connectorName }: DecisionOptions,
): Promise<{ preview?: PreviewLike | undefined; note?: string }> {
  if (!isSentinelCall(call, connectorName)) return {};
  if (!call.arguments) return {};
  try {
    const preview = await grants.preview({ tool: call.toolName, arguments: call.arguments });
    return preview ? { preview } : { note: `no preview: ${call.toolName} has no dry run` };
  } catch (error) {
    return { note: `no preview: ${toSentinelError(error).message}` };
  }
}

/**
 * Creates the server-side grant for an approved call (with its `client_ref`); a refusal becomes a
 * deny that says why, and a decision the server already held for the call stands.
 */
async function grant(
  call: PendingCall,
  preview: PreviewLike | undefined,
  ref: ClientRef | undefined,
  { grants, connectorName, log }: DecisionOptions,
): Promise<Decided> {
  // Calls to other tools (harness system tools, other connectors) are not Sentinel's to gate.
  if (!isSentinelCall(call, connectorName)) return { approval: { status: 'allow' } };
  if (!call.arguments) {
    return {
      approval: {
        status: 'deny',
        reason:
          'Not approved: the call arguments are not a JSON object, so the Sentinel server cannot grant it.',
      },
    };
  }
  try {
    const { id, allowedByRule, reused, existing } = await grants.preapprove(
      { tool: call.toolName, arguments: call.arguments },
      preview,
      ref,
    );
    if (existing) {
      const known = knownOf(existing);
      log(
        `  the Sentinel server already holds a decision for this tool call: ${describeKnown(known, new Date())}`,
      );
      return { ...fromKnown(known), by: existing.by, at: existing.at };
    }
    log(
      id
        ? `  ${reused ? 'already granted' : 'granted'} on the Sentinel server as approval request ${id}`
        : `  the Sentinel policy allows this call without approval (rule ${allowedByRule ?? 'unnamed'})`,
    );
    return { approval: { status: 'allow' }, grantId: id, ...(id && { by: 'you' }) };
  } catch (error) {
    const message = toSentinelError(error).message;
    log(`  not approved: ${message}`);
    return {
      approval: {
        status: 'deny',
        reason: `Not approved: the Sentinel server did not grant this call (${message}).`,
      },
    };
  }
}

/**
 * Records a "no" at the server for a Sentinel call (the exact call, the harness identity, the
 * reason), so the audit log shows who declined what and an identical call is answered "a human
 * declined this". The deny goes to the harness whatever the server says (a deny is always safe); a
 * failure to record it is said.
 */
async function decline(
  call: PendingCall,
  reason: string,
  ref: ClientRef | undefined,
  { grants, connectorName, log }: DecisionOptions,
): Promise<Decided> {
  const deny: Decided = { approval: { status: 'deny', reason } };
  if (!isSentinelCall(call, connectorName) || !call.arguments || !ref) return deny;
  try {
    const recorded = await grants.recordDenial(
      { tool: call.toolName, arguments: call.arguments },
      reason,
      ref,
    );
    if (!recorded) {
      log('  declined (the Sentinel policy needs no approval for this call, so nothing was recorded there)');
      return deny;
    }
    if (recorded.existing && recorded.decision === 'allow') {
      // Someone approved this very tool call first: the harness still hears "deny" (a deny is
      // always safe), and the unused grant expires.
      log(
        `  declined here, but the Sentinel server holds an earlier approval of this tool call (request ${recorded.id}, by ${recorded.by})`,
      );
      return { ...deny, deniedId: recorded.id };
    }
    log(
      `  declined; recorded at the Sentinel server as approval request ${recorded.id} (denied by ${recorded.by})`,
    );
    return { ...deny, deniedId: recorded.id, by: recorded.by, at: recorded.at };
  } catch (error) {
    log(`  declined; not recorded at the Sentinel server: ${toSentinelError(error).message}`);
    return deny;
  }
}
