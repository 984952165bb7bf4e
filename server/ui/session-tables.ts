/**
 * Where the approvals page's login tickets and sessions live: two tables, `page_tickets` and
 * `page_sessions`, in the server's store — `<data-dir>/sessions.sqlite` (embedded SQLite, shared by
 * the `--workers` of one data directory) or the PostgreSQL store every replica shares (migration
 * 0004) — so a login link issued by one replica or worker works on any other, and a session
 * started on one is valid on all. In-memory SQLite for an embedded server without a data dir.
 *
 * Secrets are stored as SHA-256 hashes (ticket, session id): reading the store does not let anyone
 * sign in. Times are epoch milliseconds. The SQL is the same on both engines (`?` placeholders).
 */
import { createHash } from 'node:crypto';
import { join } from 'node:path';
import type { SQLInputValue } from 'node:sqlite';
import { openDatabase } from '../gate/store/sqlite-schema.ts';

/** File of the page's sessions inside the data directory. */
export const SESSIONS_FILE = 'sessions.sqlite';

/** A stored session (`id_hash` is the SHA-256 of the cookie's value). */
export interface SessionRow {
  identity: string;
  credential: string;
  csrf: string;
  createdAt: number;
  expiresAt: number;
}

/** The operations the session store needs, on whichever engine. */
export interface SessionTables {
  putTicket(ticket: string, identity: string, expiresAt: number): Promise<void>;
  /** Deletes the ticket and returns its identity when it was unexpired at `now` (single use). */
  takeTicket(ticket: string, now: number): Promise<string | undefined>;
  putSession(id: string, row: SessionRow): Promise<void>;
  /** The session when unexpired at `now` (an expired one is deleted). */
  getSession(id: string, now: number): Promise<SessionRow | undefined>;
  setExpiry(id: string, expiresAt: number): Promise<void>;
  /** Deletes the session; returns it when it existed. */
  deleteSession(id: string): Promise<SessionRow | undefined>;
  /** Deletes every session of `identity`; returns their cookie hashes. */
  deleteSessionsOf(identity: string): Promise<string[]>;
  /** Deletes tickets and sessions expired at `now`. */
  sweep(now: number): Promise<void>;
  close(): Promise<void>;
}

/** The SHA-256 (hex) a secret is stored under. */
export const secretHash = (secret: string): string => createHash('sha256').update(secret).digest('hex');

export const SESSION_SCHEMA = `
CREATE TABLE IF NOT EXISTS page_tickets (
  ticket_hash TEXT PRIMARY KEY,
  identity TEXT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE TABLE IF NOT EXISTS page_sessions (
  id_hash TEXT PRIMARY KEY,
  identity TEXT NOT NULL,
  credential TEXT NOT NULL,
  csrf TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX IF NOT EXISTS page_sessions_by_identity ON page_sessions (identity);
`;

type Run = (sql: string, params: readonly (string | number)[]) => Promise<Record<string, unknown>[]>;

const toRow = (row: Record<string, unknown>): SessionRow => ({
  identity: String(row.identity),
  credential: String(row.credential),
  csrf: String(row.csrf),
  createdAt: Number(row.created_at),
  expiresAt: Number(row.expires_at),
});

/** The tables over `run` (one SQL statement with `?` parameters → its rows). */
function tablesOver(run: Run, close: () => Promise<void>): SessionTables {
  return {
    async putTicket(ticket, identity, expiresAt) {
      await run('INSERT INTO page_tickets (ticket_hash, identity, expires_at) VALUES (?, ?, ?)', [
        secretHash(ticket),
        identity,
        expiresAt,
      ]);
    },
    async takeTicket(ticket, now) {
      const [row] = await run(
        'DELETE FROM page_tickets WHERE ticket_hash = ? RETURNING identity, expires_at',
        [secretHash(ticket)],
      );
      return row && Number(row.expires_at) > now ? String(row.identity) : undefined;
    },
    async putSession(id, row) {
      await run(
        `INSERT INTO page_sessions (id_hash, identity, credential, csrf, created_at, expires_at)
         VALUES (?, ?, ?, ?, ?, ?)`,
        [secretHash(id), row.identity, row.credential, row.csrf, row.createdAt, row.expiresAt],
      );
    },
    async getSession(id, now) {
      const [row] = await run('SELECT * FROM page_sessions WHERE id_hash = ?', [secretHash(id)]);
      if (!row) return undefined;
      if (Number(row.expires_at) > now) return toRow(row);
      await run('DELETE FROM page_sessions WHERE id_hash = ?', [secretHash(id)]);
      return undefined;
    },
    async setExpiry(id, expiresAt) {
      await run('UPDATE page_sessions SET expires_at = ? WHERE id_hash = ?', [expiresAt, secretHash(id)]);
    },
    async deleteSession(id) {
      const [row] = await run('DELETE FROM page_sessions WHERE id_hash = ? RETURNING *', [secretHash(id)]);
      return row ? toRow(row) : undefined;
    },
    async deleteSessionsOf(identity) {
      const rows = await run('DELETE FROM page_sessions WHERE identity = ? RETURNING id_hash', [identity]);
      return rows.map((row) => String(row.id_hash));
    },
    async sweep(now) {
      await run('DELETE FROM page_tickets WHERE expires_at <= ?', [now]);
      await run('DELETE FROM page_sessions WHERE expires_at <= ?', [now]);
    },
    close,
  };
}

/** The tables in SQLite `file` (`':memory:'`: private to this process), created when missing. */
export function sqliteSessionTables(file: string): SessionTables {
  const db = openDatabase(file);
  db.exec(SESSION_SCHEMA);
  return tablesOver(
    async (sql, params) => db.prepare(sql).all(...(params as SQLInputValue[])),
    async () => {
      if (db.isOpen) db.close();
    },
  );
}

/** The tables of the data directory (`<dataDir>/sessions.sqlite`). */
export const dataDirSessionTables = (dataDir: string): SessionTables =>
  sqliteSessionTables(join(dataDir, SESSIONS_FILE));

/** The tables in the PostgreSQL store at `url` (migrated on open; migration 0004). */
export async function postgresSessionTables(url: string): Promise<SessionTables> {
  const { openPool, queryOn } = await import('../postgres/pool.ts');
  const pool = await openPool(url, { max: 2 });
  const query = queryOn(pool);
  return tablesOver(
    (sql, params) => query(sql, params),
    async () => {
      if (!pool.ended) await pool.end();
    },
  );
}
