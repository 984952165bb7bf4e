/**
 * The execution half of the PostgreSQL `ApprovalStore`: starting an execution (consuming a once
 * grant, refusing replays and duplicates), finishing it, reading executions back, and claiming the
 * orphans of replicas that died. A consumed grant's request moves through the transition table
 * (`begin`, then `succeed` / `fail` / `go_stale`), as in the SQLite store (sqlite-executions.ts).
 */
import type { Query } from '../../postgres/pool.ts';
import { applyEvent, getRequest, type PostgresContext } from './postgres-rows.ts';
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
  type Row,
} from './rows.ts';
import { byId } from './transition-sql.ts';
import { finishEvent } from './transitions.ts';
import type { ExecutionMethods, BeginExecution, BeginFailure, BeginResult } from './types.ts';

/** First key of the session advisory lock (`OWNER_LOCK`, owner key) each live replica holds. */
export const OWNER_LOCK = 5_177_004;

/** Whether the replica holding owner key `e.owner_key` is alive (holds its session lock), as SQL. */
const OWNER_ALIVE = `EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted
  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND l.classid = ${OWNER_LOCK} AND l.objid = e.owner_key AND l.objsubid = 2)`;

const INSERT_EXECUTION = `${insertSql('executions', [...executionColumns('authorized_by'), 'owner_key'])} RETURNING *`;

async function executionByIdempotency(q: Query, requester: string, tool: string, key: string) {
  const [row] = await q('SELECT * FROM executions WHERE requester = ? AND tool = ? AND idempotency_key = ?', [
    requester,
    tool,
    key,
  ]);
  return row ? toExecution(row) : undefined;
}

/** An upstream call identical to one that ran (or runs) inside the replay window. */
async function replayOf(q: Query, input: BeginExecution): Promise<Row | undefined> {
  if (!input.replaySince) return undefined;
  const [earlier] = await q(
    `SELECT * FROM executions
     WHERE ${IDENTITY_SQL} AND (call_key = ? OR replay_key = ?) AND authorized_by = ?
       AND status IN ('executing', 'succeeded', 'interrupted') AND started_at >= ?
     ORDER BY started_at DESC LIMIT 1`,
    [
      ...identityParams(input),
      input.callKey,
      input.replayKey ?? input.callKey,
      input.authorization,
      input.replaySince.toISOString(),
    ],
  );
  return earlier;
}

/**
 * For a window grant: refuses unless the grant is active, and finds the identical call that takes
 * this one's place — one that runs now, ran when this call arrived, or started since it arrived
 * (the earliest such), so concurrent identical calls coalesce.
 */
async function windowRefusal(q: Query, input: BeginExecution, at: string): Promise<BeginFailure | undefined> {
  const id = input.requestId ?? '';
  const active = await q(
    `SELECT id FROM approval_requests WHERE id = ? AND status = 'approved' AND grant_expires_at > ?
       AND (decision_json::jsonb ->> 'decision') = 'allow'`,
    [id, at],
  );
  if (active.length === 0) return { reason: 'not_approved', request: await getRequest(q, id) };
  const keys = [input.callKey, input.replayKey ?? input.callKey];
  const [running] = await q(
    `SELECT * FROM executions
     WHERE request_id = ? AND (call_key IN (?, ?) OR replay_key IN (?, ?))
       AND (status = 'executing' OR seq > ? OR id = ANY(?::text[]))
     ORDER BY seq LIMIT 1`,
    [
      id,
      ...keys,
      ...keys,
      input.arrival?.sequence ?? Number.MAX_SAFE_INTEGER,
      input.arrival?.executing ?? [],
    ],
  );
  return running ? { reason: 'duplicate', existing: toExecution(running) } : undefined;
}

/** `beginExecution` inside its transaction: each refusal in order, then the row. */
async function begin(q: Query, input: BeginExecution, now: Date, ownerKey: number): Promise<BeginResult> {
  const at = now.toISOString();
  if (input.idempotencyKey !== undefined) {
    const used = await executionByIdempotency(q, input.requester, input.tool, input.idempotencyKey);
    if (used) return { ok: false, reason: 'idempotency_key_used', existing: used };
  }
  const replay = await replayOf(q, input);
  if (replay) return { ok: false, reason: 'duplicate', existing: toExecution(replay) };
  if (consumesGrant(input) && (await applyEvent(q, 'begin', now, byId(input.requestId ?? ''))).length !== 1) {
    return { ok: false, reason: 'not_approved', request: await getRequest(q, input.requestId ?? '') };
  }
  const refusal = input.authorization === 'window' ? await windowRefusal(q, input, at) : undefined;
  if (refusal) return { ok: false, ...refusal };
  const [inserted] = await q(INSERT_EXECUTION, [...executionValues(input, at), ownerKey]);
  return { ok: true, execution: toExecution(inserted!) };
}

export function executionMethods(context: PostgresContext): ExecutionMethods {
  const { read, tx, ownerKey } = context;
  return {
    async executionMark() {
      // One statement: the last sequence and the running executions of the same snapshot.
      const [row] = await read(
        `SELECT COALESCE((SELECT MAX(seq) FROM executions), 0) AS sequence,
                COALESCE((SELECT json_agg(id) FROM executions WHERE status = 'executing'), '[]'::json) AS executing`,
      );
      return { sequence: Number(row!.sequence), executing: (row!.executing as string[]).map(String) };
    },
    beginExecution: (input, now) => tx((q) => begin(q, input, now, ownerKey)),
    async finishExecution(id, finish, now) {
      await tx(async (q) => {
        const [row] = await q('SELECT * FROM executions WHERE id = ?', [id]);
        if (!row) return;
        await q(
          `UPDATE executions SET status = ?, finished_at = ?, outcome = ?, result_json = ? WHERE id = ?`,
          [finish.status, now.toISOString(), finish.outcome, json(finish.result), id],
        );
        if (Number(row.consumed_grant) === 1 && row.request_id !== null) {
          await applyEvent(q, finishEvent(finish.status), now, byId(str(row.request_id)));
        }
      });
    },
    async getExecution(id) {
      const [row] = await read('SELECT * FROM executions WHERE id = ?', [id]);
      return row ? toExecution(row) : undefined;
    },
    findExecutionByIdempotencyKey: (requester, tool, key) =>
      executionByIdempotency(read, requester, tool, key),
    async listExecuting() {
      const rows = await read(`SELECT * FROM executions WHERE status = 'executing' ORDER BY started_at, seq`);
      return rows.map(toExecution);
    },
    // Orphans only (see postgres.ts): claimed by this replica for reconciliation.
    listOrphaned: () =>
      tx(async (q) => {
        const rows = await q(
          `UPDATE executions AS e SET owner_key = ?, reconciling = TRUE
           WHERE e.status = 'executing'
             AND ((e.owner_key = ? AND e.reconciling) OR e.owner_key IS NULL OR (e.owner_key <> ? AND NOT ${OWNER_ALIVE}))
           RETURNING e.*`,
          [ownerKey, ownerKey, ownerKey],
        );
        return rows
          .sort((a, b) => str(a.started_at).localeCompare(str(b.started_at)) || Number(a.seq) - Number(b.seq))
          .map(toExecution);
      }),
  };
}
