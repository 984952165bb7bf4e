/**
 * Shows a turn as it streams: the agent's words on stdout (as they arrive), tool activity on stderr
 * (each call with its arguments once its message is complete, each response in one line, approval
 * pauses, subagent threads). Lines from a subagent thread are prefixed with its thread id. Tool
 * activity is redacted and kept to one line each.
 */
import { oneLine, sanitizeText, redact } from '../../tools/index.ts';
import { textOf, type EventIndex } from './event-index.ts';
import { isEvent, type ModelMessageEvent, type TurnEvent } from '../../trueforge/index.ts';

export interface Output {
  stdout: { write(text: string): unknown };
  stderr: { write(text: string): unknown };
}

/** Longest tool arguments or response excerpt shown on one line, in characters. */
const EXCERPT_CHARS = 160;

export class TurnPrinter {
  private readonly output: Output;
  private readonly index: EventIndex;
  /** Characters of each message's content already written (deltas arrive piece by piece). */
  private readonly written = new Map<string, number>();
  /** Messages whose tool calls were already shown. */
  private readonly callsShown = new Set<string>();
  private midLine = false;

  constructor(output: Output, index: EventIndex) {
    this.output = output;
    this.index = index;
  }

  /** Shows one event; `merged` is what the index holds for it (the merged message for a delta). */
  show(event: TurnEvent, merged: TurnEvent): void {
    if (isEvent(merged, 'model.message')) {
      this.writeNewText(merged);
      const complete =
        event.type === 'model.message' ? Boolean(merged.tool_calls?.length) : Boolean(merged.finish_reason);
      if (complete) this.showCalls(merged);
      return;
    }
    if (isEvent(event, 'tool.response')) {
      const name = this.index.findToolCall(event.tool_call_id)?.tool_info?.name ?? event.tool_call_id;
      this.info(event.thread_id, `← ${name}: ${excerpt(event.content)}`);
    } else if (isEvent(event, 'tool.approval_required')) {
      this.info(event.thread_id, `⏸ waiting for approval of ${event.tool_calls.length} call(s)`);
    } else if (isEvent(event, 'thread.created')) {
      this.info(event.thread_id, `subagent thread started${event.title ? `: ${event.title}` : ''}`);
    }
  }

  /** Ends a partly written line of agent text. */
  flush(): void {
    if (this.midLine) this.output.stdout.write('\n');
    this.midLine = false;
  }

  private writeNewText(message: ModelMessageEvent): void {
    const text = textOf(message.content);
    const done = this.written.get(message.id) ?? 0;
    if (text.length <= done) return;
    if (done === 0 && message.thread_id !== 'main') {
      this.flush();
      this.output.stdout.write(`[${message.thread_id}] `);
    }
    // The model may echo cluster text (logs, events): no terminal escapes or hidden characters.
    const piece = sanitizeText(text.slice(done), { multiline: true });
    this.output.stdout.write(piece);
    this.midLine = !piece.endsWith('\n');
    this.written.set(message.id, text.length);
  }

  private showCalls(message: ModelMessageEvent): void {
    if (this.callsShown.has(message.id)) return;
    this.callsShown.add(message.id);
    for (const call of message.tool_calls ?? []) {
      if (!call) continue;
      const name = call.tool_info?.name ?? call.function.name ?? '(unnamed tool)';
      this.info(message.thread_id, `→ ${name} ${excerpt(call.function.arguments ?? '')}`);
    }
  }

  private info(threadId: string | null | undefined, line: string): void {
    this.flush();
    const prefix = threadId && threadId !== 'main' ? `[${threadId}] ` : '';
    this.output.stderr.write(`${prefix}${line}\n`);
  }
}

/** One redacted line of at most `EXCERPT_CHARS` characters, saying how long the whole was. */
function excerpt(text: string): string {
  const flat = oneLine(redact(text).value, Number.MAX_SAFE_INTEGER);
  return flat.length > EXCERPT_CHARS ? `${flat.slice(0, EXCERPT_CHARS)}… (${text.length} chars)` : flat;
}
