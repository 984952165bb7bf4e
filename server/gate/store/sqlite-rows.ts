/**
 * Reading and inserting `approval_requests` rows on SQLite with prepared statements, through the
 * row codec both stores share (rows.ts).
 */
import type { DatabaseSync, SQLInputValue } from 'node:sqlite';
import type { ApprovalRequest } from '../approval-request.ts';
import { insertSql, REQUEST_COLUMNS, requestValues, str, toRequest } from './rows.ts';
import type { Row } from './sqlite-schema.ts';
import type { NewApprovalRequest } from './types.ts';

/** Reads requests (each with its executions) from `db`. */
export interface RequestReader {
  toRequest(row: Row): ApprovalRequest;
  /** The request with this id, if any. */
  get(id: string): ApprovalRequest | undefined;
  /** The request with this `clientRefKey`, if any. */
  byClientRef(key: string): ApprovalRequest | undefined;
  /** Inserts a request row (inside the caller's transaction). */
  insert(input: NewApprovalRequest): void;
}

export function requestReader(db: DatabaseSync): RequestReader {
  const executionsOf = db.prepare('SELECT * FROM executions WHERE request_id = ? ORDER BY started_at, id');
  const selectRequest = db.prepare('SELECT * FROM approval_requests WHERE id = ?');
  const selectByClientRef = db.prepare('SELECT * FROM approval_requests WHERE client_ref_key = ?');
  const insertRequest = db.prepare(insertSql('approval_requests', REQUEST_COLUMNS));
  const read = (row: Row): ApprovalRequest => toRequest(row, executionsOf.all(str(row.id)) as Row[]);
  const one = (row: Row | undefined) => (row ? read(row) : undefined);
  return {
    toRequest: read,
    get: (id) => one(selectRequest.get(id) as Row | undefined),
    byClientRef: (key) => one(selectByClientRef.get(key) as Row | undefined),
    insert: (input) => void insertRequest.run(...(requestValues(input) as SQLInputValue[])),
  };
}
