/**
 * Steps: batches of tool calls that run all together or not at all. If any call of a step needs
 * approval, no other call of the step runs until every held call is decided; a denial (or an expiry)
 * abandons the whole step, approved siblings included (their unused grants expire).
 *
 * Order within a step: the calls that may change something are submitted first — the gate holds
 * those that need approval (nothing runs) — then, once every held call is approved, they are retried
 * with identical arguments (the gate executes each once), and only then do the step's read calls
 * run. A change call the operator's policy allows outright runs when submitted: it needs no approval.
 *
 * Every transition is saved before the next call, so a step resumes where it stopped: held calls
 * are waited for again, approved calls are retried unless the server shows they already ran.
 */
import type { ApprovalRequest } from '../../server/index.ts';
import { setTimeout as sleep } from 'node:timers/promises';
import { SentinelError, sentinelCommand } from '../../core/index.ts';
import type { CallOptions, ClassifiedResult, ToolCaller } from './mcp-client.ts';
import type { CallRecord, CallStatus, Step } from './model.ts';

/** A call as the playbook plans it. */
export interface PlannedCall {
  tool: string;
  arguments: Record<string, unknown>;
}

export interface StepContext {
  caller: ToolCaller;
  /** Waits until the request is decided; returns it as it then is. */
  waitForDecision(requestId: string): Promise<ApprovalRequest>;
  /** Reads a request (to learn whether an approved call already ran before a restart). */
  getApproval(requestId: string): Promise<ApprovalRequest>;
  /** Persists the investigation (called after every transition). */
  save(): void;
  /** Progress for people (stderr). */
  progress(line: string): void;
  now?: () => Date;
  /**
   * `--ask-again`: a change call the server answers with an earlier human denial of the identical
   * call is submitted once more, which opens a new approval request (docs/DESIGN.md, "Decision").
   */
  askAgain?: boolean;
  /** How to run this investigation again asking anew (printed with a reused denial). */
  askAgainCommand?: string;
  /**
   * The server read snapshot this step's calls share (`CallOptions.readSnapshot`): one consistent
   * view over several steps, each distinct Kubernetes read made once. The server uses it only for
   * read tools and dry runs; approved retries never send it.
   */
  readSnapshot?: string;
  /** Milliseconds between reads of a request another run is executing (default 500). */
  pollMs?: number;
  /** Stops waiting for another run's execution (throws `timeout`); a call already sent finishes. */
  signal?: AbortSignal;
}

/** Longest wait for another run's execution of an approved call to finish, in milliseconds. */
const MAX_FOREIGN_EXECUTION_MS = 10 * 60_000;

/** Longest argument value shown in a call's one-line description, in characters. */
const MAX_ARGUMENT_TEXT = 60;

/** Longest result text kept in the transcript, in characters. */
export const MAX_TRANSCRIPT_TEXT = 8000;

/** A new step record for `calls`, every call `not_run`. Read-only calls are marked from the tool list. */
export async function planStep(
  name: string,
  calls: PlannedCall[],
  caller: ToolCaller,
  now = new Date(),
): Promise<Step> {
  const tools = await caller.tools();
  return {
    name,
    status: 'running',
    started_at: now.toISOString(),
    finished_at: null,
    calls: calls.map((call) => {
      const info = tools.get(call.tool);
      if (!info) {
        throw new SentinelError(
          'not_found',
          `The Sentinel server does not offer the tool '${call.tool}' the playbook needs; is it an older version?`,
          { field: 'tool' },
        );
      }
      return {
        tool: call.tool,
        arguments: call.arguments,
        read_only: info.readOnly,
        status: 'not_run',
        approval_request_id: null,
        text: null,
        structured: null,
        error_code: null,
      };
    }),
  };
}

/** The call options of a first submission: the step's read snapshot, if any. */
function shared(context: StepContext): CallOptions | undefined {
  return context.readSnapshot === undefined ? undefined : { readSnapshot: context.readSnapshot };
}

/** Records an answer on a call record. */
function record(call: CallRecord, outcome: ClassifiedResult): CallStatus {
  call.text =
    outcome.text.length > MAX_TRANSCRIPT_TEXT
      ? `${outcome.text.slice(0, MAX_TRANSCRIPT_TEXT)}…`
      : outcome.text;
  call.structured = 'structured' in outcome ? outcome.structured : null;
  call.error_code = 'errorCode' in outcome ? outcome.errorCode : null;
  if (outcome.requestId) call.approval_request_id = outcome.requestId;
  const status: Record<ClassifiedResult['kind'], CallStatus> = {
    result: 'succeeded',
    error: 'failed',
    held: 'held',
    declined: 'declined',
    stale: 'expired',
    frozen: 'declined',
    in_progress: 'failed',
    replayed: 'failed',
  };
  call.status = status[outcome.kind];
  return call.status;
}

