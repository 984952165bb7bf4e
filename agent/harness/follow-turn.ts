/**
 * Follows one turn to its end: every streamed event goes into the index and to the printer, and the
 * turn's final state comes from `turn.done`. If the stream drops before `turn.done`, the turn is
 * picked up again — re-subscribed after the last sequence number while it runs, or read back (state
 * and persisted events) once it has finished.
 */
import { sentinelCommand, SentinelError } from '../../core/index.ts';
import type { EventIndex } from './event-index.ts';
import type { TurnPrinter } from './printer.ts';
import { isEvent, type StreamedEvent, type TrueForgeClient, type TurnState } from '../../trueforge/index.ts';

/** A finished turn. */
export interface TurnOutcome {
  turnId: string;
  /** Final state: `done` (maybe with `required_actions`), `cancelled` or `error`. */
  state: TurnState;
}

/** Re-subscriptions after dropped streams before giving up. */
const MAX_RECONNECTS = 3;

export interface FollowTurnOptions {
  client: TrueForgeClient;
  sessionId: string;
  index: EventIndex;
  printer: TurnPrinter;
  /** Turn id when already known (following an existing turn). */
  turnId?: string | undefined;
}

/**
 * Consumes `events` (a new turn's stream or a subscription) until `turn.done`. Throws
 * `SentinelError` when the harness closes the stream before saying which turn it is, or keeps dropping it.
 */
export async function followTurn(
  events: AsyncIterable<StreamedEvent>,
  { client, sessionId, index, printer, turnId: knownTurnId }: FollowTurnOptions,
): Promise<TurnOutcome> {
  let turnId = knownTurnId;
  let lastSequence: number | undefined;
  for (let attempt = 0; ; attempt++) {
    try {
      for await (const { sequence, event } of events) {
        if (sequence !== undefined) lastSequence = sequence;
        if (isEvent(event, 'turn.created')) turnId = event.turn_id;
        printer.show(event, index.add(event));
        if (isEvent(event, 'turn.done')) {
          printer.flush();
          if (!turnId)
            throw new SentinelError(
              'unavailable',
              'TrueForge harness finished a turn it never announced (no turn.created).',
            );
          return { turnId, state: event.state };
        }
      }
    } catch (error) {
      // A dropped connection, or a re-subscription refused because the live stream ended (412):
      // the turn's state says what to do next.
      const details = error instanceof SentinelError ? error.details : undefined;
      const recoverable = details?.streamDropped === true || (attempt > 0 && details?.status === 412);
      if (!recoverable) throw error;
    } finally {
      printer.flush();
    }
    if (!turnId) {
      throw new SentinelError(
        'unavailable',
        `TrueForge harness closed the event stream before announcing the turn; see where the session stands with: ${sentinelCommand()} investigate --resume-session ${sessionId}`,
      );
    }
    const turn = await client.getTurn(sessionId, turnId);
    if (turn.state.status !== 'running') {
      // Finished while we were disconnected: its persisted events hold what the stream did not show.
      for (const event of await client.listTurnEvents(sessionId, turnId)) {
        // Messages are re-shown idempotently (the printer knows what it wrote); other events once.
        const shown = event.type !== 'model.message' && index.get(event.id) !== undefined;
        const merged = index.add(event);
        if (!shown) printer.show(event, merged);
      }
      printer.flush();
      return { turnId, state: turn.state };
    }
    if (attempt >= MAX_RECONNECTS) {
      throw new SentinelError(
        'unavailable',
        `TrueForge harness dropped the event stream of turn ${turnId} ${attempt + 1} times; it is still running (resume with --resume-session ${sessionId}).`,
      );
    }
    events = client.subscribeTurn(sessionId, turnId, lastSequence);
  }
}
