/**
 * `ApprovalStore` on PostgreSQL (`sentinel serve --store postgres://…`): the same schema and
 * semantics as the SQLite store, shared by any number of server replicas and workers. Every state
 * change is one transaction holding one advisory lock (`STORE_LOCK`), so state changes are
 * serialised across all processes exactly as SQLite's `BEGIN IMMEDIATE` serialises them: a once
 * grant is consumed by one execution, identical window calls coalesce, the replay window and the
 * idempotency key hold across replicas. Reads are single statements (one consistent snapshot each).
 * Expiries another replica made on its way are kept in the row (`expiry_unreported`) so
 * `expireDue` reports each once, cluster-wide. Request statuses change only as the transition
 * table says (transitions.ts, as SQL by transition-sql.ts).
 *
 * Executions belong to the replica that started them: each open store holds a session advisory lock
 * (`OWNER_LOCK`, its random owner key) on a connection of its own, and records that key on the
 * executions it begins. `listOrphaned` — what reconciliation settles — returns only executions whose
 * owner is gone (its lock released when its connections dropped), claiming them for this replica in
 * the same serialised transaction, so a restarted or surviving replica never settles a live
 * replica's running call, and one survivor settles each orphan.
 *
 * Pieces: rows.ts (rows ⇄ records, shared with the SQLite store), postgres-rows.ts (its queries),
 * postgres-requests.ts (requests), postgres-executions.ts (executions); the freeze switch is here.
 */
import type pg from 'pg';
import type { FreezeState } from '../approval-request.ts';
import { migrate } from '../../postgres/migrate.ts';
import { lockedTransaction, openPool, queryOn, type Query } from '../../postgres/pool.ts';
import { executionMethods, OWNER_LOCK } from './postgres-executions.ts';
import { requestMethods } from './postgres-requests.ts';
import type { PostgresContext } from './postgres-rows.ts';
import { strOrNull } from './rows.ts';
import type { ApprovalStore } from './types.ts';

export { OWNER_LOCK } from './postgres-executions.ts';

/** Advisory lock key serialising the approval store's state changes. */
export const STORE_LOCK = 5_177_002;

/** Options of `openPostgresStore`: a URL (the store owns its pool) or a pool the caller owns. */
export type PostgresStoreOptions = { url: string; max?: number } | { pool: pg.Pool };

function freezeMethods(context: PostgresContext): Pick<ApprovalStore, 'getFreeze' | 'setFreeze'> {
  const getFreeze = async (): Promise<FreezeState> => {
    const [row] = await context.read('SELECT * FROM gate_freeze WHERE id = 1');
    return {
      frozen: Number(row!.frozen) === 1,
      reason: strOrNull(row!.reason),
      by: strOrNull(row!.frozen_by),
      since: strOrNull(row!.since),
    };
  };
  return {
    getFreeze,
    async setFreeze(frozen, reason, by, now) {
      await context.tx((q) =>
        q('UPDATE gate_freeze SET frozen = ?, reason = ?, frozen_by = ?, since = ? WHERE id = 1', [
          frozen ? 1 : 0,
          frozen ? reason : null,
          frozen ? by : null,
          frozen ? now.toISOString() : null,
        ]),
      );
      return getFreeze();
    },
  };
}

/** Takes this replica's liveness lock on a dedicated connection (held while the store is open). */
async function holdOwnerLock(pool: pg.Pool, ownerKey: number): Promise<pg.PoolClient> {
  const owner = await pool.connect();
  try {
    await owner.query('SELECT pg_advisory_lock($1, $2)', [OWNER_LOCK, ownerKey]);
    return owner;
  } catch (error) {
    owner.release(true);
    throw error;
  }
}

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
  const ownerKey = 1 + Math.floor(Math.random() * 2_147_483_646);
  let owner: pg.PoolClient;
  try {
    owner = await holdOwnerLock(pool, ownerKey);
  } catch (error) {
    if (owned) await pool.end();
    throw error;
  }
  const context: PostgresContext = {
    read: queryOn(pool),
    tx: <T>(fn: (query: Query) => Promise<T>) => lockedTransaction(pool, STORE_LOCK, fn),
    ownerKey,
  };
  let closed = false;
  return {
    ...requestMethods(context),
    ...executionMethods(context),
    ...freezeMethods(context),
    async close() {
      if (closed) return;
      closed = true;
      owner.release(true); // drops the session lock: this replica's executions are orphans from now
      if (owned && !pool.ended) await pool.end();
    },
  };
}
