/**
 * Approval events across replicas of one PostgreSQL store, over `LISTEN/NOTIFY`: each replica
 * notifies channel `sentinel_approval_events` with `{replica, type, id}` for the events it publishes,
 * and listens on one dedicated connection for the others'. A received event is read back from the
 * store (the payload carries no request data) and handed to `onRemote`; the replica's own
 * notifications are ignored. The listening connection reconnects after an error.
 */
import pg from 'pg';
import type { Logger } from 'pino';

/** The notification channel. */
export const APPROVAL_EVENTS_CHANNEL = 'sentinel_approval_events';

/** What a notification carries: the sending replica, the event type and the approval request id. */
export interface RemoteEventNote {
  replica: string;
  type: string;
  id: string;
}

export interface EventBridge {
  /** Notifies the other replicas of an event of this one (errors are logged, never thrown). */
  notify(type: string, requestId: string): void;
  close(): Promise<void>;
}

/**
 * Starts listening on `url` as replica `replica`; `onRemote` receives every other replica's note.
 * Resolves once the LISTEN is in place.
 */
export async function startEventBridge(options: {
  url: string;
  replica: string;
  onRemote: (note: RemoteEventNote) => void;
  logger?: Logger;
}): Promise<EventBridge> {
  const { url, replica, onRemote, logger } = options;
  const sender = new pg.Pool({ connectionString: url, max: 2 });
  sender.on('error', () => undefined);
  let listener: pg.Client | undefined;
  let closed = false;
  const listen = async (): Promise<void> => {
    const client = new pg.Client({ connectionString: url });
    client.on('notification', (message) => {
      try {
        const note = JSON.parse(message.payload ?? '') as RemoteEventNote;
        if (note.replica !== replica && typeof note.id === 'string') onRemote(note);
      } catch (error) {
        logger?.warn({ err: error }, 'unreadable approval event notification');
      }
    });
    client.on('error', (error) => {
      logger?.warn({ err: error }, 'approval event listener connection lost; reconnecting');
      void client.end().catch(() => undefined);
      if (!closed) setTimeout(() => void listen().catch(() => undefined), 1_000).unref();
    });
    await client.connect();
    await client.query(`LISTEN ${APPROVAL_EVENTS_CHANNEL}`);
    listener = client;
  };
  await listen();
  return {
    notify(type, id) {
      const payload = JSON.stringify({ replica, type, id } satisfies RemoteEventNote);
      sender
        .query('SELECT pg_notify($1, $2)', [APPROVAL_EVENTS_CHANNEL, payload])
        .catch((error: unknown) =>
          logger?.warn({ err: error }, 'approval event not sent to the other replicas'),
        );
    },
    async close() {
      closed = true;
      await listener?.end().catch(() => undefined);
      await sender.end().catch(() => undefined);
    },
  };
}
