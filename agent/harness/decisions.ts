/**
 * Decides every pending call of a paused turn with the human, then builds the one turn that sends
 * the decisions back.
 *
 * Order matters: all questions are asked first; then, for each "yes" to a Sentinel tool call, the
 * server-side grant for that exact call is created and approved with the human's token; only then is
 * the approval turn built. A grant the server refuses turns that "yes" into a deny whose reason says
 * why, so the harness never runs a call the server would hold, and every pending call is still
 * resolved in one batch (a live harness rejects partial batches with 422).
 */
import { toSentinelError } from '../../tools/errors.ts';
import type { PendingCall } from './pending.ts';
import type { ApprovalPrompter } from './prompter.ts';
import type { PendingCallRenderer } from './render.ts';
import type { ApprovalDecision, CreateTurnRequest } from './schemas.ts';
import type { PreviewLike, ServerGrantClient } from './server-grants.ts';

/** Reason sent with a "no" when the human gives none (the model sees it). */
export const DEFAULT_DENY_REASON = 'The on-call engineer declined this call.';

export interface DecisionOptions {
  grants: ServerGrantClient;
  renderer: PendingCallRenderer;
  prompter: ApprovalPrompter;
  /** Approve every call without asking (`--yes`, for scripted runs). */
  autoApprove: boolean;
  /** Name of Sentinel's MCP connector in the harness; calls to it need a server-side grant. */
  connectorName: string;
  /** Progress and questions' context, one line at a time (stderr). */
  log: (line: string) => void;
}

/** The decision on one pending call. */
export interface Decision {
  call: PendingCall;
  /** The rendered question the human answered. */
  question: string;
  approval: ApprovalDecision;
  /** Id of the approved server-side request, for an allowed Sentinel call. */
  grantId?: string | undefined;
}

/**
 * Asks about each call (rendered with its dry-run preview), then creates the server-side grants for
 * the approved Sentinel calls. Returns undefined, having granted nothing, when input ends before every
 * call is answered (the calls stay pending in the harness).
 */
export async function decidePendingCalls(
  calls: readonly PendingCall[],
  options: DecisionOptions,
): Promise<Decision[] | undefined> {
  const { log } = options;
  log(`The agent is waiting for approval of ${calls.length} call${calls.length === 1 ? '' : 's'}.`);
  const answers: { call: PendingCall; question: string; preview?: PreviewLike | undefined; deny?: string }[] =
    [];
  for (const call of calls) {
    const { preview, note } = await previewOf(call, options);
    const { question, details } = options.renderer.render(call, preview);
    log('');
    log(`${call.threadId === 'main' ? '' : `[${call.threadId}] `}${question}`);
    for (const line of note ? [note] : details) log(`    ${line}`);
    if (options.autoApprove) {
      log('  approved (--yes)');
      answers.push({ call, question, preview });
      continue;
    }
    const allow = await options.prompter.confirm('Allow?');
    if (allow === undefined) return undefined;
    if (allow) {
      answers.push({ call, question, preview });
      continue;
    }
    const reason = await options.prompter.ask('Reason, shown to the agent (optional): ');
    answers.push({ call, question, deny: reason?.trim() || DEFAULT_DENY_REASON });
  }
  const decisions: Decision[] = [];
  for (const { call, question, preview, deny } of answers) {
    const decided =
      deny === undefined
        ? await grant(call, preview, options)
        : { approval: { status: 'deny', reason: deny } as const };
    decisions.push({ call, question, ...decided });
  }
  return decisions;
}

/** The turn that resolves every pending call at once: only `user.tool_approval` items. */
export function approvalTurn(decisions: readonly Decision[], pausedTurnId: string): CreateTurnRequest {
  return {
    input: decisions.map(({ call, approval }) => ({
      type: 'user.tool_approval',
      thread_id: call.threadId,
      tool_call_id: call.toolCallId,
      approval,
    })),
    previous_turn_id: pausedTurnId,
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

/** Creates the server-side grant for an approved call; a refusal becomes a deny that says why. */
async function grant(
  call: PendingCall,
  preview: PreviewLike | undefined,
  { grants, connectorName, log }: DecisionOptions,
): Promise<Pick<Decision, 'approval' | 'grantId'>> {
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
    const { id, allowedByRule, reused } = await grants.preapprove(
      { tool: call.toolName, arguments: call.arguments },
      preview,
    );
    log(
      id
        ? `  ${reused ? 'already granted' : 'granted'} on the Sentinel server as approval request ${id}`
        : `  the Sentinel policy allows this call without approval (rule ${allowedByRule ?? 'unnamed'})`,
    );
    return { approval: { status: 'allow' }, grantId: id };
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
