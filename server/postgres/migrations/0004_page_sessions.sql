-- The approvals page's one-time login tickets and sessions (server/ui/session-tables.ts), shared by
-- every replica so a login link issued by one works on another. Secrets are stored as SHA-256
-- hashes; times are epoch milliseconds.
CREATE TABLE page_tickets (
  ticket_hash TEXT PRIMARY KEY,
  identity TEXT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE TABLE page_sessions (
  id_hash TEXT PRIMARY KEY,
  identity TEXT NOT NULL,
  credential TEXT NOT NULL,
  csrf TEXT NOT NULL,
  created_at BIGINT NOT NULL,
  expires_at BIGINT NOT NULL
);
CREATE INDEX page_sessions_by_identity ON page_sessions (identity);
