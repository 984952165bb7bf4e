/**
 * `ApprovalStore` on PostgreSQL (`sentinel serve --store postgres://…`): the same schema and
 * semantics as the SQLite store, shared by any number of server replicas and workers. Every state
 * change is one transaction holding one advisory lock (`STORE_LOCK`), so state changes are
 * serialised across all processes exactly as SQLite's `BEGIN IMMEDIATE` serialises them: a once
 * grant is consumed by one execution, identical window calls coalesce, the replay window and the
 * idempotency key hold across replicas. Reads are single statements (one consistent snapshot each).
 * Expiries another replica made on its way are kept in the row (`expiry_unreported`) so
 * `expireDue` reports each once, cluster-wide.
 *
 * Executions belong to the replica that started them: each open store holds a session advisory lock
 * (`OWNER_LOCK`, its random owner key) on a connection of its own, and records that key on the
 * executions it begins. `listOrphaned` — what reconciliation settles — returns only executions whose
 * owner is gone (its lock released when its connections dropped), claiming them for this replica in
 * the same serialised transaction, so a restarted or surviving replica never settles a live
 * replica's running call, and one survivor settles each orphan.
 */
import type pg from 'pg';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalExecution, ApprovalRequest, ApprovalStatus, FreezeState } from '../approval-request.ts';
import { migrate } from '../../postgres/migrate.ts';
import { lockedTransaction, openPool, queryOn, type Query } from '../../postgres/pool.ts';
import type {
  ApprovalStore,
  BeginExecution,
  BeginResult,
  CallBinding,
  NewApprovalRequest,
  StoredExecution,
  TransitionResult,
} from './types.ts';

/** Advisory lock key serialising the approval store's state changes. */
export const STORE_LOCK = 5_177_002;
/** First key of the session advisory lock (`OWNER_LOCK`, owner key) each live replica holds. */
export const OWNER_LOCK = 5_177_004;

/** Whether the replica holding owner key `e.owner_key` is alive (holds its session lock), as SQL. */
const OWNER_ALIVE = `EXISTS (SELECT 1 FROM pg_locks l WHERE l.locktype = 'advisory' AND l.granted
  AND l.database = (SELECT oid FROM pg_database WHERE datname = current_database())
  AND l.classid = ${OWNER_LOCK} AND l.objid = e.owner_key AND l.objsubid = 2)`;

type Row = Record<string, unknown>;

const BINDING_SQL = `requester = ? AND requester_credential = ? AND cluster_context = ? AND COALESCE(cluster_server, '') = ?`;
const bindingParams = (b: CallBinding) => [b.requester, b.credential, b.cluster, b.clusterServer];
/** Without the token: what restricts an identity holds across a rotation of its token. */
const IDENTITY_SQL = `requester = ? AND cluster_context = ? AND COALESCE(cluster_server, '') = ?`;
const identityParams = (b: CallBinding) => [b.requester, b.cluster, b.clusterServer];
const LIVE = `status IN ('pending', 'approved')`;

/** A request row with its executions (oldest first) as one JSON array, read in one statement. */
const REQUEST_SELECT = `SELECT r.*, COALESCE((SELECT json_agg(e ORDER BY e.started_at, e.id) FROM executions e
  WHERE e.request_id = r.id), '[]'::json) AS executions FROM approval_requests r`;

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
    authorization: str(row.authorized_by) as StoredExecution['authorization'],
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

const toPublicExecution = (execution: StoredExecution): ApprovalExecution => ({
  id: execution.id,
  status: execution.status,
  arguments: execution.arguments,
  started_at: execution.startedAt,
  finished_at: execution.finishedAt,
  outcome: execution.outcome,
});

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
    executions: ((row.executions ?? []) as Row[]).map(toExecution).map(toPublicExecution),
    status_reason: strOrNull(row.status_reason),
    superseded_by: strOrNull(row.superseded_by),
    client_ref: parse(row.client_ref_json),
    upstream: parse(row.upstream_json),
  };
}

/** Options of `openPostgresStore`: a URL (the store owns its pool) or a pool the caller owns. */
export type PostgresStoreOptions = { url: string; max?: number } | { pool: pg.Pool };

