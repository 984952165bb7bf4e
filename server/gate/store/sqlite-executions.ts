/**
 * The execution half of the SQLite `ApprovalStore`: starting an execution (consuming a once grant,
 * refusing replays and duplicates), finishing it, and reading executions back. A consumed grant's
 * request moves through the transition table (`begin`, then `succeed` / `fail` / `go_stale`).
 */
import type { SQLInputValue } from 'node:sqlite';
import {
  consumesGrant,
  executionColumns,
  executionValues,
  IDENTITY_SQL,
  identityParams,
  insertSql,
  json,
  str,
  toExecution,
} from './rows.ts';
import type { SqliteContext } from './sqlite-requests.ts';
import type { Row } from './sqlite-schema.ts';
import { byId } from './sqlite-transitions.ts';
import { finishEvent } from './transitions.ts';
import { orphanLister, ownerParams, SET_OWNER } from './sqlite-owner.ts';
import type { ExecutionMethods, BeginExecution, BeginFailure, BeginResult } from './types.ts';

const INSERT_EXECUTION = insertSql('executions', executionColumns('authorization'));

/** An upstream call identical to one that ran (or runs) inside the replay window. */
function replayOf(context: SqliteContext, input: BeginExecution): Row | undefined {
  if (!input.replaySince) return undefined;
  return context.db
    .prepare(
      `SELECT * FROM executions
       WHERE ${IDENTITY_SQL} AND (call_key = ? OR replay_key = ?) AND authorization = ?
         AND status IN ('executing', 'succeeded', 'interrupted') AND started_at >= ?
       ORDER BY started_at DESC LIMIT 1`,
    )
    .get(
      ...identityParams(input),
      input.callKey,
      input.replayKey ?? input.callKey,
      input.authorization,
      input.replaySince.toISOString(),
    ) as Row | undefined;
}

/**
 * For a window grant: refuses unless the grant is active, and finds the identical call that takes
 * this one's place — one that runs now, ran when this call arrived, or started since it arrived
 * (the earliest such), so concurrent identical calls coalesce.
 */
function windowRefusal(context: SqliteContext, input: BeginExecution, at: string): BeginFailure | undefined {
  const { db, requests } = context;
  const id = input.requestId ?? '';
  const active = db
    .prepare(
      `SELECT id FROM approval_requests WHERE id = ? AND status = 'approved' AND grant_expires_at > ?
         AND json_extract(decision_json, '$.decision') = 'allow'`,
    )
    .get(id, at);
  if (!active) return { reason: 'not_approved', request: requests.get(id) };
  const keys = [input.callKey, input.replayKey ?? input.callKey];
  const running = db
    .prepare(
      `SELECT * FROM executions
       WHERE request_id = ? AND (call_key IN (?, ?) OR replay_key IN (?, ?))
         AND (status = 'executing' OR rowid > ? OR id IN (SELECT value FROM json_each(?)))
       ORDER BY rowid LIMIT 1`,
    )
    .get(
      id,
      ...keys,
      ...keys,
      input.arrival?.sequence ?? Number.MAX_SAFE_INTEGER,
      JSON.stringify(input.arrival?.executing ?? []),
    ) as Row | undefined;
  return running ? { reason: 'duplicate', existing: toExecution(running) } : undefined;
}

/** `beginExecution` inside its transaction: each refusal in order, then the row. */
function begin(context: SqliteContext, input: BeginExecution, now: Date): BeginResult {
  const { db, requests } = context;
  const at = now.toISOString();
  const used = idempotencyUse(context, input);
  if (used) return { ok: false, reason: 'idempotency_key_used', existing: toExecution(used) };
  const replay = replayOf(context, input);
  if (replay) return { ok: false, reason: 'duplicate', existing: toExecution(replay) };
  if (consumesGrant(input) && context.apply('begin', now, byId(input.requestId ?? '')).length !== 1) {
    return { ok: false, reason: 'not_approved', request: requests.get(input.requestId ?? '') };
  }
  const refusal = input.authorization === 'window' ? windowRefusal(context, input, at) : undefined;
  if (refusal) return { ok: false, ...refusal };
  db.prepare(INSERT_EXECUTION).run(...(executionValues(input, at) as SQLInputValue[]));
  // Who runs it (sqlite-owner.ts), in the same transaction.
  db.prepare(SET_OWNER).run(...ownerParams(context.owner), input.id);
  return {
    ok: true,
    execution: toExecution(db.prepare('SELECT * FROM executions WHERE id = ?').get(input.id) as Row),
  };
}

function idempotencyUse(context: SqliteContext, input: BeginExecution): Row | undefined {
  if (input.idempotencyKey === undefined) return undefined;
  return context.db
    .prepare('SELECT * FROM executions WHERE requester = ? AND tool = ? AND idempotency_key = ?')
    .get(input.requester, input.tool, input.idempotencyKey) as Row | undefined;
}

export function executionMethods(context: SqliteContext): ExecutionMethods {
  const { db } = context;
  const selectExecution = db.prepare('SELECT * FROM executions WHERE id = ?');
  const selectByIdempotency = db.prepare(
    'SELECT * FROM executions WHERE requester = ? AND tool = ? AND idempotency_key = ?',
  );
  const orphans = orphanLister(db, context.transaction, context.owner);
  return {
    async executionMark() {
      const last = db.prepare('SELECT IFNULL(MAX(rowid), 0) AS sequence FROM executions').get() as Row;
      const running = db.prepare(`SELECT id FROM executions WHERE status = 'executing'`).all() as Row[];
      return { sequence: Number(last.sequence), executing: running.map((row) => str(row.id)) };
    },
    async beginExecution(input, now) {
      try {
        return context.transaction(() => begin(context, input, now));
      } catch (error) {
        // Another process inserted the same idempotency key between our check and insert.
        const used = /UNIQUE constraint failed: executions\./.test(String(error))
          ? idempotencyUse(context, input)
          : undefined;
        if (used) return { ok: false, reason: 'idempotency_key_used', existing: toExecution(used) };
        throw error;
      }
    },
    async finishExecution(id, finish, now) {
      context.transaction(() => {
        const row = selectExecution.get(id) as Row | undefined;
        if (!row) return;
        db.prepare(
          `UPDATE executions SET status = ?, finished_at = ?, outcome = ?, result_json = ? WHERE id = ?`,
        ).run(finish.status, now.toISOString(), finish.outcome, json(finish.result), id);
        if (Number(row.consumed_grant) === 1 && row.request_id !== null) {
          context.apply(finishEvent(finish.status), now, byId(str(row.request_id)));
        }
      });
    },
    async getExecution(id) {
      const row = selectExecution.get(id) as Row | undefined;
      return row ? toExecution(row) : undefined;
    },
    async findExecutionByIdempotencyKey(requester, tool, key) {
      const row = selectByIdempotency.get(requester, tool, key) as Row | undefined;
      return row ? toExecution(row) : undefined;
    },
    async listExecuting() {
      return (
        db.prepare(`SELECT * FROM executions WHERE status = 'executing' ORDER BY started_at`).all() as Row[]
      ).map(toExecution);
    },
    // Orphans only (sqlite-owner.ts): what no live process runs, claimed for this one to settle.
    listOrphaned: async () => orphans().map(toExecution),
  };
}
