/**
 * Login tickets and sessions of the approvals page, in memory (a restart logs everyone out, which
 * is the safe direction). A ticket is the secret of the one-time login URL `sentinel serve` prints:
 * single use, valid for `ticketTtlMs`. A session is what the HttpOnly cookie names: it carries the
 * identity's name and a fingerprint of the credential it signed in with (the router re-checks both
 * against tokens.yaml on every request, so a revoked or rotated token ends its sessions) and the CSRF
 * token every state-changing request must echo. Sessions are short-lived and sliding: each use
 * extends them by `sessionTtlMs`, up to `maxSessionMs` after login. `endSessionsFor` ends every
 * session of an identity at once (for revocation hooks); `onEnd` tells live streams to close.
 */
import { randomBytes, timingSafeEqual } from 'node:crypto';

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
}

export interface SessionStore {
  /** A new one-time login ticket for `identity`. */
  issueTicket(identity: string): string;
  /** The identity a valid, unused ticket was issued for (the ticket is spent), or undefined. */
  redeemTicket(ticket: string): string | undefined;
  /** Starts a session for `identity`, signed in with the credential fingerprinted by `credential`. */
  create(identity: string, credential: string): Session;
  /** The live session `id` names (extended by this use), or undefined. */
  touch(id: string): Session | undefined;
  /** Whether `presented` is the session's CSRF token (constant time). */
  checkCsrf(session: Session, presented: unknown): boolean;
  /** Ends the session `id` names (sign-out); a no-op for an unknown id. */
  destroy(id: string): void;
  /**
   * Ends every session of `identity` (its token was revoked or rotated, or it lost the approver
   * role); returns how many ended. Listeners registered with `onEnd` hear of each.
   */
  endSessionsFor(identity: string): number;
  /** Calls `listener` with each session ended by `destroy` or `endSessionsFor`; returns the unsubscribe. */
  onEnd(listener: (session: Session) => void): () => void;
  /** Session lifetime the cookie should carry, in seconds. */
  readonly cookieMaxAgeSeconds: number;
}

const secret = () => randomBytes(32).toString('base64url');

export function createSessionStore(options: SessionStoreOptions = {}): SessionStore {
  const now = options.now ?? Date.now;
  const ticketTtl = options.ticketTtlMs ?? 15 * 60_000;
  const sessionTtl = options.sessionTtlMs ?? 30 * 60_000;
  const maxSession = options.maxSessionMs ?? 12 * 60 * 60_000;
  const tickets = new Map<string, { identity: string; expiresAt: number }>();
  const sessions = new Map<string, Session>();
  const endListeners = new Set<(session: Session) => void>();

  const end = (session: Session) => {
    sessions.delete(session.id);
    for (const listener of endListeners) listener(session);
  };

  const sweep = () => {
    const time = now();
    for (const [key, ticket] of tickets) if (ticket.expiresAt <= time) tickets.delete(key);
    for (const [key, session] of sessions) if (session.expiresAt <= time) sessions.delete(key);
  };

  return {
    issueTicket(identity) {
      sweep();
      const ticket = secret();
      tickets.set(ticket, { identity, expiresAt: now() + ticketTtl });
      return ticket;
    },
    redeemTicket(ticket) {
      const found = tickets.get(ticket);
      tickets.delete(ticket);
      return found && found.expiresAt > now() ? found.identity : undefined;
    },
    create(identity, credential) {
      sweep();
      const time = now();
      const session: Session = {
        id: secret(),
        identity,
        credential,
        csrf: secret(),
        createdAt: time,
        expiresAt: time + sessionTtl,
      };
      sessions.set(session.id, session);
      return session;
    },
    touch(id) {
      const session = sessions.get(id);
      const time = now();
      if (!session || session.expiresAt <= time) {
        sessions.delete(id);
        return undefined;
      }
      session.expiresAt = Math.min(time + sessionTtl, session.createdAt + maxSession);
      return session;
    },
    checkCsrf(session, presented) {
      if (typeof presented !== 'string') return false;
      const a = Buffer.from(presented);
      const b = Buffer.from(session.csrf);
      return a.length === b.length && timingSafeEqual(a, b);
    },
    destroy(id) {
      const session = sessions.get(id);
      if (session) end(session);
    },
    endSessionsFor(identity) {
      const ending = [...sessions.values()].filter((session) => session.identity === identity);
      for (const session of ending) end(session);
      return ending.length;
    },
    onEnd(listener) {
      endListeners.add(listener);
      return () => endListeners.delete(listener);
    },
    cookieMaxAgeSeconds: Math.floor(sessionTtl / 1000),
  };
}
