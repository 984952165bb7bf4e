/**
 * Which process runs an execution of the SQLite store, so several processes on one file (the
 * workers of `sentinel serve --workers N`, an investigation's in-process server beside `sentinel
 * serve`) never settle each other's running calls. Each open store is an owner: a random key, its
 * pid, and the process's start time (Linux `/proc/<pid>/stat` field 22, so a reused pid is not
 * mistaken for the dead owner); `beginExecution` records the owner on the row. `listOrphaned`
 * returns the executing rows whose owner is gone (or unrecorded, from before owners were kept),
 * claiming them for this owner (`reconciling = 1`) in the same `BEGIN IMMEDIATE` transaction, so
 * one survivor settles each orphan — the PostgreSQL store's semantics with a liveness check by pid
 * instead of a session advisory lock.
 */
import { randomUUID } from 'node:crypto';
import { readFileSync } from 'node:fs';
import type { SQLInputValue } from 'node:sqlite';
import type { Row, Transaction } from './sqlite-schema.ts';
import type { DatabaseSync } from 'node:sqlite';

/** The process owning the executions it begins through one open store. */
export interface SqliteOwner {
  key: string;
  pid: number;
  /** The process's start time in clock ticks since boot (Linux); '' where unknown. */
  stamp: string;
}

/** The start time of process `pid` (Linux: `/proc/<pid>/stat` field 22), or '' when unknown. */
export function processStamp(pid: number): string {
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // Fields after the command name (which may hold spaces and parentheses) start at its last ')'.
    return stat.slice(stat.lastIndexOf(')') + 2).split(' ')[19] ?? '';
  } catch {
    return '';
  }
}

/** Whether the process `pid` started at `stamp` still runs ('' stamp: by pid alone). */
export function processAlive(pid: number, stamp: string): boolean {
  try {
    process.kill(pid, 0);
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'EPERM') return false;
  }
  return stamp === '' || processStamp(pid) === '' || processStamp(pid) === stamp;
}

/** A new owner for this process. */
export function newOwner(): SqliteOwner {
  return { key: randomUUID(), pid: process.pid, stamp: processStamp(process.pid) };
}

/**
 * Gives up `owner`'s executing rows (the store closes): from now they are orphans, as a PostgreSQL
 * replica's are once its session lock is released.
 */
export function releaseOwner(db: DatabaseSync, owner: SqliteOwner): void {
  db.prepare(`UPDATE executions SET owner_pid = NULL WHERE owner_key = ? AND status = 'executing'`).run(
    owner.key,
  );
}

/** The owner columns' values, in `SET_OWNER` order. */
export const ownerParams = (owner: SqliteOwner): SQLInputValue[] => [owner.key, owner.pid, owner.stamp];

/** Records the owner on a new execution row: parameters `ownerParams(owner)`, then the id. */
export const SET_OWNER = 'UPDATE executions SET owner_key = ?, owner_pid = ?, owner_stamp = ? WHERE id = ?';

/**
 * `listOrphaned` of the SQLite store for `owner`: executing rows this owner already claimed, rows
 * without an owner, and rows whose owner process is gone — each claimed for `owner` in one write
 * transaction, oldest first. Rows of a live owner (this one's running calls included) are left.
 */
export function orphanLister(db: DatabaseSync, transaction: Transaction, owner: SqliteOwner) {
  const select = db.prepare(
    `SELECT rowid AS seq, * FROM executions WHERE status = 'executing' ORDER BY started_at, rowid`,
  );
  const claim = db.prepare(
    'UPDATE executions SET owner_key = ?, owner_pid = ?, owner_stamp = ?, reconciling = 1 WHERE id = ?',
  );
  return (): Row[] =>
    transaction(() => {
      const orphans = (select.all() as Row[]).filter((row) =>
        row.owner_key === owner.key
          ? Number(row.reconciling) === 1
          : row.owner_pid === null ||
            !processAlive(Number(row.owner_pid), typeof row.owner_stamp === 'string' ? row.owner_stamp : ''),
      );
      for (const row of orphans) claim.run(...ownerParams(owner), String(row.id));
      return orphans;
    });
}
