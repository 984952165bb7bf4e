/**
 * The SQLite audit log behind the asynchronous interface (server/audit/async-log.ts) while another
 * connection — another `--workers` worker, a CLI — holds the log's write lock: the append waits
 * without blocking the event loop (SQLite's busy handler would sleep in the thread, 1, 2, 5 ms … at
 * a time, stalling every request of the process), commits once the lock is free, and fails clearly,
 * writing nothing, when the lock is held past the wait.
 *
 * The lock holder is a second connection in this process: SQLite locks per connection, and a busy
 * wait that blocked this thread would keep the holder from ever committing.
 */
import { DatabaseSync } from 'node:sqlite';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { asyncAuditLog } from '../../../server/audit/async-log.ts';
import { AUDIT_FILE, openAuditLog } from '../../../server/audit/index.ts';
import { auditEntry } from '../../helpers/audit.ts';
import { tempDataDir } from '../../helpers/server.ts';

describe('asyncAuditLog under a write lock held elsewhere', () => {
  let dir: string;
  let cleanup: () => void;
  let holder: DatabaseSync;
  beforeEach(() => {
    ({ dir, cleanup } = tempDataDir());
    openAuditLog(dir).close(); // creates the file, WAL mode and the schema
    holder = new DatabaseSync(join(dir, AUDIT_FILE));
  });
  afterEach(() => {
    if (holder.isOpen) holder.close();
    cleanup();
  });

  it('waits for the lock without blocking the event loop, then commits in order after the holder', async () => {
    // A wait far longer than any stall of a loaded machine: only the holder's COMMIT ends it.
    const log = asyncAuditLog(openAuditLog(dir), { lockWaitMs: 120_000 });
    holder.exec('BEGIN IMMEDIATE');
    holder
      .prepare('INSERT INTO audit_log (seq, time, hash, json) VALUES (1, ?, ?, ?)')
      .run('2025-01-31T02:10:00.000Z', 'a'.repeat(64), '{}');
    const events: string[] = [];
    const appended = log.append(auditEntry({ tool: 'get_pod' })).then((record) => {
      events.push('appended');
      return record;
    });
    // Runs only if the append leaves the event loop free while it waits for the lock.
    await new Promise((resolve) => setTimeout(resolve, 100));
    events.push('timer');
    holder.exec('COMMIT');
    const record = await appended;
    expect(events).toEqual(['timer', 'appended']);
    // Chained after the holder's row, read inside the append's own transaction.
    expect(record.seq).toBe(2);
    expect(record.prev_hash).toBe('a'.repeat(64));
    await log.close();
  });

  it('fails the append clearly, writing nothing, when the lock stays held past the wait', async () => {
    const log = asyncAuditLog(openAuditLog(dir), { lockWaitMs: 300 });
    holder.exec('BEGIN IMMEDIATE');
    const appended = log.append(auditEntry());
    await expect(appended).rejects.toThrow(
      /audit log .*audit\.sqlite stayed locked by another process for 300 ms/,
    );
    holder.exec('ROLLBACK');
    expect(await log.records()).toEqual([]);
    // The next append, the lock free, goes through.
    expect((await log.append(auditEntry())).seq).toBe(1);
    await log.close();
  });
});
