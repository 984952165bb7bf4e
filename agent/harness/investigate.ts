/**
 * An investigation in harness mode: the TrueForge harness runs the `sentinel` agent; this drives one
 * session from the terminal. It streams each turn, and whenever a turn pauses for approvals it asks
 * the human about every pending call, creates the server-side grants for the approved Sentinel calls,
 * and sends all decisions back as one turn — until a turn ends with nothing pending.
 *
 * `resumeSessionId` picks up a session after a reload: the newest turn (the whole turns list read,
 * newest `created_at`) and only its `state.required_actions` say what is pending — an older paused
 * turn keeps its answered actions — and its persisted events say what each pending call is. Calls
 * decided before (the session's ledger, or the server's answer for their `client_ref`) are shown as
 * decided and not asked again. A paused turn someone else answered meanwhile (another process, the
 * harness UI) is not answered again: the harness refuses the second answer and the turn it started
 * is followed.
 */
import { SENTINEL_MCP_SERVER_NAME } from '../../agent-spec/index.ts';
import { sentinelCommand, SentinelError } from '../../core/index.ts';
import type { TrueForgeClient, Turn } from '../../trueforge/index.ts';
import { approvalTurn, decidePendingCalls, type Decision } from './decisions.ts';
import { EventIndex, textOf } from './event-index.ts';
import { openSessionLedger } from './ledger.ts';
import { followTurn, type TurnOutcome } from './follow-turn.ts';
import { SENTINEL_AGENT_NAME } from './names.ts';
import { pendingApprovalsOf, resolvePendingCalls } from './pending.ts';
import { TurnPrinter, type Output } from './printer.ts';
import type { ApprovalPrompter } from './prompter.ts';
import { defaultCallRenderer, type PendingCallRenderer } from './render.ts';
import type { ServerGrantClient } from './server-grants.ts';

export interface HarnessInvestigationOptions {
  client: TrueForgeClient;
  grants: ServerGrantClient;
  prompter: ApprovalPrompter;
  output: Output;
  /** What to investigate (a new session), e.g. "checkout returns 502 since 02:10". */
  symptom?: string | undefined;
  /** Continue this session instead of starting one. */
  resumeSessionId?: string | undefined;
  /**
   * Approve every pending call without asking (`--yes`); a dangerous Sentinel call (destructive, a
   * scale to 0) only when `confirm` names its Deployment, else nothing of the batch is approved and
   * the run throws `invalid_input` (field `--confirm`), the calls still pending in the harness.
   */
  autoApprove?: boolean;
  /** With `autoApprove` (`--confirm`, repeatable): the Deployments a dangerous call may be approved for. */
  confirm?: readonly string[] | undefined;
  /** Agent to open the session on. Default `sentinel`. */
  agentName?: string;
  /** Sentinel's connector name in the harness. Default `sentinel`. */
  connectorName?: string;
  renderer?: PendingCallRenderer;
  /**
   * Data directory of the per-session ledger (`<dir>/harness-sessions/`): decisions made are never
   * asked again, in this process or the next. Without it, only the server's `client_ref` answers.
   */
  dataDir?: string | undefined;
  /** Clock for "N min ago". */
  now?: () => Date;
  /** Milliseconds between reads of a call held on the approvals page while the terminal asks. Default 1000. */
  pollMs?: number;
}

export interface HarnessInvestigationResult {
  sessionId: string;
  /** The last turn. */
  turnId: string;
  /** `done`: nothing pending; `pending`: input ended with calls undecided; `cancelled`. */
  status: 'done' | 'pending' | 'cancelled';
  /** Every decision sent, in order. */
  decisions: Decision[];
}

/**
 * Runs (or resumes) the investigation to its end. Throws `SentinelError`: `invalid_input` without a
 * symptom or session, or (field `--confirm`) when `autoApprove` meets a dangerous call `confirm`
 * does not name, `not_found` for an unknown session or one with no turns, `unavailable` when a
 * turn fails in the harness, and the harness's own errors (400/422 with its message).
 */
