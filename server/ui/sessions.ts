/**
 * Login tickets and sessions of the approvals page, in the server's store (session-tables.ts:
 * `<data-dir>/sessions.sqlite`, or the shared PostgreSQL), so a login link issued by one replica
 * or `--workers` worker works on another and a session is valid on every one. A ticket is the
 * secret of the one-time login URL `sentinel serve` prints: single use, valid for `ticketTtlMs`. A
 * session is what the HttpOnly cookie names: it carries the identity's name and a fingerprint of
 * the credential it signed in with (the router re-checks both against the identities on every
 * request, so a revoked or rotated token — `local`'s included — ends its sessions) and the CSRF
 * token every state-changing request must echo. Sessions are short-lived and sliding: each use
 * extends them by `sessionTtlMs`, up to `maxSessionMs` after login. `endSessionsFor` ends every
 * session of an identity at once (for revocation hooks); `onEnd` tells this process's live streams
 * to close (another process's streams find out at their next update, when the session is gone).
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';
import { secretHash, sqliteSessionTables, type SessionTables } from './session-tables.ts';

export interface Session {
  id: string;
  identity: string;
  /**
   * What the identity's credential was at sign-in (its token hash in tokens.yaml): a different value
   * later means the token was rotated, and the session ends.
   */
  credential: string;
  /** Echoed in `X-CSRF-Token` (or a `csrf` form field) by every state-changing request. */
  csrf: string;
  createdAt: number;
  expiresAt: number;
}

export interface SessionStoreOptions {
  /** One-time login URL lifetime. Default 15 minutes. */
  ticketTtlMs?: number;
  /** Idle session lifetime. Default 30 minutes. */
  sessionTtlMs?: number;
  /** Absolute session lifetime. Default 12 hours. */
  maxSessionMs?: number;
  now?: () => number;
  /** Where tickets and sessions are kept; default an in-memory SQLite private to this process. */
  tables?: SessionTables;
}

export interface SessionStore {
  /**
   * A new one-time login ticket for `identity`. Returned at once (it goes into the printed link);
   * stored by the time `ready` resolves, and `redeemTicket` of this process waits for that.
   */
  issueTicket(identity: string): string;
  /** Resolves when every ticket issued so far is stored. */
  ready(): Promise<void>;
  /** The identity a valid, unused ticket was issued for (the ticket is spent), or undefined. */
  redeemTicket(ticket: string): Promise<string | undefined>;
  /** Starts a session for `identity`, signed in with the credential fingerprinted by `credential`. */
  create(identity: string, credential: string): Promise<Session>;
  /** The live session `id` names (extended by this use), or undefined. */
  touch(id: string): Promise<Session | undefined>;
  /** Whether `presented` is the session's CSRF token (constant time). */
  checkCsrf(session: Session, presented: unknown): boolean;
  /** Ends the session `id` names (sign-out); a no-op for an unknown id. */
  destroy(id: string): Promise<void>;
  /**
   * Ends every session of `identity` (its token was revoked or rotated, or it lost the approver
   * role); returns how many ended. Listeners registered with `onEnd` hear of each.
   */
  endSessionsFor(identity: string): Promise<number>;
  /** Calls `listener` with each session ended by `destroy` or `endSessionsFor`; returns the unsubscribe. */
  onEnd(listener: (session: Session) => void): () => void;
  /** Session lifetime the cookie should carry, in seconds. */
  readonly cookieMaxAgeSeconds: number;
  /** Closes the tables. */
  close(): Promise<void>;
}

const secret = () => randomBytes(32).toString('base64url');

/** The session store over `options.tables` (see the module comment for the semantics). */
export function createSessionStore(options: SessionStoreOptions = {}): SessionStore {
  const now = options.now ?? Date.now;
  const ticketTtl = options.ticketTtlMs ?? 15 * 60_000;
  const sessionTtl = options.sessionTtlMs ?? 30 * 60_000;
  const maxSession = options.maxSessionMs ?? 12 * 60 * 60_000;
  const tables = options.tables ?? sqliteSessionTables(':memory:');
  const endListeners = new Set<(session: Session) => void>();
  let stored: Promise<unknown> = Promise.resolve();

  // Listeners know sessions by their cookie value; an identity-wide end knows only the hashes.
  const live = new Map<string, string>(); // id hash → id, for the sessions this process handed out
  const end = (session: Session) => {
    live.delete(secretHash(session.id));
    for (const listener of endListeners) listener(session);
  };
  const sweep = () => tables.sweep(now());

  return {
    issueTicket(identity) {
      const ticket = secret();
      const expiresAt = now() + ticketTtl;
      const write = sweep().then(() => tables.putTicket(ticket, identity, expiresAt));
      stored = Promise.all([stored, write]).catch(() => undefined); // a failed write: the link fails
      return ticket;
    },
    ready: async () => {
      await stored;
    },
    async redeemTicket(ticket) {
      await stored;
      return tables.takeTicket(ticket, now());
    },
    async create(identity, credential) {
      await sweep();
      const time = now();
      const session: Session = {
        id: secret(),
        identity,
        credential,
        csrf: secret(),
        createdAt: time,
        expiresAt: time + sessionTtl,
      };
      await tables.putSession(session.id, session);
      live.set(secretHash(session.id), session.id);
      return session;
    },
    async touch(id) {
      const time = now();
      const row = await tables.getSession(id, time);
      if (!row) return undefined;
      const expiresAt = Math.min(time + sessionTtl, row.createdAt + maxSession);
      if (expiresAt <= time) {
        await tables.deleteSession(id);
        return undefined;
      }
      await tables.setExpiry(id, expiresAt);
      return { id, ...row, expiresAt };
    },
    checkCsrf(session, presented) {
      if (typeof presented !== 'string') return false;
      const a = Buffer.from(presented);
      const b = Buffer.from(session.csrf);
      return a.length === b.length && timingSafeEqual(a, b);
    },
    async destroy(id) {
      const row = await tables.deleteSession(id);
      if (row) end({ id, ...row });
    },
    async endSessionsFor(identity) {
      const hashes = await tables.deleteSessionsOf(identity);
      for (const hash of hashes) {
        const id = live.get(hash);
        if (id !== undefined) end({ id, identity, credential: '', csrf: '', createdAt: 0, expiresAt: 0 });
      }
      return hashes.length;
    },
    onEnd(listener) {
      endListeners.add(listener);
      return () => endListeners.delete(listener);
    },
    cookieMaxAgeSeconds: Math.floor(sessionTtl / 1000),
    async close() {
      await stored;
      await tables.close();
    },
  };
}
