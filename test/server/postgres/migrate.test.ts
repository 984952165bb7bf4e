/**
 * The PostgreSQL store's shipped migrations (server/postgres/migrate.ts) without a server: their
 * order, and migration 1's text, which is built from the column declaration SQLite shares
 * (server/gate/store/ddl.ts) and must stay byte for byte what shipped.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { shippedMigrations } from '../../../server/postgres/migrate.ts';
import {
  APPROVAL_REQUESTS_V1,
  columnDefinitions,
  EXECUTION_COURSE_V1,
} from '../../../server/gate/store/ddl.ts';

const dir = mkdtempSync(join(tmpdir(), 'sentinel-pg-migrations-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

describe('PostgreSQL migrations as shipped', () => {
  it('lists the TypeScript and SQL migrations in version order', () => {
    const versions = shippedMigrations().map((migration) => migration.version);
    expect(versions[0]).toBe(1);
    expect(versions).toEqual([...versions].sort((a, b) => a - b));
    expect(new Set(versions).size).toBe(versions.length);
  });

  it('keeps migration 1 byte for byte as it shipped, its shared columns from the declaration SQLite uses too', () => {
    const shipped = readFileSync(new URL('fixtures/0001_approvals.sql', import.meta.url), 'utf8');
    const first = shippedMigrations()[0]!;
    expect(first).toEqual({ version: 1, name: '0001_approvals', sql: shipped });
    for (const columns of [APPROVAL_REQUESTS_V1, EXECUTION_COURSE_V1]) {
      expect(first.sql).toContain(columnDefinitions(columns, '  '));
    }
  });

  it('refuses two migrations with one version number', () => {
    writeFileSync(join(dir, '0001_again.sql'), 'SELECT 1;');
    expect(() => shippedMigrations(dir)).toThrow('two PostgreSQL migrations have version 1');
  });
});
