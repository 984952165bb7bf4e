/**
 * The audit log on PostgreSQL (`sentinel serve --store postgres://…`): table `audit_log` (migration
 * `0002_audit.sql`), append-only through SQL (triggers refuse UPDATE, DELETE and TRUNCATE), each row
 * the record's canonical JSON exactly as hashed. The chain stays linear with any number of writers
 * (replicas, workers): an append reads the head and inserts the next record in one transaction
 * holding the advisory lock `AUDIT_LOCK`, and `seq` is the primary key, so a fork cannot commit.
 * Appends are grouped (`group-commit.ts`): those made while one transaction is in flight are
 * written together by the next, one multi-row INSERT after one head read.
 */
import type pg from 'pg';
import { migrate } from '../postgres/migrate.ts';
import { lockedTransaction, openPool, queryOn, redactUrl } from '../postgres/pool.ts';
import type { AsyncAuditLog } from './async-log.ts';
import { groupCommit, type GroupCommitOptions } from './group-commit.ts';
import { GENESIS_HASH, verifyChain, type AuditRecord, type StoredRow } from './record.ts';
import { sealRecord, type PreparedEntry } from './seal.ts';

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
  options: ({ url: string; max?: number } | { pool: pg.Pool; url?: string }) & {
    groupCommit?: GroupCommitOptions;
  },
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
  // One locked transaction per batch: the head is read once, the records go in one INSERT.
  const commit = (batch: readonly PreparedEntry[]) =>
    lockedTransaction(pool, AUDIT_LOCK, async (q) => {
      const [previous] = await q<Row>('SELECT seq, hash FROM audit_log ORDER BY seq DESC LIMIT 1');
      let seq = previous === undefined ? 0 : Number(previous.seq);
      let prevHash = previous?.hash ?? GENESIS_HASH;
      const sealed = batch.map((prepared) => {
        const one = sealRecord(prepared, (seq += 1), prevHash);
        prevHash = one.record.hash;
        return one;
      });
      await q(
        `INSERT INTO audit_log (seq, time, hash, json) VALUES ${sealed.map(() => '(?, ?, ?, ?)').join(', ')}`,
        sealed.flatMap(({ record, json }) => [record.seq, record.time, record.hash, json]),
      );
      return sealed.map(({ record }): AuditRecord => record);
    });
  const group = groupCommit(commit, options.groupCommit);
  return {
    location: options.url === undefined ? 'postgres (shared pool)' : redactUrl(options.url),
    append: (entry) => group.append(entry),
    flush: () => group.settled(),
    rows,
    records: async (options) => (await rows(options)).map((row) => JSON.parse(row.json) as AuditRecord),
    head,
    verify: async (options = {}) => verifyChain(await rows(), options),
    async close() {
      await group.settled();
      if (owned && !pool.ended) await pool.end();
    },
  };
}