export async function runHarnessInvestigation(
  options: HarnessInvestigationOptions,
): Promise<HarnessInvestigationResult> {
  const { client, output } = options;
  const log = (line: string) => output.stderr.write(`${line}\n`);
  const index = new EventIndex();
  const printer = new TurnPrinter(output, index);
  const decisions: Decision[] = [];

  const { sessionId, outcome: first } = await start(options, index, printer, log);
  const harnessUrl = client.http.baseUrl.href.replace(/\/api\/v1\/$/, '');
  const ledger = options.dataDir ? openSessionLedger(options.dataDir, harnessUrl, sessionId) : undefined;
  let outcome = first;
  for (;;) {
    const { turnId, state } = outcome;
    if (state.status === 'error') {
      throw new SentinelError('unavailable', `The harness turn ${turnId} failed: ${state.message}`);
    }
    if (state.status !== 'done') {
      log(`Turn ${turnId} was cancelled in the harness.`);
      return { sessionId, turnId, status: 'cancelled', decisions };
    }
    const approvals = pendingApprovalsOf(state);
    if (approvals.length === 0) return { sessionId, turnId, status: 'done', decisions };
    const calls = await resolvePendingCalls(approvals, index, () => client.listTurnEvents(sessionId, turnId));
    const decided = await decidePendingCalls(calls, {
      grants: options.grants,
      renderer: options.renderer ?? defaultCallRenderer,
      prompter: options.prompter,
      autoApprove: options.autoApprove ?? false,
      confirm: options.confirm,
      resumeCommand: `${sentinelCommand()} investigate --harness ${harnessUrl} --resume-session ${sessionId}`,
      connectorName: options.connectorName ?? SENTINEL_MCP_SERVER_NAME,
      log,
      ledger,
      refOf: (call) => ({
        harness_url: harnessUrl,
        session_id: sessionId,
        turn_id: turnId,
        tool_call_id: call.toolCallId,
      }),
      ...(options.now && { now: options.now }),
      ...(options.pollMs !== undefined && { pollMs: options.pollMs }),
    });
    if (!decided) {
      log(
        `No answer; the calls stay pending. Continue with: ${sentinelCommand()} investigate --resume-session ${sessionId}`,
      );
      return { sessionId, turnId, status: 'pending', decisions };
    }
    const events = client.streamTurn(sessionId, approvalTurn(decided));
    const taken = await followTurn(events, { client, sessionId, index, printer }).then(
      (next) => ({ next }),
      async (error: unknown) => ({
        error,
        elsewhere: await answeredElsewhere(client, error, sessionId, turnId),
      }),
    );
    if ('next' in taken) {
      decisions.push(...decided);
      outcome = taken.next;
      continue;
    }
    if (!taken.elsewhere) throw notTaken(taken.error, decided, sessionId);
    log(
      `Turn ${turnId} was answered meanwhile (another process, or the harness UI); its answer stands. Following turn ${taken.elsewhere.id}.`,
    );
    outcome = await pickUp(options, sessionId, taken.elsewhere, index, printer);
  }
}

/**
 * The session's newest turn when the harness refused our answer (4xx: nothing ran) because paused
 * turn `turnId` is no longer the last one: someone answered it first. Undefined otherwise.
 */
async function answeredElsewhere(
  client: TrueForgeClient,
  error: unknown,
  sessionId: string,
  turnId: string,
): Promise<Turn | undefined> {
  if (!(error instanceof SentinelError) || error.details?.status === undefined) return undefined;
  const latest = await client.latestTurn(sessionId).catch(() => undefined);
  return latest && latest.id !== turnId ? latest : undefined;
}

/** Opens a session and streams its first turn, or finds where a resumed session stands. */
async function start(
  options: HarnessInvestigationOptions,
  index: EventIndex,
  printer: TurnPrinter,
  log: (line: string) => void,
): Promise<{ sessionId: string; outcome: TurnOutcome }> {
  const { client } = options;
  if (options.resumeSessionId) {
    const sessionId = options.resumeSessionId;
    const latest = await client.latestTurn(sessionId);
    if (!latest) throw new SentinelError('not_found', `Session ${sessionId} has no turns to resume.`);
    log(`Resuming session ${sessionId} at turn ${latest.id} (${latest.state.status}).`);
    return { sessionId, outcome: await pickUp(options, sessionId, latest, index, printer) };
  }
  const symptom = options.symptom?.trim();
  if (!symptom) {
    throw new SentinelError(
      'invalid_input',
      'Describe the symptom to investigate, e.g. "checkout returns 502 since 02:10".',
      {
        field: 'symptom',
      },
    );
  }
  const session = await client.createSession(options.agentName ?? SENTINEL_AGENT_NAME);
  log(
    `Session ${session.id} (continue later with: ${sentinelCommand()} investigate --resume-session ${session.id})`,
  );
  const events = client.streamTurn(session.id, { input: [{ type: 'user.message', content: symptom }] });
  return {
    sessionId: session.id,
    outcome: await followTurn(events, { client, sessionId: session.id, index, printer }),
  };
}

/**
 * Where an existing turn stands: a running one is followed to its end, a finished one prints its
 * answer (when it waits for nothing); a paused one's calls are read back when they are decided.
 */
async function pickUp(
  { client, output }: HarnessInvestigationOptions,
  sessionId: string,
  turn: Turn,
  index: EventIndex,
  printer: TurnPrinter,
): Promise<TurnOutcome> {
  if (turn.state.status === 'running') {
    const events = client.subscribeTurn(sessionId, turn.id);
    return followTurn(events, { client, sessionId, index, printer, turnId: turn.id });
  }
  if (turn.state.status === 'done' && turn.state.required_actions.length === 0 && turn.state.output) {
    output.stdout.write(`${textOf(turn.state.output.content)}\n`);
  }
  return { turnId: turn.id, state: turn.state };
}

/**
 * When the harness answers the decisions with an error (400/422/...), nothing ran: says how to
 * answer again, and which server-side grants were made (they stay unused until the harness sends
 * those calls, and answering again reuses them).
 */
function notTaken(error: unknown, decided: readonly Decision[], sessionId: string): unknown {
  if (!(error instanceof SentinelError) || error.details?.status === undefined) return error;
  const grants = decided.flatMap((decision) => (decision.grantId ? [decision.grantId] : []));
  const kept = grants.length
    ? ` (grants ${grants.join(', ')} on the Sentinel server stay unused and are reused)`
    : '';
  return new SentinelError(
    error.code,
    `${error.message} Answer again with: ${sentinelCommand()} investigate --resume-session ${sessionId}${kept}.`,
    { cause: error, details: error.details },
  );
}
