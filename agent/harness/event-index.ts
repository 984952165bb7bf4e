/**
 * Every event of a session's turns, by id, with streamed `model.message.delta` fragments merged into
 * their base `model.message`.
 *
 * Why: `tool.approval_required` names a pending call only as `{id, source_event_id}`; the tool name
 * and arguments live in the message with that id, and on the stream they arrive as deltas (OBSERVED.md:
 * `model.message` base, then `model.message.delta` ×N whose `tool_calls[index]` carry fragments of
 * `id`, `function.name`, `function.arguments` and `tool_info`). Merging follows OpenAI chunk
 * semantics: fragments with the same `index` build one call, `arguments` strings are concatenated,
 * and `id`, `name`, `type` and `tool_info` are taken from whichever fragment carries them.
 *
 * Threads: the main agent writes to thread "main", a subagent to its own thread id; `turn.*` events
 * have `thread_id: null`. A delta joins the base message with its own id; if there is none (a harness
 * that numbers deltas separately), the latest message of the same thread.
 */
import {
  isEvent,
  type ModelMessageDeltaEvent,
  type ModelMessageEvent,
  type ToolCall,
  type TurnEvent,
} from '../../trueforge/index.ts';

/** A thread the index has seen: "main" or a subagent thread with its parent call. */
export interface ThreadInfo {
  threadId: string;
  title?: string | undefined;
  /** The thread and tool call that started this subagent thread. */
  parent?: { threadId: string; toolCallId: string } | undefined;
}

export class EventIndex {
  private readonly events = new Map<string, TurnEvent>();
  /** Messages built from deltas (a later complete `model.message` with content replaces them). */
  private readonly fromDeltas = new Set<string>();
  private readonly lastMessageOfThread = new Map<string, string>();
  private readonly threads = new Map<string, ThreadInfo>();

  /**
   * Adds an event; returns what the index now holds for its id (for a delta, the merged message).
   * A `model.message` replaces an earlier one with the same id, except that an empty base does not
   * wipe what deltas already built.
   */
  add(event: TurnEvent): TurnEvent {
    if (isEvent(event, 'model.message.delta')) return this.mergeDelta(event);
    if (isEvent(event, 'model.message')) return this.addMessage(event);
    if (isEvent(event, 'thread.created')) {
      this.threads.set(event.thread_id, {
        threadId: event.thread_id,
        title: event.title,
        parent: event.parent && { threadId: event.parent.thread_id, toolCallId: event.parent.tool_call_id },
      });
    }
    this.events.set(event.id, event);
    return event;
  }

  /** Adds events in order. */
  addAll(events: Iterable<TurnEvent>): void {
    for (const event of events) this.add(event);
  }

  /** The event with this id (messages merged), or undefined. */
  get(id: string): TurnEvent | undefined {
    return this.events.get(id);
  }

  /** The merged `model.message` with this id, or undefined (absent, or another type of event). */
  message(id: string): ModelMessageEvent | undefined {
    const event = this.events.get(id);
    return event && isEvent(event, 'model.message') ? event : undefined;
  }

  /** The tool call `toolCallId` of message `messageId`, or undefined. */
  toolCall(messageId: string, toolCallId: string): ToolCall | undefined {
    return this.message(messageId)?.tool_calls?.find((call) => call?.id === toolCallId);
  }

  /** The call with this id in any indexed message (used to name the call a `tool.response` answers). */
  findToolCall(toolCallId: string): ToolCall | undefined {
    for (const event of this.events.values()) {
      if (!isEvent(event, 'model.message')) continue;
      const call = event.tool_calls?.find((candidate) => candidate?.id === toolCallId);
      if (call) return call;
    }
    return undefined;
  }

  /** What is known about a thread (title and parent for subagent threads). */
  thread(threadId: string): ThreadInfo | undefined {
    return this.threads.get(threadId);
  }

  private addMessage(event: ModelMessageEvent): ModelMessageEvent {
    const existing = this.message(event.id);
    const carriesNothing = !event.tool_calls?.length && !textOf(event.content);
    if (existing && this.fromDeltas.has(event.id) && carriesNothing) return existing;
    const stored: ModelMessageEvent = {
      ...event,
      tool_calls: event.tool_calls?.map((call) => ({ ...call, function: { ...call.function } })),
    };
    if (!existing || !carriesNothing) this.fromDeltas.delete(event.id);
    this.events.set(event.id, stored);
    this.lastMessageOfThread.set(event.thread_id, event.id);
    return stored;
  }

  private mergeDelta(delta: ModelMessageDeltaEvent): ModelMessageEvent {
    const baseId = this.message(delta.id)
      ? delta.id
      : (this.lastMessageOfThread.get(delta.thread_id) ?? delta.id);
    const base: ModelMessageEvent = this.message(baseId) ?? {
      type: 'model.message',
      id: baseId,
      thread_id: delta.thread_id,
      content: null,
      tool_calls: [],
    };
    this.fromDeltas.add(baseId);
    if (delta.content) base.content = `${textOf(base.content)}${delta.content}`;
    if (delta.reasoning_content)
      base.reasoning_content = `${base.reasoning_content ?? ''}${delta.reasoning_content}`;
    if (delta.finish_reason) base.finish_reason = delta.finish_reason;
    if (delta.usage) base.usage = delta.usage;
    const calls = (base.tool_calls ??= []);
    for (const fragment of delta.tool_calls ?? []) {
      const call = (calls[fragment.index] ??= { id: '', function: { arguments: '' } });
      if (fragment.id) call.id = fragment.id;
      if (fragment.type) call.type = fragment.type;
      if (fragment.function?.name) call.function.name = fragment.function.name;
      if (fragment.function?.arguments) {
        call.function.arguments = `${call.function.arguments ?? ''}${fragment.function.arguments}`;
      }
      if (fragment.tool_info) call.tool_info = fragment.tool_info;
    }
    this.events.set(baseId, base);
    this.lastMessageOfThread.set(base.thread_id, baseId);
    return base;
  }
}

/** The text of message content: a string, or the concatenated text parts. */
export function textOf(content: ModelMessageEvent['content']): string {
  if (!content) return '';
  if (typeof content === 'string') return content;
  return content.map((part) => part.text ?? '').join('');
}
