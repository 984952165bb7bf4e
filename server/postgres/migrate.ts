/**
 * Versioned schema migrations for the PostgreSQL store: numbered files in `./migrations`
 * (`0002_audit.sql`, …; append a file, never edit one), applied in order inside one
 * transaction that holds an advisory lock, so replicas starting together apply each once and a
 * failed migration leaves the schema as it was. Applied versions are rows of `sentinel_migrations`.
 * A migration is a `.sql` file, or a `.ts` module exporting `sql` where its text is built from a
 * declaration shared with the SQLite store (`0001_approvals.ts`), listed in `TYPESCRIPT_MIGRATIONS`.
 */
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Pool } from 'pg';
import { sql as approvals } from './migrations/0001_approvals.ts';

/** One migration: its number (the file name's prefix), name and SQL. */
export interface Migration {
  version: number;
  name: string;
  sql: string;
}

const MIGRATIONS_DIR = join(dirname(fileURLToPath(import.meta.url)), 'migrations');

/** Advisory lock key held while migrating ("sentinel migrate" as a number). */
export const MIGRATION_LOCK = 5_177_001;

/** The `.ts` migrations of `./migrations` (static imports: loading stays synchronous). */
const TYPESCRIPT_MIGRATIONS: readonly Migration[] = [{ version: 1, name: '0001_approvals', sql: approvals }];

/**
 * The migrations shipped in the repository (`.sql` files of `dir` and the TypeScript ones), ordered
 * by version. Throws when two share a version number.
 */
export function shippedMigrations(dir: string = MIGRATIONS_DIR): Migration[] {
  const files = readdirSync(dir)
    .filter((file) => /^\d{4}_[a-z0-9_]+\.sql$/.test(file))
    .map((file) => ({
      version: Number(file.slice(0, 4)),
      name: file.replace(/\.sql$/, ''),
      sql: readFileSync(join(dir, file), 'utf8'),
    }));
  const all = [...TYPESCRIPT_MIGRATIONS, ...files].sort((a, b) => a.version - b.version);
  const repeated = all.find((migration, i) => i > 0 && all[i - 1]!.version === migration.version);
  if (repeated) throw new Error(`two PostgreSQL migrations have version ${repeated.version}`);
  return all;
}

/**
 * Applies the migrations not yet applied. Returns the versions applied now (empty when up to date).
 * Throws when the database has a version this build does not know (written by a newer Sentinel),
 * or the first failing migration's error (nothing of this run is kept).
 */
export async function migrate(
  pool: Pool,
  migrations: readonly Migration[] = shippedMigrations(),
): Promise<number[]> {
  const client = await pool.connect();
  try {
    await client.query('BEGIN');
    await client.query('SELECT pg_advisory_xact_lock($1)', [MIGRATION_LOCK]);
    await client.query(
      `CREATE TABLE IF NOT EXISTS sentinel_migrations (
         version INTEGER PRIMARY KEY, name TEXT NOT NULL, applied_at TIMESTAMPTZ NOT NULL DEFAULT now())`,
    );
    const rows = (await client.query<{ version: number }>('SELECT version FROM sentinel_migrations')).rows;
    const applied = new Set(rows.map((row) => Number(row.version)));
    const known = new Set(migrations.map((migration) => migration.version));
    const unknown = [...applied].filter((version) => !known.has(version));
    if (unknown.length > 0) {
      throw new Error(
        `the database has schema version ${Math.max(...unknown)}, newer than this Sentinel knows (${Math.max(0, ...known)}); upgrade Sentinel.`,
      );
    }
    const now: number[] = [];
    for (const migration of migrations) {
      if (applied.has(migration.version)) continue;
      await client.query(migration.sql);
      await client.query('INSERT INTO sentinel_migrations (version, name) VALUES ($1, $2)', [
        migration.version,
        migration.name,
      ]);
      now.push(migration.version);
    }
    await client.query('COMMIT');
    return now;
  } catch (error) {
    await client.query('ROLLBACK').catch(() => undefined);
    throw error;
  } finally {
    client.release();
  }
}
