/**
 * The data directory is private: created 0700, Sentinel's state files 0600, too-open modes left by
 * anything else tightened (and reported) at start.
 */
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { chmodSync, mkdirSync, readdirSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import pino from 'pino';
import { hardenDataDir } from '../../server/data-dir.ts';
import { openAuditLog } from '../../server/audit/index.ts';
import { openDatabase } from '../../server/gate/store/sqlite-schema.ts';
import { parseServeOptions } from '../../server/config.ts';
import { startServe, type RunningServer } from '../../server/serve.ts';
import { tempDataDir } from '../helpers/server.ts';

const modeOf = (path: string) => statSync(path).mode & 0o7777;

describe('hardenDataDir', () => {
  let temp: ReturnType<typeof tempDataDir>;
  beforeEach(() => (temp = tempDataDir()));
  afterEach(() => temp.cleanup());

  it('creates a missing data dir 0700', () => {
    const dir = join(temp.dir, 'nested', 'state');
    expect(hardenDataDir(dir)).toEqual([]);
    expect(modeOf(dir)).toBe(0o700);
  });

  it('tightens the dir and its state files, reports each, and leaves other files alone', () => {
    const dir = join(temp.dir, 'state');
    mkdirSync(dir);
    chmodSync(dir, 0o755);
    for (const name of ['sentinel.db', 'sentinel.db-wal', 'local.token', 'tokens.yaml', 'notes.txt']) {
      writeFileSync(join(dir, name), 'x');
      chmodSync(join(dir, name), 0o644);
    }
    writeFileSync(join(dir, 'audit.sqlite'), 'x', { mode: 0o600 });
    const [first, ...files] = hardenDataDir(dir);
    expect(first).toEqual({ path: dir, was: '0755', now: '0700' });
    expect(files.sort((x, y) => x.path.localeCompare(y.path))).toEqual(
      ['local.token', 'sentinel.db', 'sentinel.db-wal', 'tokens.yaml'].map((name) => ({
        path: join(dir, name),
        was: '0644',
        now: '0600',
      })),
    );
    expect(modeOf(dir)).toBe(0o700);
    expect(modeOf(join(dir, 'sentinel.db'))).toBe(0o600);
    expect(modeOf(join(dir, 'notes.txt'))).toBe(0o644);
    expect(hardenDataDir(dir)).toEqual([]);
  });

  it('never changes a shared directory with the sticky bit (e.g. /tmp given as the data dir)', () => {
    const dir = join(temp.dir, 'shared');
    mkdirSync(dir);
    chmodSync(dir, 0o1777);
    hardenDataDir(dir);
    expect(modeOf(dir)).toBe(0o1777);
  });
});

describe('sentinel serve and the data dir', () => {
  let temp: ReturnType<typeof tempDataDir>;
  let running: RunningServer | undefined;
  let stderr = '';
  beforeEach(() => {
    temp = tempDataDir();
    stderr = '';
  });
  afterEach(async () => {
    await running?.close();
    running = undefined;
    temp.cleanup();
  });

  const start = async () => {
    running = await startServe(
      parseServeOptions({ port: 0, dataDir: temp.dir }),
      { stderr: (text) => void (stderr += text), env: {} },
      { logger: pino({ level: 'silent' }) },
    );
  };

  it('leaves every state file 0600 and the dir 0700, warning once about a too-open database', async () => {
    chmodSync(temp.dir, 0o755);
    writeFileSync(join(temp.dir, 'sentinel.db'), '');
    chmodSync(join(temp.dir, 'sentinel.db'), 0o644);
    await start();
    expect(stderr).toContain(
      `Warning: ${temp.dir} was readable by other users (mode 0755); changed to 0700.`,
    );
    expect(stderr).toContain(
      `Warning: ${join(temp.dir, 'sentinel.db')} was readable by other users (mode 0644); changed to 0600.`,
    );
    expect(modeOf(temp.dir)).toBe(0o700);
    const files = readdirSync(temp.dir).filter((name) => statSync(join(temp.dir, name)).isFile());
    expect(files).toEqual(expect.arrayContaining(['sentinel.db', 'audit.sqlite', 'local.token']));
    for (const name of files) expect([name, modeOf(join(temp.dir, name))]).toEqual([name, 0o600]);

    await running!.close();
    stderr = '';
    await start();
    expect(stderr).not.toContain('Warning:');
  });
});

describe('the databases of the data dir are private from their creation', () => {
  let temp: ReturnType<typeof tempDataDir>;
  beforeEach(() => (temp = tempDataDir()));
  afterEach(() => temp.cleanup());

  // A start that fails after opening them (a bad policy) never reaches hardenDataDir: the files
  // must not depend on it (nor on the umask, 022 here: SQLite alone would create them 0644).
  it('openAuditLog and openDatabase create their files 0600, journals included', () => {
    openAuditLog(temp.dir).close();
    const db = openDatabase(join(temp.dir, 'sessions.sqlite'));
    db.exec('CREATE TABLE t (x)');
    const files = readdirSync(temp.dir).filter((name) => /\.sqlite/.test(name));
    expect(files).toEqual(expect.arrayContaining(['audit.sqlite', 'sessions.sqlite', 'sessions.sqlite-wal']));
    for (const name of files) expect([name, modeOf(join(temp.dir, name))]).toEqual([name, 0o600]);
    db.close();
  });
});
