import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { afterAll, describe, expect, it } from 'vitest';
import { openSqliteStore, STORE_FILE } from '../../../../server/gate/store/sqlite.ts';
import { MIGRATIONS } from '../../../../server/gate/store/sqlite-schema.ts';
import {
  APPROVAL_REQUESTS_V1,
  columnDefinitions,
  EXECUTION_COURSE_V1,
} from '../../../../server/gate/store/ddl.ts';
import { describeApprovalStoreContract, newRequest } from './contract.ts';

const dir = mkdtempSync(join(tmpdir(), 'sentinel-store-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));
let files = 0;

describeApprovalStoreContract('SQLite in memory', () => openSqliteStore({ file: ':memory:' }));
describeApprovalStoreContract('SQLite file', () =>
  openSqliteStore({ file: join(dir, `contract-${(files += 1)}.db`) }),
);

describe('SQLite store', () => {
  it('uses WAL and NORMAL sync, records its schema version, and keeps requests across reopen', async () => {
    const dataDir = join(dir, 'data');
    const store = openSqliteStore({ dataDir });
    const { request } = await store.createOrReusePending(newRequest(), new Date('2025-01-31T02:10:00.000Z'));
    await store.close();
    const raw = new DatabaseSync(join(dataDir, STORE_FILE));
    expect(raw.prepare('PRAGMA journal_mode').get()).toEqual({ journal_mode: 'wal' });
    expect(raw.prepare('PRAGMA user_version').get()).toEqual({ user_version: 2 });
    raw.close();
    const reopened = openSqliteStore({ dataDir });
    expect(await reopened.get(request.id)).toEqual(request);
    await reopened.close();
  });

  it('adds the client_ref columns to a database that lacks them, whatever its migration number, and keeps one request per client_ref', async () => {
    const file = join(dir, 'before-client-ref.db');
    await openSqliteStore({ file }).close();
    const raw = new DatabaseSync(file);
    raw.exec('DROP INDEX approval_requests_one_per_client_ref');
    for (const column of ['client_ref_json', 'client_ref_key', 'upstream_json']) {
      raw.exec(`ALTER TABLE approval_requests DROP COLUMN ${column}`);
    }
    raw.close();
    const store = openSqliteStore({ file });
    const ref = { harness_url: 'http://h', session_id: 's', turn_id: 't', tool_call_id: 'c' };
    const first = await store.insertForClientRef({ ...newRequest({ client_ref: ref }), clientRefKey: 'k' });
    const second = await store.insertForClientRef({ ...newRequest({ client_ref: ref }), clientRefKey: 'k' });
    expect(first.created).toBe(true);
    expect(second).toEqual({ created: false, request: first.request });
    expect(first.request.client_ref).toEqual(ref);
    expect(await store.findByClientRef('k')).toEqual(first.request);
    await store.close();
    // Opening again changes nothing.
    await openSqliteStore({ file }).close();
  });

  // Migration 0 as it shipped: a shipped migration is never edited, and files it created keep opening.
  const shippedMigration0 = readFileSync(new URL('fixtures/sqlite-migration-0.sql', import.meta.url), 'utf8');

  it('keeps migration 0 byte for byte as it shipped, its shared columns from the declaration PostgreSQL uses too', () => {
    expect(MIGRATIONS[0]).toBe(shippedMigration0);
    for (const columns of [APPROVAL_REQUESTS_V1, EXECUTION_COURSE_V1]) {
      expect(MIGRATIONS[0]).toContain(columnDefinitions(columns, '     '));
    }
  });

  it('opens a database created by the text migration 0 shipped with, and migrates it on', async () => {
    const file = join(dir, 'migration-0-as-shipped.db');
    const raw = new DatabaseSync(file);
    raw.exec(shippedMigration0);
    raw.exec('PRAGMA user_version = 1');
    raw.close();
    const store = openSqliteStore({ file });
    const { request } = await store.createOrReusePending(newRequest(), new Date('2025-01-31T02:10:00.000Z'));
    expect(await store.get(request.id)).toEqual(request);
    await store.close();
    const reopened = new DatabaseSync(file);
    expect(reopened.prepare('PRAGMA user_version').get()).toEqual({ user_version: MIGRATIONS.length });
    reopened.close();
  });

  it('refuses a database written by a newer Sentinel', () => {
    const file = join(dir, 'future.db');
    const raw = new DatabaseSync(file);
    raw.exec('PRAGMA user_version = 99');
    raw.close();
    expect(() => openSqliteStore({ file })).toThrow(/schema version 99, newer than this Sentinel knows/);
  });
});
