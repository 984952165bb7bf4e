/**
 * Resolves the tool calls a paused turn waits for. A `tool.approval_required` event (live, or from
 * the turn's `state.required_actions` after a reload) carries only `{id, source_event_id}` per call;
 * the name and arguments are in the merged `model.message` with that `source_event_id`. When the
 * index does not hold it (a reload, a dropped stream), the turn's persisted events are read back once.
 */
import { SentinelError } from '../../core/index.ts';
import type { EventIndex } from './event-index.ts';
import type { ToolApprovalRequiredEvent, ToolCall, TurnEvent, TurnState } from '../../trueforge/index.ts';

/** One call waiting for the human's decision. */
export interface PendingCall {
  /** Thread of the approval ("main" or a subagent thread); a decision must name the same thread. */
  threadId: string;
  /** The model's tool call id; a decision names it as `tool_call_id`. */
  toolCallId: string;
  /** The `model.message` that carried the call. */
  sourceEventId: string;
  /** The tool's own name (`tool_info.name` for an MCP tool, else the function name). */
  toolName: string;
  /** The MCP connector the call goes to (`tool_info.server_name`); undefined for harness tools. */
  serverName: string | undefined;
  /** The arguments exactly as the model wrote them (JSON text). */
  rawArguments: string;
  /** The arguments parsed; undefined when they are not a JSON object. */
  arguments: Record<string, unknown> | undefined;
}

/**
 * The approval events a finished turn waits for (`state.required_actions`). Throws
 * `SentinelError('refused')` for other required actions (`tool.response_required`,
 * `mcp.auth_required`), which Sentinel does not answer.
 */
export function pendingApprovalsOf(state: TurnState): ToolApprovalRequiredEvent[] {
  if (state.status !== 'done') return [];
  const approvals: ToolApprovalRequiredEvent[] = [];
  for (const action of state.required_actions) {
    if (action.type === 'tool.approval_required') approvals.push(action as ToolApprovalRequiredEvent);
    else {
      throw new SentinelError(
        'refused',
        `The harness waits for '${action.type}', which Sentinel cannot answer; open the session in the harness UI to continue.`,
      );
    }
  }
  return approvals;
}

/**
 * Resolves every ref of `approvals` to its call, in order. `readBack` returns the turn's persisted
 * events (GET .../turns/{tid}/events) and is called at most once, only when a message is missing.
 * Throws `SentinelError('not_found')` naming the call when it cannot be found even then.
 */
export async function resolvePendingCalls(
  approvals: readonly ToolApprovalRequiredEvent[],
  index: EventIndex,
  readBack: () => Promise<TurnEvent[]>,
): Promise<PendingCall[]> {
  const refs = approvals.flatMap((approval) => approval.tool_calls.map((ref) => ({ approval, ref })));
  if (refs.some(({ ref }) => !index.toolCall(ref.source_event_id, ref.id))) {
    index.addAll(await readBack());
  }
  return refs.map(({ approval, ref }) => {
    const call = index.toolCall(ref.source_event_id, ref.id);
    if (!call) {
      throw new SentinelError(
        'not_found',
        `Pending tool call '${ref.id}' (message '${ref.source_event_id}', thread '${approval.thread_id}') is not among the turn's events; the harness may have lost it — decide it in the harness UI.`,
      );
    }
    return toPendingCall(approval.thread_id, ref.source_event_id, call);
  });
}

function toPendingCall(threadId: string, sourceEventId: string, call: ToolCall): PendingCall {
  const info = call.tool_info;
  const isMcp = info?.type === 'mcp' && 'server_name' in info;
  const rawArguments = call.function.arguments ?? '';
  return {
    threadId,
    toolCallId: call.id,
    sourceEventId,
    toolName: info?.name ?? call.function.name ?? '(unnamed tool)',
    serverName: isMcp ? String(info.server_name) : undefined,
    rawArguments,
    arguments: parseArguments(rawArguments),
  };
}

function parseArguments(raw: string): Record<string, unknown> | undefined {
  try {
    const value: unknown = JSON.parse(raw === '' ? '{}' : raw);
    return value && typeof value === 'object' && !Array.isArray(value)
      ? (value as Record<string, unknown>)
      : undefined;
  } catch {
    return undefined;
  }
}
