/**
 * PostgreSQL migration 1: the approval store's tables (server/gate/store/postgres.ts). Written in
 * TypeScript rather than as a `.sql` file only so that `approval_requests`' first columns come from
 * the one declaration SQLite's migration 0 uses too (server/gate/store/ddl.ts). Shipped: never
 * edited (test/server/postgres pins its text).
 */
import { APPROVAL_REQUESTS_V1, columnDefinitions, EXECUTION_COURSE_V1 } from '../../gate/store/ddl.ts';

export const sql = `-- The approval store (server/gate/store/postgres.ts): the same tables and columns as the SQLite
-- store, timestamps kept as ISO 8601 UTC text so both engines compare and return them alike.
CREATE TABLE approval_requests (
${columnDefinitions(APPROVAL_REQUESTS_V1, '  ')},
  requester_credential TEXT NOT NULL DEFAULT '',
  status_reason TEXT,
  superseded_by TEXT,
  client_ref_json TEXT,
  client_ref_key TEXT,
  upstream_json TEXT,
  -- An expiry not yet returned by expireDue (reported once across every replica).
  expiry_unreported BOOLEAN NOT NULL DEFAULT FALSE
);
CREATE INDEX approval_requests_by_requested_key ON approval_requests (requester, cluster_context, requested_key);
CREATE INDEX approval_requests_by_resolved_key ON approval_requests (requester, cluster_context, resolved_key);
CREATE INDEX approval_requests_by_status ON approval_requests (status, created_at);
CREATE INDEX approval_requests_by_requester_status ON approval_requests (requester, status);
CREATE UNIQUE INDEX approval_requests_one_pending
  ON approval_requests (requester, cluster_context, requested_key) WHERE status = 'pending';
CREATE UNIQUE INDEX approval_requests_one_per_client_ref
  ON approval_requests (client_ref_key) WHERE client_ref_key IS NOT NULL;
CREATE INDEX approval_requests_unreported ON approval_requests (id) WHERE expiry_unreported;

CREATE TABLE executions (
  -- Store order of executions (ExecutionMark); writes are serialised, so it is commit order.
  seq BIGSERIAL UNIQUE,
  id TEXT PRIMARY KEY,
  request_id TEXT REFERENCES approval_requests (id),
  requester TEXT NOT NULL,
  requester_credential TEXT NOT NULL DEFAULT '',
  cluster_context TEXT NOT NULL,
  cluster_server TEXT NOT NULL DEFAULT '',
  tool TEXT NOT NULL,
  call_key TEXT NOT NULL,
  replay_key TEXT,
  arguments_json TEXT NOT NULL,
  authorized_by TEXT NOT NULL,
${columnDefinitions(EXECUTION_COURSE_V1, '  ')}
);
CREATE INDEX executions_by_request ON executions (request_id, started_at);
CREATE INDEX executions_by_call ON executions (requester, cluster_context, call_key, started_at);
CREATE INDEX executions_by_replay_key ON executions (requester, replay_key, started_at);
CREATE INDEX executions_by_status ON executions (status);
CREATE UNIQUE INDEX executions_idempotency ON executions (requester, tool, idempotency_key)
  WHERE idempotency_key IS NOT NULL;

CREATE TABLE gate_freeze (
  id INTEGER PRIMARY KEY CHECK (id = 1),
  frozen INTEGER NOT NULL,
  reason TEXT,
  frozen_by TEXT,
  since TEXT
);
INSERT INTO gate_freeze (id, frozen) VALUES (1, 0);
`;
