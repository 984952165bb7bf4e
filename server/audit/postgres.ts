/**
 * The audit log on PostgreSQL (`sentinel serve --store postgres://…`): table `audit_log` (migration
 * `0002_audit.sql`), append-only through SQL (triggers refuse UPDATE, DELETE and TRUNCATE), each row
 * the record's canonical JSON exactly as hashed. The chain stays linear with any number of writers
 * (replicas, workers): an append reads the head and inserts the next record in one transaction
 * holding the advisory lock `AUDIT_LOCK`, and `seq` is the primary key, so a fork cannot commit.
 */
import type pg from 'pg';
import { migrate } from '../postgres/migrate.ts';
import { lockedTransaction, openPool, queryOn, redactUrl } from '../postgres/pool.ts';
import type { AsyncAuditLog } from './async-log.ts';
import {
  asReadBack,
  canonicalJson,
  GENESIS_HASH,
  hashRecord,
  verifyChain,
  type AuditRecord,
  type StoredRow,
} from './record.ts';

/** Advisory lock key serialising audit appends. */
export const AUDIT_LOCK = 5_177_003;

type Row = { seq: string | number; time: string; hash: string; json: string };
const toRow = (row: Row): Required<StoredRow> => ({
  seq: Number(row.seq),
  time: row.time,
  hash: row.hash,
  json: row.json,
});

/**
 * Opens the audit log on PostgreSQL, applying pending migrations. With `url` the log owns its pool
 * (`close` ends it); with `pool` the caller owns it. Throws `SentinelError('unavailable')` when the
 * database cannot be reached or migrated.
 */
export async function openPostgresAuditLog(
  options: { url: string; max?: number } | { pool: pg.Pool; url?: string },
): Promise<AsyncAuditLog> {
  const owned = !('pool' in options);
  const pool = owned
    ? await openPool(options.url, options.max === undefined ? {} : { max: options.max })
    : options.pool;
  if (!owned) await migrate(pool);
  const read = queryOn(pool);
  const rows = async (options: { since?: string } = {}) =>
    (
      await read<Row>(
        options.since === undefined
          ? 'SELECT seq, time, hash, json FROM audit_log ORDER BY seq'
          : 'SELECT seq, time, hash, json FROM audit_log WHERE time >= ? ORDER BY seq',
        options.since === undefined ? [] : [options.since],
      )
    ).map(toRow);
  const head = async () => {
    const [row] = await read<Row>('SELECT seq, hash, time FROM audit_log ORDER BY seq DESC LIMIT 1');
    return row ? { seq: Number(row.seq), hash: row.hash, time: row.time } : undefined;
  };
  // Appends in flight: `close` waits for them (a shutdown flushes records just before closing).
  const pending = new Set<Promise<unknown>>();
  const track = <T>(promise: Promise<T>): Promise<T> => {
    pending.add(promise);
    void promise.then(
      () => pending.delete(promise),
      () => pending.delete(promise),
    );
    return promise;
  };
  return {
    location: options.url === undefined ? 'postgres (shared pool)' : redactUrl(options.url),
    append: (entry) =>
      track(
        lockedTransaction(pool, AUDIT_LOCK, async (q) => {
          const [previous] = await q<Row>('SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1');
          const unsigned = asReadBack({
            ...entry,
            seq: previous === undefined ? 1 : Number(previous.seq) + 1,
            prev_hash: previous?.hash ?? GENESIS_HASH,
          });
          const record: AuditRecord = { ...unsigned, hash: hashRecord(unsigned) };
          await q('INSERT INTO audit_log (seq, time, hash, json) VALUES (?, ?, ?, ?)', [
            record.seq,
            record.time,
            record.hash,
            canonicalJson(record),
          ]);
          return record;
        }),
      ),
    rows,
    records: async (options) => (await rows(options)).map((row) => JSON.parse(row.json) as AuditRecord),
    head,
    verify: async (options = {}) => verifyChain(await rows(), options),
    async close() {
      await Promise.allSettled([...pending]);
      if (owned && !pool.ended) await pool.end();
    },
  };
}
