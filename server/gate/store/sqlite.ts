/**
 * `ApprovalStore` on embedded SQLite (`node:sqlite`): one file in the data directory, WAL journal,
 * `synchronous=NORMAL` (durable at checkpoints, never corrupt), a busy timeout for a second process
 * (the CLI) touching the same file, versioned migrations tracked in `PRAGMA user_version`, and one
 * `BEGIN IMMEDIATE` transaction around every state change.
 */
import { mkdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { DatabaseSync, type SQLInputValue } from 'node:sqlite';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type {
  ApprovalDecision,
  ApprovalExecution,
  ApprovalGrant,
  ApprovalRequest,
  ApprovalStatus,
  FreezeState,
} from '../approval-request.ts';
import type {
  ApprovalStore,
  BeginExecution,
  BeginResult,
  CallBinding,
  FinishExecution,
  NewApprovalRequest,
  StoredExecution,
  TransitionResult,
} from './types.ts';

/** File name of the store inside the data directory. */
export const STORE_FILE = 'sentinel.db';

/** Ordered schema migrations; `PRAGMA user_version` is the number applied. Append, never edit. */
const MIGRATIONS: readonly string[] = [
  `CREATE TABLE approval_requests (
     id TEXT PRIMARY KEY,
     status TEXT NOT NULL,
     requester TEXT NOT NULL,
     created_by TEXT NOT NULL,
     cluster_context TEXT NOT NULL,
     cluster_server TEXT,
     tool TEXT NOT NULL,
     risk TEXT NOT NULL,
     arguments_json TEXT NOT NULL,
     requested_arguments_json TEXT NOT NULL,
     reason TEXT,
     policy_json TEXT NOT NULL,
     preview_json TEXT,
     requested_key TEXT NOT NULL,
     resolved_key TEXT NOT NULL,
     scope TEXT NOT NULL,
     created_at TEXT NOT NULL,
     expires_at TEXT NOT NULL,
     decision_json TEXT,
     grant_json TEXT,
     grant_expires_at TEXT,
     denial_delivered_at TEXT
   );
   CREATE INDEX approval_requests_by_requested_key ON approval_requests (requester, cluster_context, requested_key);
   CREATE INDEX approval_requests_by_resolved_key ON approval_requests (requester, cluster_context, resolved_key);
   CREATE INDEX approval_requests_by_status ON approval_requests (status, created_at);
   CREATE UNIQUE INDEX approval_requests_one_pending
     ON approval_requests (requester, cluster_context, requested_key) WHERE status = 'pending';
   CREATE TABLE executions (
     id TEXT PRIMARY KEY,
     request_id TEXT REFERENCES approval_requests (id),
     requester TEXT NOT NULL,
     cluster_context TEXT NOT NULL,
     tool TEXT NOT NULL,
     call_key TEXT NOT NULL,
     arguments_json TEXT NOT NULL,
     authorization TEXT NOT NULL,
     status TEXT NOT NULL,
     idempotency_key TEXT,
     consumed_grant INTEGER NOT NULL,
     effect_json TEXT,
     started_at TEXT NOT NULL,
     finished_at TEXT,
     outcome TEXT,
     result_json TEXT
   );
   CREATE INDEX executions_by_request ON executions (request_id, started_at);
   CREATE INDEX executions_by_call ON executions (requester, cluster_context, call_key, started_at);
   CREATE INDEX executions_by_status ON executions (status);
   CREATE UNIQUE INDEX executions_idempotency ON executions (requester, tool, idempotency_key)
     WHERE idempotency_key IS NOT NULL;
   CREATE TABLE freeze (
     id INTEGER PRIMARY KEY CHECK (id = 1),
     frozen INTEGER NOT NULL,
     reason TEXT,
     frozen_by TEXT,
     since TEXT
   );
   INSERT INTO freeze (id, frozen) VALUES (1, 0);`,
  // Bind requests and executions to the requester's token and to the cluster's API server URL;
  // record why a request was cancelled or superseded; key upstream replays by resolved effect.
  `ALTER TABLE approval_requests ADD COLUMN requester_credential TEXT NOT NULL DEFAULT '';
   ALTER TABLE approval_requests ADD COLUMN status_reason TEXT;
   ALTER TABLE approval_requests ADD COLUMN superseded_by TEXT;
   ALTER TABLE executions ADD COLUMN requester_credential TEXT NOT NULL DEFAULT '';
   ALTER TABLE executions ADD COLUMN cluster_server TEXT NOT NULL DEFAULT '';
   ALTER TABLE executions ADD COLUMN replay_key TEXT;
   CREATE INDEX executions_by_replay_key ON executions (requester, replay_key, started_at);
   CREATE INDEX approval_requests_by_requester_status ON approval_requests (requester, status);`,
];

/**
 * Columns added outside the numbered migrations, each only when missing (`PRAGMA table_info`), so
 * they apply whatever migration number another change appends: the harness tool call a request
 * answers (`client_ref`, unique by key) and the upstream approval an execution ran on.
 */
const ADDED_COLUMNS: readonly { table: string; column: string; type: string }[] = [
  { table: 'approval_requests', column: 'client_ref_json', type: 'TEXT' },
  { table: 'approval_requests', column: 'client_ref_key', type: 'TEXT' },
  { table: 'approval_requests', column: 'upstream_json', type: 'TEXT' },
];
const ADDED_INDEXES = [
  `CREATE UNIQUE INDEX IF NOT EXISTS approval_requests_one_per_client_ref
     ON approval_requests (client_ref_key) WHERE client_ref_key IS NOT NULL`,
];

/** SQL condition matching a `CallBinding` on a table with these columns (4 parameters). */
const BINDING_SQL = `requester = ? AND requester_credential = ? AND cluster_context = ? AND IFNULL(cluster_server, '') = ?`;
const bindingParams = (b: CallBinding): SQLInputValue[] => [
  b.requester,
  b.credential,
  b.cluster,
  b.clusterServer,
];
/**
 * The same without the token: what restricts an identity (a human's denial, the upstream replay
 * window) must hold across a rotation of its token; only what it was granted is bound to the token.
 */
const IDENTITY_SQL = `requester = ? AND cluster_context = ? AND IFNULL(cluster_server, '') = ?`;
const identityParams = (b: CallBinding): SQLInputValue[] => [b.requester, b.cluster, b.clusterServer];

/** Statuses of a request that can still let a call through (or be decided). */
const LIVE = `status IN ('pending', 'approved')`;

type Row = Record<string, SQLInputValue>;

const json = (value: unknown): string | null =>
  value === undefined || value === null ? null : JSON.stringify(value);
const parse = <T>(text: unknown): T =>
  (text === null || text === undefined ? null : JSON.parse(String(text))) as T;
const str = (value: unknown): string => String(value);
const strOrNull = (value: unknown): string | null =>
  value === null || value === undefined ? null : String(value);

function toExecution(row: Row): StoredExecution {
  return {
    id: str(row.id),
    requestId: strOrNull(row.request_id),
    requester: str(row.requester),
    credential: str(row.requester_credential ?? ''),
    cluster: str(row.cluster_context),
    clusterServer: str(row.cluster_server ?? ''),
    tool: str(row.tool),
    callKey: str(row.call_key),
    arguments: parse(row.arguments_json),
    authorization: str(row.authorization) as StoredExecution['authorization'],
    status: str(row.status) as StoredExecution['status'],
    idempotencyKey: strOrNull(row.idempotency_key),
    consumedGrant: Number(row.consumed_grant) === 1,
    effect: parse(row.effect_json),
    startedAt: str(row.started_at),
    finishedAt: strOrNull(row.finished_at),
    outcome: strOrNull(row.outcome),
    result: parse<CallToolResult | null>(row.result_json),
  };
}

function toPublicExecution(execution: StoredExecution): ApprovalExecution {
  return {
    id: execution.id,
    status: execution.status,
    arguments: execution.arguments,
    started_at: execution.startedAt,
    finished_at: execution.finishedAt,
    outcome: execution.outcome,
  };
}

/**
 * Opens (creating if needed) the store at `<dataDir>/sentinel.db`, or at `file` when given
 * (`':memory:'` for tests). Applies pending migrations. Throws if the file was written by a newer
 * Sentinel (a schema version this build does not know).
 */
export function openSqliteStore(options: { dataDir: string } | { file: string }): ApprovalStore {
  const file = 'file' in options ? options.file : join(options.dataDir, STORE_FILE);
  if (file !== ':memory:') mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  const db = new DatabaseSync(file);
  db.exec('PRAGMA journal_mode = WAL');
  db.exec('PRAGMA synchronous = NORMAL');
  db.exec('PRAGMA busy_timeout = 5000');
  db.exec('PRAGMA foreign_keys = ON');

  /** Runs `fn` in one write transaction; rolls back on any throw. */
  function transaction<T>(fn: () => T): T {
    db.exec('BEGIN IMMEDIATE');
    try {
      const result = fn();
      db.exec('COMMIT');
      return result;
    } catch (error) {
      db.exec('ROLLBACK');
      throw error;
    }
  }

  const version = Number((db.prepare('PRAGMA user_version').get() as Row).user_version);
  if (version > MIGRATIONS.length) {
    db.close();
    throw new Error(
      `${file} has schema version ${version}, newer than this Sentinel knows (${MIGRATIONS.length}); upgrade Sentinel.`,
    );
  }
  for (let next = version; next < MIGRATIONS.length; next += 1) {
    transaction(() => {
      db.exec(MIGRATIONS[next]!);
      db.exec(`PRAGMA user_version = ${next + 1}`);
    });
  }

  transaction(() => {
    for (const { table, column, type } of ADDED_COLUMNS) {
      const columns = db.prepare(`PRAGMA table_info(${table})`).all() as Row[];
      if (!columns.some((existing) => existing.name === column)) {
        db.exec(`ALTER TABLE ${table} ADD COLUMN ${column} ${type}`);
      }
    }
    for (const index of ADDED_INDEXES) db.exec(index);
  });

  const executionsOf = db.prepare('SELECT * FROM executions WHERE request_id = ? ORDER BY started_at, id');
  const selectRequest = db.prepare('SELECT * FROM approval_requests WHERE id = ?');

  function toRequest(row: Row): ApprovalRequest {
    const context = str(row.cluster_context);
    return {
      id: str(row.id),
      status: str(row.status) as ApprovalStatus,
      requester: str(row.requester),
      created_by: str(row.created_by),
      cluster:
        context === '' && row.cluster_server === null ? null : { context, server: str(row.cluster_server) },
      tool: str(row.tool),
      risk: str(row.risk) as ApprovalRequest['risk'],
      arguments: parse(row.arguments_json),
      requested_arguments: parse(row.requested_arguments_json),
      reason: strOrNull(row.reason),
      policy: parse(row.policy_json),
      preview: parse(row.preview_json),
      created_at: str(row.created_at),
      expires_at: str(row.expires_at),
      decision: parse(row.decision_json),
      grant: parse(row.grant_json),
      executions: (executionsOf.all(str(row.id)) as Row[]).map(toExecution).map(toPublicExecution),
      status_reason: strOrNull(row.status_reason),
      superseded_by: strOrNull(row.superseded_by),
      client_ref: parse(row.client_ref_json),
      upstream: parse(row.upstream_json),
    };
  }

  const getRequest = (id: string): ApprovalRequest | undefined => {
    const row = selectRequest.get(id) as Row | undefined;
    return row ? toRequest(row) : undefined;
  };

  const insertRequest = db.prepare(
    `INSERT INTO approval_requests (id, status, requester, created_by, cluster_context, cluster_server, tool, risk,
       arguments_json, requested_arguments_json, reason, policy_json, preview_json, requested_key, resolved_key, scope,
       created_at, expires_at, decision_json, grant_json, grant_expires_at, requester_credential,
       client_ref_json, client_ref_key, upstream_json)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
  );
  const doInsert = ({
    request: r,
    requestedKey,
    resolvedKey,
    scope,
    requesterCredential,
    clientRefKey,
  }: NewApprovalRequest): void => {
    insertRequest.run(
      r.id,
      r.status,
      r.requester,
      r.created_by,
      r.cluster?.context ?? '',
      r.cluster?.server ?? null,
      r.tool,
      r.risk,
      JSON.stringify(r.arguments),
      JSON.stringify(r.requested_arguments),
      r.reason,
      JSON.stringify(r.policy),
      json(r.preview),
      requestedKey,
      resolvedKey,
      scope,
      r.created_at,
      r.expires_at,
      json(r.decision),
      json(r.grant),
      r.grant?.expires_at ?? null,
      requesterCredential,
      json(r.client_ref),
      clientRefKey ?? null,
      json(r.upstream),
    );
  };
  const selectByClientRef = db.prepare('SELECT * FROM approval_requests WHERE client_ref_key = ?');
  const byClientRef = (key: string): ApprovalRequest | undefined => {
    const row = selectByClientRef.get(key) as Row | undefined;
    return row ? toRequest(row) : undefined;
  };

  const selectPending = db.prepare(
    `SELECT * FROM approval_requests
     WHERE requester = ? AND cluster_context = ? AND requested_key = ? AND status = 'pending' AND expires_at > ?`,
  );
  const cancel = db.prepare(
    `UPDATE approval_requests SET status = 'cancelled', status_reason = ? WHERE id = ? AND ${LIVE}`,
  );
  const expirePending = db.prepare(
    `UPDATE approval_requests SET status = 'expired' WHERE status = 'pending' AND expires_at <= ? RETURNING id`,
  );
  const expireGrants = db.prepare(
    `UPDATE approval_requests SET status = 'expired' WHERE status = 'approved' AND grant_expires_at <= ? RETURNING id`,
  );
  // Expired on the way by another method and not yet returned by `expireDue` (which reports them).
  const unreported = new Set<string>();
  const expire = (now: string): string[] => {
    const ids = [...(expirePending.all(now) as Row[]), ...(expireGrants.all(now) as Row[])].map((row) =>
      str(row.id),
    );
    for (const id of ids) unreported.add(id);
    return ids;
  };

  const selectByIdempotency = db.prepare(
    'SELECT * FROM executions WHERE requester = ? AND tool = ? AND idempotency_key = ?',
  );
  const selectExecution = db.prepare('SELECT * FROM executions WHERE id = ?');
  const insertExecution = db.prepare(
    `INSERT INTO executions (id, request_id, requester, cluster_context, tool, call_key, arguments_json, authorization,
       status, idempotency_key, consumed_grant, effect_json, started_at, requester_credential, cluster_server, replay_key)
     VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'executing', ?, ?, ?, ?, ?, ?, ?)`,
  );

  /** Applies `update` to a request that is pending and unexpired at `now`, in one transaction. */
  const transitionPending = (id: string, now: Date, update: () => void): TransitionResult =>
    transaction((): TransitionResult => {
      expire(now.toISOString());
      const current = getRequest(id);
      if (!current) return { ok: false, reason: 'not_found' };
      if (current.status === 'expired') return { ok: false, reason: 'expired', request: current };
      if (current.status !== 'pending') return { ok: false, reason: 'not_pending', request: current };
      update();
      return { ok: true, request: getRequest(id)! };
    });

  const store: ApprovalStore = {
    async createOrReusePending(input, now, supersede) {
      return transaction(() => {
        const at = now.toISOString();
        expire(at);
        const { request } = input;
        const existing = selectPending.get(
          request.requester,
          request.cluster?.context ?? '',
          input.requestedKey,
          at,
        ) as Row | undefined;
        if (existing) {
          const sameCredential = str(existing.requester_credential) === input.requesterCredential;
          const sameServer = strOrNull(existing.cluster_server) === (request.cluster?.server ?? null);
          if (sameCredential && sameServer) {
            const current = toRequest(existing);
            const reason = supersede?.(current);
            if (reason === undefined) {
              db.prepare('UPDATE approval_requests SET preview_json = ? WHERE id = ?').run(
                json(request.preview),
                current.id,
              );
              return { request: getRequest(current.id)!, reused: true };
            }
            db.prepare(
              `UPDATE approval_requests SET status = 'superseded', superseded_by = ?, status_reason = ? WHERE id = ?`,
            ).run(request.id, reason, current.id);
            doInsert(input);
            return { request: getRequest(request.id)!, reused: false, superseded: getRequest(current.id)! };
          }
          cancel.run(
            sameCredential
              ? `the context '${request.cluster?.context ?? ''}' now points at another cluster (${request.cluster?.server ?? 'none'})`
              : `identity '${request.requester}' now authenticates with a different token`,
            str(existing.id),
          );
          doInsert(input);
          return {
            request: getRequest(request.id)!,
            reused: false,
            cancelled: getRequest(str(existing.id))!,
          };
        }
        doInsert(input);
        return { request: getRequest(request.id)!, reused: false };
      });
    },

    async insert(input) {
      return transaction(() => {
        doInsert(input);
        return getRequest(input.request.id)!;
      });
    },

    async insertForClientRef(input) {
      return transaction(() => {
        const existing = byClientRef(input.clientRefKey);
        if (existing) return { request: existing, created: false };
        doInsert(input);
        return { request: getRequest(input.request.id)!, created: true };
      });
    },

    async findByClientRef(key) {
      return byClientRef(key);
    },

    async get(id) {
      return getRequest(id);
    },

    async list(filter = {}) {
      const conditions: [column: string, value: string][] = [];
      if (filter.status) conditions.push(['status', filter.status]);
      if (filter.tool) conditions.push(['tool', filter.tool]);
      if (filter.requester) conditions.push(['requester', filter.requester]);
      if (filter.clientRef) conditions.push(['client_ref_key', filter.clientRef]);
      const where = conditions.map(([column]) => `${column} = ?`);
      const params: SQLInputValue[] = conditions.map(([, value]) => value);
      const sql = `SELECT * FROM approval_requests ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
                   ORDER BY created_at DESC, id DESC LIMIT ?`;
      return (db.prepare(sql).all(...params, filter.limit ?? 200) as Row[]).map(toRequest);
    },

    async decide(id, decision: ApprovalDecision, grant: ApprovalGrant | null, now) {
      return transitionPending(id, now, () =>
        db
          .prepare(
            `UPDATE approval_requests SET status = ?, decision_json = ?, grant_json = ?, grant_expires_at = ? WHERE id = ?`,
          )
          .run(
            decision.decision === 'allow' ? 'approved' : 'denied',
            JSON.stringify(decision),
            json(grant),
            grant?.expires_at ?? null,
            id,
          ),
      );
    },

    async withdraw(id, now) {
      return transitionPending(id, now, () =>
        db.prepare(`UPDATE approval_requests SET status = 'withdrawn' WHERE id = ?`).run(id),
      );
    },

    async revokeGrant(id, reason, now) {
      return transaction((): TransitionResult => {
        expire(now.toISOString());
        const current = getRequest(id);
        if (!current) return { ok: false, reason: 'not_found' };
        if (current.status === 'expired') return { ok: false, reason: 'expired', request: current };
        if (current.status !== 'approved' || current.executions.length > 0) {
          return { ok: false, reason: 'not_approved', request: current };
        }
        cancel.run(reason, id);
        return { ok: true, request: getRequest(id)! };
      });
    },

    async cancelForRequester(requester, keep, reason) {
      return transaction(() => {
        const rows = db
          .prepare(
            `SELECT id FROM approval_requests WHERE requester = ? AND ${LIVE} AND (? IS NULL OR requester_credential <> ?)`,
          )
          .all(requester, keep ?? null, keep ?? null) as Row[];
        for (const row of rows) cancel.run(reason, str(row.id));
        return rows.map((row) => getRequest(str(row.id))!);
      });
    },

    async cancelGrant(id, reason) {
      return transaction(() => {
        const changed = db
          .prepare(
            `UPDATE approval_requests SET status = 'cancelled', status_reason = ? WHERE id = ? AND status = 'approved'`,
          )
          .run(reason, id);
        return Number(changed.changes) === 1 ? getRequest(id) : undefined;
      });
    },

    async liveRequesters() {
      return (
        db
          .prepare(`SELECT DISTINCT requester, requester_credential FROM approval_requests WHERE ${LIVE}`)
          .all() as Row[]
      ).map((row) => ({ requester: str(row.requester), credential: str(row.requester_credential) }));
    },

    async expireDue(now) {
      return transaction(() => {
        expire(now.toISOString());
        const ids = [...unreported];
        unreported.clear();
        return ids.map((id) => getRequest(id)!);
      });
    },

    async claimDenial(binding: CallBinding, key, now) {
      return transaction(() => {
        const at = now.toISOString();
        const row = db
          .prepare(
            `SELECT * FROM approval_requests
             WHERE ${IDENTITY_SQL} AND (requested_key = ? OR resolved_key = ?)
               AND status = 'denied' AND denial_delivered_at IS NULL AND expires_at > ?
             ORDER BY created_at DESC LIMIT 1`,
          )
          .get(...identityParams(binding), key, key, at) as Row | undefined;
        if (!row) return undefined;
        db.prepare('UPDATE approval_requests SET denial_delivered_at = ? WHERE id = ?').run(at, str(row.id));
        return toRequest(row);
      });
    },

    async findApprovedCall(binding, key, now) {
      const row = db
        .prepare(
          `SELECT * FROM approval_requests
           WHERE ${BINDING_SQL} AND (requested_key = ? OR resolved_key = ?)
             AND ((status = 'approved' AND grant_expires_at > ?) OR status = 'executing')
           ORDER BY created_at DESC LIMIT 1`,
        )
        .get(...bindingParams(binding), key, key, now.toISOString()) as Row | undefined;
      return row ? toRequest(row) : undefined;
    },

    async findWindowGrant(binding, tool, scope, now) {
      const row = db
        .prepare(
          `SELECT * FROM approval_requests
           WHERE ${BINDING_SQL} AND tool = ? AND scope = ? AND status = 'approved'
             AND grant_expires_at > ? AND json_extract(grant_json, '$.validity.window') IS NOT NULL
             AND json_extract(decision_json, '$.decision') = 'allow'
           ORDER BY grant_expires_at DESC LIMIT 1`,
        )
        .get(...bindingParams(binding), tool, scope, now.toISOString()) as Row | undefined;
      return row ? toRequest(row) : undefined;
    },

    async executionMark() {
      const last = db.prepare('SELECT IFNULL(MAX(rowid), 0) AS sequence FROM executions').get() as Row;
      const running = db.prepare(`SELECT id FROM executions WHERE status = 'executing'`).all() as Row[];
      return { sequence: Number(last.sequence), executing: running.map((row) => str(row.id)) };
    },

    async beginExecution(input: BeginExecution, now): Promise<BeginResult> {
      const at = now.toISOString();
      // A once grant, or the request recording an upstream approval, is consumed by this execution.
      const consumes =
        input.authorization === 'once' ||
        (input.authorization === 'upstream' && input.requestId !== undefined);
      try {
        return transaction((): BeginResult => {
          if (input.idempotencyKey !== undefined) {
            const used = selectByIdempotency.get(input.requester, input.tool, input.idempotencyKey) as
              Row | undefined;
            if (used) return { ok: false, reason: 'idempotency_key_used', existing: toExecution(used) };
          }
          if (input.replaySince) {
            const earlier = db
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
            if (earlier) return { ok: false, reason: 'duplicate', existing: toExecution(earlier) };
          }
          if (consumes) {
            const changed = db
              .prepare(
                `UPDATE approval_requests SET status = 'executing'
                 WHERE id = ? AND status = 'approved' AND grant_expires_at > ?`,
              )
              .run(input.requestId ?? '', at);
            if (Number(changed.changes) !== 1) {
              return { ok: false, reason: 'not_approved', request: getRequest(input.requestId ?? '') };
            }
          }
          if (input.authorization === 'window') {
            const active = db
              .prepare(
                `SELECT id FROM approval_requests
                 WHERE id = ? AND status = 'approved' AND grant_expires_at > ?
                   AND json_extract(decision_json, '$.decision') = 'allow'`,
              )
              .get(input.requestId ?? '', at);
            if (!active)
              return { ok: false, reason: 'not_approved', request: getRequest(input.requestId ?? '') };
            // Concurrent identical calls coalesce: one that runs now, ran when this call arrived, or
            // started since it arrived (the earliest such) takes this call's place.
            const keys = [input.callKey, input.replayKey ?? input.callKey];
            const running = db
              .prepare(
                `SELECT * FROM executions
                 WHERE request_id = ? AND (call_key IN (?, ?) OR replay_key IN (?, ?))
                   AND (status = 'executing' OR rowid > ? OR id IN (SELECT value FROM json_each(?)))
                 ORDER BY rowid LIMIT 1`,
              )
              .get(
                input.requestId ?? '',
                ...keys,
                ...keys,
                input.arrival?.sequence ?? Number.MAX_SAFE_INTEGER,
                JSON.stringify(input.arrival?.executing ?? []),
              ) as Row | undefined;
            if (running) return { ok: false, reason: 'duplicate', existing: toExecution(running) };
          }
          insertExecution.run(
            input.id,
            input.requestId ?? null,
            input.requester,
            input.cluster,
            input.tool,
            input.callKey,
            JSON.stringify(input.arguments),
            input.authorization,
            input.idempotencyKey ?? null,
            consumes ? 1 : 0,
            json(input.effect),
            at,
            input.credential,
            input.clusterServer,
            input.replayKey ?? input.callKey,
          );
          return { ok: true, execution: toExecution(selectExecution.get(input.id) as Row) };
        });
      } catch (error) {
        // Another process inserted the same idempotency key between our check and insert.
        if (
          input.idempotencyKey !== undefined &&
          /UNIQUE constraint failed: executions\./.test(String(error))
        ) {
          const used = selectByIdempotency.get(input.requester, input.tool, input.idempotencyKey) as Row;
          return { ok: false, reason: 'idempotency_key_used', existing: toExecution(used) };
        }
        throw error;
      }
    },

    async finishExecution(id, finish: FinishExecution, now) {
      transaction(() => {
        const row = selectExecution.get(id) as Row | undefined;
        if (!row) return;
        db.prepare(
          `UPDATE executions SET status = ?, finished_at = ?, outcome = ?, result_json = ? WHERE id = ?`,
        ).run(finish.status, now.toISOString(), finish.outcome, json(finish.result), id);
        if (Number(row.consumed_grant) === 1 && row.request_id !== null) {
          const requestStatus: ApprovalStatus =
            finish.status === 'succeeded' ? 'executed' : finish.status === 'stale' ? 'stale' : 'failed';
          db.prepare(`UPDATE approval_requests SET status = ? WHERE id = ? AND status = 'executing'`).run(
            requestStatus,
            str(row.request_id),
          );
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

    async getFreeze() {
      const row = db.prepare('SELECT * FROM freeze WHERE id = 1').get() as Row;
      return {
        frozen: Number(row.frozen) === 1,
        reason: strOrNull(row.reason),
        by: strOrNull(row.frozen_by),
        since: strOrNull(row.since),
      } satisfies FreezeState;
    },

    async setFreeze(frozen, reason, by, now) {
      transaction(() => {
        db.prepare('UPDATE freeze SET frozen = ?, reason = ?, frozen_by = ?, since = ? WHERE id = 1').run(
          frozen ? 1 : 0,
          frozen ? reason : null,
          frozen ? by : null,
          frozen ? now.toISOString() : null,
        );
      });
      return store.getFreeze();
    },

    async close() {
      if (db.isOpen) db.close();
    },
  };
  return store;
}
