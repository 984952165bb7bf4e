/**
 * The row codec both stores share (server/gate/store/rows.ts): the SQLite schema has exactly its
 * columns (the PostgreSQL schema's are checked in postgres.test.ts), and a request survives the
 * trip to a row and back.
 */
import { describe, expect, it } from 'vitest';
import { migrate, openDatabase, type Row } from '../../../../server/gate/store/sqlite-schema.ts';
import {
  EXECUTION_LATER_COLUMNS,
  executionColumns,
  REQUEST_COLUMNS,
  REQUEST_LATER_COLUMNS,
  requestValues,
  toRequest,
} from '../../../../server/gate/store/rows.ts';
import { newRequest } from './contract.ts';

describe('the shared row codec', () => {
  it('names every column of the SQLite schema', () => {
    const db = openDatabase(':memory:');
    try {
      migrate(db, ':memory:');
      const columns = (table: string) =>
        (db.prepare(`PRAGMA table_info(${table})`).all() as Row[]).map((row) => String(row.name)).sort();
      expect(columns('approval_requests')).toEqual([...REQUEST_COLUMNS, ...REQUEST_LATER_COLUMNS].sort());
      expect(columns('executions')).toEqual(
        [
          ...executionColumns('authorization'),
          ...EXECUTION_LATER_COLUMNS,
          // The executing process (sqlite-owner.ts): the engine's own bookkeeping, not the codec's.
          'owner_key',
          'owner_pid',
          'owner_stamp',
          'reconciling',
        ].sort(),
      );
    } finally {
      db.close();
    }
  });

  it('reads back the request it writes', () => {
    const input = newRequest({
      reason: 'bad release',
      preview: { summary: 's', changes: [], warnings: ['w'], effect: { to: 6 }, text: 't' },
      client_ref: null,
    });
    const row = Object.fromEntries(REQUEST_COLUMNS.map((column, i) => [column, requestValues(input)[i]]));
    const back = toRequest({ ...row, status_reason: null, superseded_by: null }, []);
    expect(back).toEqual({
      ...input.request,
      executions: [],
      status_reason: null,
      superseded_by: null,
      client_ref: null,
      upstream: null,
    });
  });
});
