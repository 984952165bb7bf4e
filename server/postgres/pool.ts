/**
 * PostgreSQL connections for the store (`sentinel serve --store postgres://…`, env
 * `SENTINEL_STORE_URL`): one `pg` pool per process, migrated on open, and the transaction helper
 * every state change runs in.
 */
import pg from 'pg';
import { SentinelError } from '../../core/index.ts';
import { migrate } from './migrate.ts';
import { redactUrl } from './url.ts';

export { isPostgresUrl, redactUrl } from './url.ts';

/**
 * Opens a pool on `url` and applies pending migrations. Throws `SentinelError('unavailable')`
 * naming the (redacted) URL when the server cannot be reached or the schema cannot be migrated.
 */
export async function openPool(url: string, options: { max?: number } = {}): Promise<pg.Pool> {
  const pool = new pg.Pool({ connectionString: url, max: options.max ?? 10 });
  // An idle client's error (server restart) must not crash the process; the next query reconnects.
  pool.on('error', () => undefined);
  try {
    await migrate(pool);
  } catch (error) {
    await pool.end().catch(() => undefined);
    throw new SentinelError(
      'unavailable',
      `Cannot open the PostgreSQL store ${redactUrl(url)}: ${(error as Error).message}`,
      { field: '--store', cause: error },
    );
  }
  return pool;
}

/** A query function with `?` placeholders (numbered for `pg` in order), returning rows. */
export type Query = <R extends Record<string, unknown> = Record<string, unknown>>(
  text: string,
  params?: readonly unknown[],
) => Promise<R[]>;

/** Numbers `?` placeholders as `$1, $2, …` (the store's SQL never uses the jsonb `?` operator). */
export function numbered(text: string): string {
  let index = 0;
  return text.replace(/\?/g, () => `$${(index += 1)}`);
}

/** A `Query` on a pool or client. */
export function queryOn(target: pg.Pool | pg.PoolClient): Query {
  return async (text, params = []) => (await target.query(numbered(text), [...params])).rows;
}

/**
 * Runs `fn` in one transaction holding the advisory lock `lock` (released at commit or rollback),
 * so state changes under the same lock are serialised across every process on the database — the
 * same one-writer guarantee SQLite's `BEGIN IMMEDIATE` gives. Rolls back on any throw.
 */
export async function lockedTransaction<T>(
  pool: pg.Pool,
  lock: number,
  fn: (query: Query) => Promise<T>,
): Promise<T> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [lock]);
    const result = await fn(queryOn(client));
    await client.query('COMMIT');
    return result;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