/** One line naming a call, e.g. `rollback_deployment namespace=shop name=checkout to_revision=2`. */
export function describeCall(call: PlannedCall): string {
  const args = Object.entries(call.arguments)
    .map(([key, value]) => {
      const text = typeof value === 'string' ? value : JSON.stringify(value);
      return `${key}=${text.length > MAX_ARGUMENT_TEXT ? `${text.slice(0, MAX_ARGUMENT_TEXT - 1)}…` : text}`;
    })
    .join(' ');
  return args ? `${call.tool} ${args}` : call.tool;
}

/** How a decided request ends for its call. */
function settle(call: CallRecord, request: ApprovalRequest): CallStatus {
  settleStatus(call, request);
  return call.status;
}

function settleStatus(call: CallRecord, request: ApprovalRequest): void {
  switch (request.status) {
    case 'approved':
      call.status = 'approved';
      return;
    case 'denied':
      call.status = 'declined';
      call.text = `Approval request ${request.id} was denied by ${request.decision?.by ?? 'an approver'}: ${request.decision?.reason ?? 'no reason given'}`;
      return;
    case 'executing':
    case 'executed':
    case 'failed':
    case 'stale': {
      const execution = request.executions.at(-1);
      call.status =
        request.status === 'executed' ? 'succeeded' : request.status === 'stale' ? 'expired' : 'failed';
      if (request.status === 'executing') call.status = 'approved';
      call.text = execution?.outcome ?? call.text;
      return;
    }
    default:
      call.status = 'expired';
      call.text = `Approval request ${request.id} is ${request.status}; the call was not run.`;
  }
}

/**
 * Runs (or resumes) `step` to its end: `done`, `declined` or `failed`. Returns the step. Throws what
 * the caller or the waiter throws (unreachable server, interrupted wait); the step is saved as far
 * as it got.
 */
export async function runStep(step: Step, context: StepContext): Promise<Step> {
  const now = context.now ?? (() => new Date());
  const finish = (status: Step['status']) => {
    step.status = status;
    step.finished_at = now().toISOString();
    context.save();
    return step;
  };
  const changes = step.calls.filter((call) => !call.read_only);
  const reads = step.calls.filter((call) => call.read_only);

  // 1. Submit the change calls; the gate holds the ones that need approval.
  for (const call of changes) {
    if (call.status !== 'not_run') continue;
    context.progress(`→ ${describeCall(call)}`);
    let status = record(call, await context.caller.call(call.tool, call.arguments, shared(context)));
    // Declined without ever being held here: the server reused an earlier human denial.
    if (status === 'declined' && call.approval_request_id) {
      await announceReusedDenial(call.approval_request_id, context);
      if (context.askAgain) {
        context.progress(`→ ${describeCall(call)} (--ask-again: a new approval request)`);
        status = record(call, await context.caller.call(call.tool, call.arguments));
      }
    }
    // Ran at once under an earlier grant of this exact call: said, never silent.
    if (status === 'succeeded' && call.approval_request_id) {
      await announceReusedGrant(call.approval_request_id, context);
    }
    context.save();
    if (status === 'held') context.progress(`  held for approval: request ${call.approval_request_id}`);
  }
  if (changes.some((call) => call.status === 'declined')) return finish('declined');
  if (changes.some((call) => call.status === 'failed' || call.status === 'expired')) return finish('failed');

  const afterChanges = await settleHeld(step, changes, context);
  if (afterChanges !== 'done') return finish(afterChanges);
  if (changes.some((call) => call.status !== 'succeeded')) return finish('failed');

  // 4. The read calls, together (a read the policy holds waits like any other held call).
  const pendingReads = reads.filter((call) => call.status === 'not_run');
  for (const call of pendingReads) context.progress(`→ ${describeCall(call)}`);
  const answers = await Promise.all(
    pendingReads.map((call) => context.caller.call(call.tool, call.arguments, shared(context))),
  );
  pendingReads.forEach((call, index) => record(call, answers[index]!));
  context.save();
  // A read that failed is evidence too (e.g. no previous container instance): the step still ends.
  return finish(await settleHeld(step, reads, context));
}

/**
 * 2. Waits for every held call of `calls` — one "no" (or an expiry) ends the step — then 3. retries
 * the approved ones with identical arguments: the gate executes each once.
 */
