/**
 * Reads a turn's Server-Sent Events stream into validated events, with `eventsource-parser`.
 *
 * Framing observed on a live harness (OBSERVED.md): `data: <json>\nid: <seq>\n\n` with no `event:`
 * line; the event's kind is the JSON's `type`, and `id:` is the sequence number used as
 * `after_sequence_number` when re-subscribing.
 */
import { EventSourceParserStream } from 'eventsource-parser/stream';
import { SentinelError } from '../core/index.ts';
import { firstIssue, parseJsonOrUndefined } from './errors.ts';
import type { OpenStream } from './http.ts';
import { TurnEventSchema, type TurnEvent } from './schemas.ts';

/** One event as it arrived: its stream sequence number (from `id:`) and the validated event. */
export interface StreamedEvent {
  /** Sequence number from the SSE `id:` line; undefined when the harness sent none. */
  sequence: number | undefined;
  event: TurnEvent;
}

/** Longest single event accepted, in characters; a peer that never ends an event is cut off. */
const MAX_EVENT_CHARS = 8 * 1024 * 1024;

/**
 * Yields each event of the stream in order, then returns when the server closes it. Closes the
 * connection when the consumer stops early. Throws `SentinelError` (`timeout` when the stream went
 * silent for the idle limit, `unavailable` for a broken connection or an event that is not valid
 * JSON of the contract).
 */
export async function* readTurnEvents(stream: OpenStream): AsyncGenerator<StreamedEvent, void, undefined> {
  const messages = stream.body.pipeThrough(new TextDecoderStream()).pipeThrough(
    new EventSourceParserStream({
      onError: 'terminate',
      maxBufferSize: MAX_EVENT_CHARS,
      onComment: stream.touch,
    }),
  );
  const reader = messages.getReader();
  let finished = false;
  try {
    for (;;) {
      let next: Awaited<ReturnType<typeof reader.read>>;
      try {
        next = await reader.read();
      } catch (error) {
        throw stream.readError(error);
      }
      if (next.done) {
        finished = true;
        return;
      }
      stream.touch();
      yield { sequence: parseSequence(next.value.id), event: parseEventData(next.value.data) };
    }
  } finally {
    // Stopped early or failed: cancel the pipe so no read is left pending, then drop the connection.
    if (!finished) await reader.cancel().catch(() => undefined);
    stream.close();
  }
}

/** Validates one `data:` payload as a turn event. Throws `SentinelError('unavailable')`. */
export function parseEventData(data: string): TurnEvent {
  const json = parseJsonOrUndefined(data);
  if (json === undefined) {
    throw new SentinelError(
      'unavailable',
      `TrueForge harness sent an event that is not JSON: ${data.slice(0, 120)}`,
    );
  }
  const parsed = TurnEventSchema.safeParse(json);
  if (!parsed.success) {
    const { field, message } = firstIssue(parsed.error, 'event');
    const type =
      typeof (json as { type?: unknown })?.type === 'string' ? (json as { type: string }).type : 'event';
    throw new SentinelError(
      'unavailable',
      `TrueForge harness sent a malformed ${type} (${field}: ${message}); this harness version may not match openapi.json.`,
      { cause: parsed.error },
    );
  }
  return parsed.data;
}

function parseSequence(id: string | undefined): number | undefined {
  if (id === undefined || !/^\d+$/.test(id)) return undefined;
  return Number(id);
}