/**
 * Opens the store on PostgreSQL, applying pending migrations (see `server/postgres/migrate.ts`).
 * With `url` the store owns its pool and `close` ends it; with `pool`, `close` leaves it open.
 * Throws `SentinelError('unavailable')` when the database cannot be reached or migrated.
 */
export async function openPostgresStore(options: PostgresStoreOptions): Promise<ApprovalStore> {
  const owned = 'url' in options;
  const pool = owned
    ? await openPool(options.url, options.max === undefined ? {} : { max: options.max })
    : options.pool;
  if (!owned) await migrate(pool);
  const read = queryOn(pool);
  // This replica's liveness: a session lock held on a dedicated connection while the store is open.
  const ownerKey = 1 + Math.floor(Math.random() * 2_147_483_646);
  const owner = await pool.connect();
  let closed = false;
  try {
    await owner.query('SELECT pg_advisory_lock($1, $2)', [OWNER_LOCK, ownerKey]);
  } catch (error) {
    owner.release(true);
    if (owned) await pool.end();
    throw error;
  }
  const tx = <T>(fn: (query: Query) => Promise<T>) => lockedTransaction(pool, STORE_LOCK, fn);

  const getRequest = async (q: Query, id: string) => {
    const [row] = await q(`${REQUEST_SELECT} WHERE r.id = ?`, [id]);
    return row ? toRequest(row) : undefined;
  };
  const mustGet = async (q: Query, id: string) => (await getRequest(q, id))!;
  const byClientRef = async (q: Query, key: string) => {
    const [row] = await q(`${REQUEST_SELECT} WHERE r.client_ref_key = ?`, [key]);
    return row ? toRequest(row) : undefined;
  };

  const doInsert = async (q: Query, input: NewApprovalRequest) => {
    const { request: r } = input;
    await q(
      `INSERT INTO approval_requests (id, status, requester, created_by, cluster_context, cluster_server, tool, risk,
         arguments_json, requested_arguments_json, reason, policy_json, preview_json, requested_key, resolved_key, scope,
         created_at, expires_at, decision_json, grant_json, grant_expires_at, requester_credential,
         client_ref_json, client_ref_key, upstream_json)
       VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
      [
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
        input.requestedKey,
        input.resolvedKey,
        input.scope,
        r.created_at,
        r.expires_at,
        json(r.decision),
        json(r.grant),
        r.grant?.expires_at ?? null,
        input.requesterCredential,
        json(r.client_ref),
        input.clientRefKey ?? null,
        json(r.upstream),
      ],
    );
  };

  const cancel = (q: Query, reason: string, id: string) =>
    q(`UPDATE approval_requests SET status = 'cancelled', status_reason = ? WHERE id = ? AND ${LIVE}`, [
      reason,
      id,
    ]);
  /** Expires what is due at `now` (ISO); marked unreported until `expireDue` returns it. */
  const expire = async (q: Query, now: string) => {
    await q(
      `UPDATE approval_requests SET status = 'expired', expiry_unreported = TRUE
       WHERE (status = 'pending' AND expires_at <= ?) OR (status = 'approved' AND grant_expires_at <= ?)`,
      [now, now],
    );
  };
  const executionByIdempotency = async (q: Query, requester: string, tool: string, key: string) => {
    const [row] = await q(
      'SELECT * FROM executions WHERE requester = ? AND tool = ? AND idempotency_key = ?',
      [requester, tool, key],
    );
    return row ? toExecution(row) : undefined;
  };

  const transitionPending = (id: string, now: Date, update: (q: Query) => Promise<unknown>) =>
    tx(async (q): Promise<TransitionResult> => {
      await expire(q, now.toISOString());
      const current = await getRequest(q, id);
      if (!current) return { ok: false, reason: 'not_found' };
      if (current.status === 'expired') return { ok: false, reason: 'expired', request: current };
      if (current.status !== 'pending') return { ok: false, reason: 'not_pending', request: current };
      await update(q);
      return { ok: true, request: await mustGet(q, id) };
    });

  const store: ApprovalStore = {
    createOrReusePending: (input, now, supersede) =>
      tx(async (q) => {
        const at = now.toISOString();
        await expire(q, at);
        const { request } = input;
        const [existing] = await q(
          `SELECT * FROM approval_requests
           WHERE requester = ? AND cluster_context = ? AND requested_key = ? AND status = 'pending' AND expires_at > ?`,
          [request.requester, request.cluster?.context ?? '', input.requestedKey, at],
        );
        if (existing) {
          const existingId = str(existing.id);
          const sameCredential = str(existing.requester_credential) === input.requesterCredential;
          const sameServer = strOrNull(existing.cluster_server) === (request.cluster?.server ?? null);
          if (sameCredential && sameServer) {
            const current = await mustGet(q, existingId);
            const reason = supersede?.(current);
            if (reason === undefined) {
              await q('UPDATE approval_requests SET preview_json = ? WHERE id = ?', [
                json(request.preview),
                existingId,
              ]);
              return { request: await mustGet(q, existingId), reused: true };
            }
            await q(
              `UPDATE approval_requests SET status = 'superseded', superseded_by = ?, status_reason = ? WHERE id = ?`,
              [request.id, reason, existingId],
            );
            await doInsert(q, input);
            return {
              request: await mustGet(q, request.id),
              reused: false,
              superseded: await mustGet(q, existingId),
            };
          }
          await cancel(
            q,
            sameCredential
              ? `the context '${request.cluster?.context ?? ''}' now points at another cluster (${request.cluster?.server ?? 'none'})`
              : `identity '${request.requester}' now authenticates with a different token`,
            existingId,
          );
          await doInsert(q, input);
          return {
            request: await mustGet(q, request.id),
            reused: false,
            cancelled: await mustGet(q, existingId),
          };
        }
        await doInsert(q, input);
        return { request: await mustGet(q, request.id), reused: false };
      }),

    insert: (input) =>
      tx(async (q) => {
        await doInsert(q, input);
        return mustGet(q, input.request.id);
      }),

    insertForClientRef: (input) =>
      tx(async (q) => {
        const existing = await byClientRef(q, input.clientRefKey);
        if (existing) return { request: existing, created: false };
        await doInsert(q, input);
        return { request: await mustGet(q, input.request.id), created: true };
      }),

    findByClientRef: (key) => byClientRef(read, key),
    get: (id) => getRequest(read, id),

    async list(filter = {}) {
      const conditions: [column: string, value: string][] = [];
      if (filter.status) conditions.push(['status', filter.status]);
      if (filter.tool) conditions.push(['tool', filter.tool]);
      if (filter.requester) conditions.push(['requester', filter.requester]);
      if (filter.clientRef) conditions.push(['client_ref_key', filter.clientRef]);
      const where = conditions.map(([column]) => `r.${column} = ?`);
      const rows = await read(
        `${REQUEST_SELECT} ${where.length ? `WHERE ${where.join(' AND ')}` : ''}
         ORDER BY r.created_at DESC, r.id DESC LIMIT ?`,
        [...conditions.map(([, value]) => value), filter.limit ?? 200],
      );
      return rows.map(toRequest);
    },

    decide: (id, decision, grant, now) =>
      transitionPending(id, now, (q) =>
        q(
          `UPDATE approval_requests SET status = ?, decision_json = ?, grant_json = ?, grant_expires_at = ? WHERE id = ?`,
          [
            decision.decision === 'allow' ? 'approved' : 'denied',
            JSON.stringify(decision),
            json(grant),
            grant?.expires_at ?? null,
            id,
          ],
        ),
      ),

    withdraw: (id, now) =>
      transitionPending(id, now, (q) =>
        q(`UPDATE approval_requests SET status = 'withdrawn' WHERE id = ?`, [id]),
      ),

    revokeGrant: (id, reason, now) =>
      tx(async (q): Promise<TransitionResult> => {
        await expire(q, now.toISOString());
        const current = await getRequest(q, id);
        if (!current) return { ok: false, reason: 'not_found' };
        if (current.status === 'expired') return { ok: false, reason: 'expired', request: current };
        if (current.status !== 'approved' || current.executions.length > 0) {
          return { ok: false, reason: 'not_approved', request: current };
        }
        await cancel(q, reason, id);
        return { ok: true, request: await mustGet(q, id) };
      }),

    cancelForRequester: (requester, keep, reason) =>
      tx(async (q) => {
        const rows = await q(
          `SELECT id FROM approval_requests WHERE requester = ? AND ${LIVE}
             AND (?::text IS NULL OR requester_credential <> ?::text) ORDER BY created_at, id`,
          [requester, keep ?? null, keep ?? null],
        );
        const changed: ApprovalRequest[] = [];
        for (const row of rows) {
          await cancel(q, reason, str(row.id));
          changed.push(await mustGet(q, str(row.id)));
        }
        return changed;
      }),

    cancelGrant: (id, reason) =>
      tx(async (q) => {
        const changed = await q(
          `UPDATE approval_requests SET status = 'cancelled', status_reason = ? WHERE id = ? AND status = 'approved'
           RETURNING id`,
          [reason, id],
        );
        return changed.length === 1 ? getRequest(q, id) : undefined;
      }),

    async liveRequesters() {
      const rows = await read(
        `SELECT DISTINCT requester, requester_credential FROM approval_requests WHERE ${LIVE}`,
      );
      return rows.map((row) => ({
        requester: str(row.requester),
        credential: str(row.requester_credential),
      }));
    },

    expireDue: (now) =>
      tx(async (q) => {
        await expire(q, now.toISOString());
        const ids = await q(
          `UPDATE approval_requests SET expiry_unreported = FALSE WHERE expiry_unreported RETURNING id, created_at`,
        );
        ids.sort(
          (a, b) => str(a.created_at).localeCompare(str(b.created_at)) || str(a.id).localeCompare(str(b.id)),
        );
        const changed: ApprovalRequest[] = [];
        for (const row of ids) changed.push(await mustGet(q, str(row.id)));
        return changed;
      }),

    claimDenial: (binding, key, now) =>
      tx(async (q) => {
        const at = now.toISOString();
        const [row] = await q(
          `${REQUEST_SELECT}
           WHERE ${IDENTITY_SQL.replace(/(requester|cluster_context|cluster_server)\b/g, 'r.$1')}
             AND (r.requested_key = ? OR r.resolved_key = ?)
             AND r.status = 'denied' AND r.denial_delivered_at IS NULL AND r.expires_at > ?
           ORDER BY r.created_at DESC LIMIT 1`,
          [...identityParams(binding), key, key, at],
        );
        if (!row) return undefined;
        await q('UPDATE approval_requests SET denial_delivered_at = ? WHERE id = ?', [at, str(row.id)]);
        return toRequest(row);
      }),

    async findApprovedCall(binding, key, now) {
      const [row] = await read(
        `${REQUEST_SELECT}
         WHERE ${BINDING_SQL.replace(/(requester|requester_credential|cluster_context|cluster_server)\b/g, 'r.$1')}
           AND (r.requested_key = ? OR r.resolved_key = ?)
           AND ((r.status = 'approved' AND r.grant_expires_at > ?) OR r.status = 'executing')
         ORDER BY r.created_at DESC LIMIT 1`,
        [...bindingParams(binding), key, key, now.toISOString()],
      );
      return row ? toRequest(row) : undefined;
    },

    async findWindowGrant(binding, tool, scope, now) {
      const [row] = await read(
        `${REQUEST_SELECT}
         WHERE ${BINDING_SQL.replace(/(requester|requester_credential|cluster_context|cluster_server)\b/g, 'r.$1')}
           AND r.tool = ? AND r.scope = ? AND r.status = 'approved' AND r.grant_expires_at > ?
           AND (r.grant_json::jsonb -> 'validity' -> 'window') IS NOT NULL
           AND jsonb_typeof(r.grant_json::jsonb -> 'validity' -> 'window') <> 'null'
           AND (r.decision_json::jsonb ->> 'decision') = 'allow'
         ORDER BY r.grant_expires_at DESC LIMIT 1`,
        [...bindingParams(binding), tool, scope, now.toISOString()],
      );
      return row ? toRequest(row) : undefined;
    },

    async executionMark() {
      // One statement: the last sequence and the running executions of the same snapshot.
      const [row] = await read(
        `SELECT COALESCE((SELECT MAX(seq) FROM executions), 0) AS sequence,
                COALESCE((SELECT json_agg(id) FROM executions WHERE status = 'executing'), '[]'::json) AS executing`,
      );
      return { sequence: Number(row!.sequence), executing: (row!.executing as string[]).map(String) };
    },

    async beginExecution(input: BeginExecution, now): Promise<BeginResult> {
      const at = now.toISOString();
      const consumes =
        input.authorization === 'once' ||
        (input.authorization === 'upstream' && input.requestId !== undefined);
      return tx(async (q): Promise<BeginResult> => {
        if (input.idempotencyKey !== undefined) {
          const used = await executionByIdempotency(q, input.requester, input.tool, input.idempotencyKey);
          if (used) return { ok: false, reason: 'idempotency_key_used', existing: used };
        }
        if (input.replaySince) {
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
          if (earlier) return { ok: false, reason: 'duplicate', existing: toExecution(earlier) };
        }
        if (consumes) {
          const changed = await q(
            `UPDATE approval_requests SET status = 'executing'
             WHERE id = ? AND status = 'approved' AND grant_expires_at > ? RETURNING id`,
            [input.requestId ?? '', at],
          );
          if (changed.length !== 1) {
            return { ok: false, reason: 'not_approved', request: await getRequest(q, input.requestId ?? '') };
          }
        }
        if (input.authorization === 'window') {
          const active = await q(
            `SELECT id FROM approval_requests
             WHERE id = ? AND status = 'approved' AND grant_expires_at > ?
               AND (decision_json::jsonb ->> 'decision') = 'allow'`,
            [input.requestId ?? '', at],
          );
          if (active.length === 0) {
            return { ok: false, reason: 'not_approved', request: await getRequest(q, input.requestId ?? '') };
          }
          const keys = [input.callKey, input.replayKey ?? input.callKey];
          const [running] = await q(
            `SELECT * FROM executions
             WHERE request_id = ? AND (call_key IN (?, ?) OR replay_key IN (?, ?))
               AND (status = 'executing' OR seq > ? OR id = ANY(?::text[]))
             ORDER BY seq LIMIT 1`,
            [
              input.requestId ?? '',
              ...keys,
              ...keys,
              input.arrival?.sequence ?? Number.MAX_SAFE_INTEGER,
              input.arrival?.executing ?? [],
            ],
          );
          if (running) return { ok: false, reason: 'duplicate', existing: toExecution(running) };
        }
        const [inserted] = await q(
          `INSERT INTO executions (id, request_id, requester, cluster_context, tool, call_key, arguments_json,
             authorized_by, status, idempotency_key, consumed_grant, effect_json, started_at, requester_credential,
             cluster_server, replay_key, owner_key)
           VALUES (?, ?, ?, ?, ?, ?, ?, ?, 'executing', ?, ?, ?, ?, ?, ?, ?, ?) RETURNING *`,
          [
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
            ownerKey,
          ],
        );
        return { ok: true, execution: toExecution(inserted!) };
      });
    },

    async finishExecution(id, finish, now) {
      await tx(async (q) => {
        const [row] = await q('SELECT * FROM executions WHERE id = ?', [id]);
        if (!row) return;
        await q(
          `UPDATE executions SET status = ?, finished_at = ?, outcome = ?, result_json = ? WHERE id = ?`,
          [finish.status, now.toISOString(), finish.outcome, json(finish.result), id],
        );
        if (Number(row.consumed_grant) === 1 && row.request_id !== null) {
          const requestStatus: ApprovalStatus =
            finish.status === 'succeeded' ? 'executed' : finish.status === 'stale' ? 'stale' : 'failed';
          await q(`UPDATE approval_requests SET status = ? WHERE id = ? AND status = 'executing'`, [
            requestStatus,
            str(row.request_id),
          ]);
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

    // Orphans only (see the module comment): claimed by this replica for reconciliation.
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

    async getFreeze() {
      const [row] = await read('SELECT * FROM gate_freeze WHERE id = 1');
      return {
        frozen: Number(row!.frozen) === 1,
        reason: strOrNull(row!.reason),
        by: strOrNull(row!.frozen_by),
        since: strOrNull(row!.since),
      } satisfies FreezeState;
    },

    async setFreeze(frozen, reason, by, now) {
      await tx((q) =>
        q('UPDATE gate_freeze SET frozen = ?, reason = ?, frozen_by = ?, since = ? WHERE id = 1', [
          frozen ? 1 : 0,
          frozen ? reason : null,
          frozen ? by : null,
          frozen ? now.toISOString() : null,
        ]),
      );
      return store.getFreeze();
    },

    async close() {
      if (closed) return;
      closed = true;
      owner.release(true); // drops the session lock: this replica's executions are orphans from now
      if (owned && !pool.ended) await pool.end();
    },
  };
  return store;
}
