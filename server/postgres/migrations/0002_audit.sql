-- The audit log (server/audit/postgres.ts): append-only through SQL, one row per record with its
-- canonical JSON exactly as hashed. Appends are serialised by an advisory lock (see the module).
CREATE TABLE audit_log (
  seq BIGINT PRIMARY KEY,
  time TEXT NOT NULL,
  hash TEXT NOT NULL,
  json TEXT NOT NULL
);
CREATE INDEX audit_log_time ON audit_log (time);
CREATE FUNCTION audit_log_append_only() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  RAISE EXCEPTION 'the audit log is append-only';
END;
$$;
CREATE TRIGGER audit_log_no_update BEFORE UPDATE OR DELETE ON audit_log
  FOR EACH ROW EXECUTE FUNCTION audit_log_append_only();
CREATE TRIGGER audit_log_no_truncate BEFORE TRUNCATE ON audit_log
  FOR EACH STATEMENT EXECUTE FUNCTION audit_log_append_only();
