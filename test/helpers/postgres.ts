/**
 * A throwaway PostgreSQL for tests: `initdb` + `postgres` from /usr/lib/postgresql/<ver>/bin (or
 * PATH) in a temporary directory, listening on 127.0.0.1 and an ephemeral port, stopped (and its
 * directory removed) after the file's tests. As root it runs as the unprivileged `postgres` user
 * (created when missing), since initdb refuses root. `SENTINEL_TEST_PG_URL` points the tests at an
 * existing server instead (each test still gets its own new database). Without PostgreSQL the suite
 * skips visibly, or fails under SENTINEL_REQUIRE_SYSTEM_TOOLS=1 (see `system-tools.ts`).
 */
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import pg from 'pg';
import { afterAll, beforeAll, describe } from 'vitest';

/** The directory holding `initdb` and `postgres` (newest version first), or undefined. */
export function findPostgresBin(): string | undefined {
  const root = '/usr/lib/postgresql';
  if (existsSync(root)) {
    const versions = readdirSync(root)
      .filter((name) => /^\d+$/.test(name))
      .sort((a, b) => Number(b) - Number(a));
    for (const version of versions) {
      const bin = join(root, version, 'bin');
      if (existsSync(join(bin, 'initdb')) && existsSync(join(bin, 'postgres'))) return bin;
    }
  }
  try {
    const initdb = execFileSync('sh', ['-c', 'command -v initdb'], { encoding: 'utf8' }).trim();
    return initdb ? initdb.replace(/\/initdb$/, '') : undefined;
  } catch {
    return undefined;
  }
}

/** A running test server: `url` of its maintenance database, and fresh databases on demand. */
export interface TestPostgres {
  url: string;
  /** Creates an empty database and returns its URL. */
  newDatabase(): Promise<string>;
  /**
   * Creates an empty schema in the maintenance database and returns a URL whose connections use it
   * (`options=-c search_path=…`): much cheaper than a database, for suites that open many stores.
   */
  newSchema(): Promise<string>;
  stop(): Promise<void>;
}

const freePort = () =>
  new Promise<number>((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });

/** uid/gid to run PostgreSQL as when we are root (creating the `postgres` user if missing). */
function unprivilegedUser(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(execFileSync('id', [flag, 'postgres'], { encoding: 'utf8' }).trim());
  try {
    return { uid: id('-u'), gid: id('-g') };
  } catch {
    execFileSync('useradd', ['--system', '--no-create-home', '--user-group', 'postgres']);
    return { uid: id('-u'), gid: id('-g') };
  }
}

let databases = 0;

function handle(url: string, stop: () => Promise<void>): TestPostgres {
  return {
    url,
    async newDatabase() {
      const name = `sentinel_test_${process.pid}_${Date.now().toString(36)}_${(databases += 1)}`;
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        await admin.query(`CREATE DATABASE ${name}`);
      } finally {
        await admin.end();
      }
      const target = new URL(url);
      target.pathname = `/${name}`;
      return target.toString();
    },
    async newSchema() {
      const name = `sentinel_test_${process.pid}_${Date.now().toString(36)}_${(databases += 1)}`;
      const admin = new pg.Client({ connectionString: url });
      await admin.connect();
      try {
        await admin.query(`CREATE SCHEMA ${name}`);
      } finally {
        await admin.end();
      }
      const target = new URL(url);
      target.searchParams.set('options', `-c search_path=${name}`);
      return target.toString();
    },
    stop,
  };
}

/** Starts a throwaway cluster (see the module comment). Throws when PostgreSQL is not installed. */
export async function startPostgres(bin: string | undefined = findPostgresBin()): Promise<TestPostgres> {
  if (!bin)
    throw new Error('PostgreSQL is not installed (no initdb under /usr/lib/postgresql/*/bin or PATH)');
  const dir = mkdtempSync(join(tmpdir(), 'sentinel-pg-'));
  const data = join(dir, 'data');
  const user = unprivilegedUser();
  if (user) chownSync(dir, user.uid, user.gid);
  const spawnOptions = user ? { uid: user.uid, gid: user.gid } : {};
  execFileSync(
    join(bin, 'initdb'),
    ['-D', data, '-U', 'postgres', '--auth=trust', '--no-sync', '-E', 'UTF8', '--no-instructions'],
    { ...spawnOptions, stdio: 'pipe', cwd: dir },
  );
  let child: ChildProcess | undefined;
  let url = '';
  for (let attempt = 0; attempt < 5 && !child; attempt += 1) {
    const port = await freePort();
    const started = spawn(
      join(bin, 'postgres'),
      [
        '-D',
        data,
        '-h',
        '127.0.0.1',
        '-p',
        String(port),
        '-k',
        dir,
        '-c',
        'fsync=off',
        '-c',
        'max_connections=300',
      ],
      { ...spawnOptions, stdio: ['ignore', 'ignore', 'pipe'], cwd: dir },
    );
    let log = '';
    started.stderr?.on('data', (chunk: Buffer) => (log += chunk.toString()));
    const exited = new Promise<void>((resolve) => started.once('exit', () => resolve()));
    url = `postgres://postgres@127.0.0.1:${port}/postgres`;
    // Readiness: connect until it accepts (or the process exits, e.g. the port was taken).
    let alive = true;
    void exited.then(() => (alive = false));
    while (alive) {
      const client = new pg.Client({ connectionString: url });
      try {
        await client.connect();
        await client.end();
        child = started;
        break;
      } catch {
        await client.end().catch(() => undefined);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    }
    if (!child && attempt === 4) throw new Error(`postgres did not start:\n${log}`);
  }
  const running = child!;
  const kill = () => running.kill('SIGKILL');
  process.once('exit', kill);
  const stop = async () => {
    process.off('exit', kill);
    if (running.exitCode === null && running.signalCode === null) {
      const exited = new Promise((resolve) => running.once('exit', resolve));
      running.kill('SIGINT'); // fast shutdown
      await exited;
    }
    rmSync(dir, { recursive: true, force: true });
  };
  return handle(url, stop);
}

/**
 * `describe` with a PostgreSQL for its tests: `server()` returns the running test server (started in
 * `beforeAll`, stopped in `afterAll`), or the one `SENTINEL_TEST_PG_URL` names. Without PostgreSQL:
 * a visibly skipped suite, or a failing one under SENTINEL_REQUIRE_SYSTEM_TOOLS=1.
 */
export function describeWithPostgres(title: string, body: (server: () => TestPostgres) => void): void {
  const external = process.env.SENTINEL_TEST_PG_URL;
  const bin = findPostgresBin();
  if (!external && !bin) {
    const message = `PostgreSQL not found (no initdb under /usr/lib/postgresql/*/bin or PATH, no SENTINEL_TEST_PG_URL): skipping "${title}"`;
    if (process.env.SENTINEL_REQUIRE_SYSTEM_TOOLS === '1') {
      describe(title, () => {
        throw new Error(`${message} — SENTINEL_REQUIRE_SYSTEM_TOOLS=1 turns this skip into a failure`);
      });
      return;
    }
    process.stderr.write(`\n[SKIP] ${message}\n`);
    describe.skip(`${title} [SKIPPED: PostgreSQL missing]`, () => body(() => undefined as never));
    return;
  }
  describe(title, () => {
    let server: TestPostgres | undefined;
    beforeAll(async () => {
      server = external ? handle(external, async () => undefined) : await startPostgres(bin);
    }, 60_000);
    afterAll(async () => {
      await server?.stop();
    });
    body(() => {
      if (!server) throw new Error('the test PostgreSQL has not started');
      return server;
    });
  });
}
