/**
 * One change of tokens.yaml at a time across processes. `sentinel tokens add|revoke|rotate` read the
 * file, change the list and write it back whole (write-then-rename); two of them at once each wrote
 * the list they had read, and the later rename dropped the other's change (8 parallel adds kept 3,
 * each having printed a token the server then refused).
 *
 * The lock is an exclusive SQLite transaction on `<tokens file>.lock` (node:sqlite, as the stores):
 * SQLite takes it across processes and waits for a holder with its busy timeout, and the operating
 * system releases it when a holder dies. The file stays (removing a lock file races its next taker).
 */
import { chmodSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { DatabaseSync } from 'node:sqlite';
import { SentinelError } from '../core/index.ts';

/** How long a change waits for another process's change of the same file, in ms. */
const LOCK_WAIT_MS = 10_000;

/**
 * Runs `change` (which reads and rewrites `tokensFile`) while no other process runs one on the same
 * file, and returns what it returns. Throws what `change` throws; `SentinelError('unavailable')`
 * naming the lock file when another change held it for `LOCK_WAIT_MS`, and
 * `SentinelError('invalid_input')` (field `--data-dir`) when the lock file cannot be created.
 */
export function withTokensFileLock<T>(tokensFile: string, change: () => T): T {
  const lockFile = `${tokensFile}.lock`;
  let db: DatabaseSync;
  try {
    mkdirSync(dirname(tokensFile), { recursive: true, mode: 0o700 });
    db = new DatabaseSync(lockFile);
    chmodSync(lockFile, 0o600);
  } catch (error) {
    throw new SentinelError(
      'invalid_input',
      `Cannot write the tokens file ${tokensFile}: its lock ${lockFile} cannot be created (${(error as Error).message}).`,
      { field: '--data-dir', cause: error },
    );
  }
  try {
    db.exec(`PRAGMA busy_timeout = ${LOCK_WAIT_MS}`);
    try {
      db.exec('BEGIN EXCLUSIVE');
    } catch (error) {
      throw new SentinelError(
        'unavailable',
        `Another change of ${tokensFile} held ${lockFile} for ${LOCK_WAIT_MS / 1000} s; nothing was changed. Try again.`,
        { cause: error },
      );
    }
    try {
      return change();
    } finally {
      db.exec('ROLLBACK');
    }
  } finally {
    db.close();
  }
}