async function settleHeld(
  step: Step,
  calls: CallRecord[],
  context: StepContext,
): Promise<'done' | 'declined' | 'failed'> {
  if (calls.some((call) => call.status === 'held')) {
    step.status = 'awaiting_approval';
    context.save();
  }
  for (const call of calls) {
    if (call.status !== 'held') continue;
    const status = settle(call, await context.waitForDecision(call.approval_request_id!));
    context.save();
    if (status === 'declined') return 'declined';
    if (status === 'expired' || status === 'failed') return 'failed';
  }
  step.status = 'running';
  for (const call of calls) {
    if (call.status !== 'approved') continue;
    // After a restart the retry may already have happened: the server knows.
    const request = await context.getApproval(call.approval_request_id!);
    if (request.status !== 'approved') {
      // Another run of this investigation (another terminal) retried it first.
      await settleExecutedElsewhere(call, request, context);
      continue;
    }
    context.progress(`→ ${describeCall(call)} (approved: ${call.approval_request_id})`);
    const outcome = await context.caller.call(call.tool, call.arguments);
    if (outcome.kind === 'in_progress' && call.approval_request_id) {
      // The gate ran it once, for the other run: its result is this call's result too.
      await settleExecutedElsewhere(call, await context.getApproval(call.approval_request_id), context);
      continue;
    }
    record(call, outcome);
    context.save();
  }
  if (calls.some((call) => call.status === 'declined')) return 'declined';
  if (calls.some((call) => call.status === 'expired')) return 'failed';
  return 'done';
}

/**
 * Settles an approved call whose single execution belongs to another run of the same investigation
 * (two terminals resumed it; the gate executes a grant once): waits while that execution is under
 * way (polling the request every `pollMs`), then takes its outcome as this call's and says so.
 * Throws `conflict` when it is still executing after ten minutes, `timeout` when `signal` aborts.
 */
async function settleExecutedElsewhere(
  call: CallRecord,
  first: ApprovalRequest,
  context: StepContext,
): Promise<void> {
  const now = context.now ?? (() => new Date());
  const deadline = now().getTime() + MAX_FOREIGN_EXECUTION_MS;
  let request = first;
  while (request.status === 'executing' || request.status === 'approved') {
    if (now().getTime() > deadline) {
      throw new SentinelError(
        'conflict',
        `Approval request ${request.id} is still executing in another run; resume the investigation once it has finished.`,
      );
    }
    try {
      await sleep(context.pollMs ?? 500, undefined, { signal: context.signal });
    } catch {
      throw new SentinelError(
        'timeout',
        `Stopped waiting for approval request ${request.id}, which another run is executing; the investigation stays resumable.`,
      );
    }
    request = await context.getApproval(request.id);
  }
  settle(call, request);
  context.save();
  if (request.status === 'executed' || request.status === 'failed') {
    const outcome = call.text ? `: ${firstTextLine(call.text)}` : '';
    context.progress(
      `  Approval request ${request.id}: the call was executed once, by another run of this investigation (not a second time here)${outcome}`,
    );
  }
}

/** The first non-empty line of `text`. */
function firstTextLine(text: string): string {
  return text.split('\n').find((line) => line.trim() !== '') ?? text;
}

/**
 * Says that a call was refused with an earlier denial of the identical call: who denied it, how
 * long ago, why, and how to ask the approvers again (`--ask-again`). A denial is never reused
 * silently.
 */
async function announceReusedDenial(requestId: string, context: StepContext): Promise<void> {
  const request = await context.getApproval(requestId).catch(() => undefined);
  const decision = request?.decision;
  const age = decisionAge(decision?.at, context);
  context.progress(
    `  This exact call was denied${age} by ${decision?.by ?? 'an approver'} (approval request ${requestId}): ${decision?.reason ?? 'no reason given'}. It was not run; nothing changed.`,
  );
  if (!context.askAgain) {
    context.progress(
      `  To ask the approvers again: ${context.askAgainCommand ?? `${sentinelCommand()} investigate … --ask-again`}`,
    );
  }
}

/** ` 3 minute(s) ago` / ` less than a minute ago` for an ISO time; '' when unknown. */
function decisionAge(at: string | undefined, context: StepContext): string {
  const ms = at === undefined ? NaN : Date.parse(at);
  if (!Number.isFinite(ms)) return '';
  const minutes = Math.max(0, Math.round(((context.now ?? (() => new Date()))().getTime() - ms) / 60_000));
  return minutes === 0 ? ' less than a minute ago' : ` ${minutes} minute(s) ago`;
}

/**
 * Says that a change call ran at once because the server used an earlier grant of the identical
 * call (the grant is for the exact call, so using it is correct): which request, who granted it,
 * how long ago, and for which investigation — with the `(approved: apr_…)` marker prompted runs
 * show. A grant, like a denial, is never used silently.
 */
async function announceReusedGrant(requestId: string, context: StepContext): Promise<void> {
  const request = await context.getApproval(requestId).catch(() => undefined);
  const decision = request?.decision;
  const origin = request?.preview?.investigation;
  context.progress(
    `  Using approval ${requestId} granted by ${decision?.by ?? 'an approver'}${decisionAge(decision?.at, context)}${
      origin ? ` for investigation ${origin}` : ''
    } (approved: ${requestId}): this exact call ran without a new prompt.`,
  );
}
