/**
 * Where Sentinel keeps its state (tokens.yaml, local.token, the approval store, audit log):
 * `--data-dir`, else `SENTINEL_DATA_DIR`, else `~/.sentinel`. Every subcommand that touches state
 * takes the `--data-dir` option (cli/options.ts).
 */
import { chmodSync, closeSync, mkdirSync, openSync, readdirSync, statSync } from 'node:fs';
import { homedir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import { SentinelError } from '../core/light.ts';

/** Absolute data directory from the flag value, the environment, or the default `~/.sentinel`. */
export function resolveDataDir(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = flag ?? (env.SENTINEL_DATA_DIR || undefined) ?? join(homedir(), '.sentinel');
  return resolve(chosen);
}

/**
 * Throws `SentinelError('invalid_input')` naming `field` when `path` exists but is not a directory
 * (`--data-dir /etc/passwd`), instead of the raw EEXIST/ENOTDIR of the first mkdir or write in it,
 * or when a missing `path` cannot be created (`--data-dir /proc/nope`): a missing one is created
 * here (0700, `makeDirectory`).
 */
export function checkDataDir(path: string, field = '--data-dir'): void {
  let isDirectory: boolean;
  try {
    isDirectory = statSync(path).isDirectory();
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    if (code === 'ENOENT') return makeDirectory(path, field);
    if (code !== 'ENOTDIR') throw error;
    isDirectory = false; // a parent is a file: `--data-dir /etc/passwd/x`
  }
  if (!isDirectory) {
    throw new SentinelError('invalid_input', `${field} ${path} is not a directory.`, { field });
  }
}

/**
 * Creates `file` empty with mode 0600 when it does not exist (an existing file is left as it is),
 * so that a database opened on it next is never readable by others, even for a moment, whatever the
 * umask. SQLite gives its -wal/-shm files the mode of the database file.
 */
export function createPrivateFile(file: string): void {
  closeSync(openSync(file, 'a', 0o600));
}

/** `<data-dir>/tokens.yaml`: identities and token hashes. */
export function defaultTokensFile(dataDir: string): string {
  return join(dataDir, 'tokens.yaml');
}

/** `<data-dir>/local.token`: the token generated for identity `local` (mode 0600). */
export function localTokenFile(dataDir: string): string {
  return join(dataDir, 'local.token');
}

/** A path whose permissions `hardenDataDir` tightened: what they were and are now (octal, e.g. `0644`). */
export interface TightenedPath {
  path: string;
  was: string;
  now: string;
}

/** Files Sentinel keeps in the data dir: tokens, login links, YAML, SQLite databases and their journals. */
const STATE_FILE = /\.(token|url|yaml|db|sqlite)(-wal|-shm|-journal)?$/;

/**
 * `mkdir -p` with mode 0700, one level at a time. Not `mkdirSync(…, { recursive: true })`: Node's
 * loops for ever (a core at 100 %) where mkdir answers ENOENT under a parent that exists, as in
 * `/proc`. Throws `SentinelError('invalid_input')` naming `field`, the directory and the reason.
 */
export function makeDirectory(path: string, field = '--data-dir'): void {
  const missing: string[] = [];
  for (let dir = resolve(path); ; dir = dirname(dir)) {
    try {
      statSync(dir);
      break;
    } catch {
      missing.unshift(dir);
      if (dirname(dir) === dir) break;
    }
  }
  for (const dir of missing) {
    try {
      mkdirSync(dir, { mode: 0o700 });
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EEXIST') continue; // another process made it meanwhile
      throw new SentinelError(
        'invalid_input',
        `${field} ${path} cannot be created: mkdir ${dir} failed (${code ?? (error as Error).message}).`,
        { field, cause: error },
      );
    }
  }
}

const octal = (mode: number) => `0${(mode & 0o777).toString(8)}`;

/**
 * Creates `dataDir` with mode 0700 when missing and makes it and Sentinel's state files in it
 * (`*.token`, `*.url`, `*.yaml`, `*.db`, `*.sqlite` and SQLite's `-wal`/`-shm`/`-journal` files)
 * owner-only: 0700 for the directory, 0600 for the files, when they are readable by group or others.
 * Only what this user owns is changed, and never a directory with the sticky bit (e.g. `/tmp` given
 * as the data dir). Returns what was tightened (empty when everything was private already).
 */
export function hardenDataDir(dataDir: string): TightenedPath[] {
  makeDirectory(dataDir);
  const uid = process.getuid?.();
  const tightened: TightenedPath[] = [];
  const tighten = (path: string, private_: number) => {
    const stat = statSync(path);
    if ((stat.mode & 0o077) === 0 || (uid !== undefined && stat.uid !== uid)) return;
    if (stat.isDirectory() && (stat.mode & 0o1000) !== 0) return;
    chmodSync(path, private_);
    tightened.push({ path, was: octal(stat.mode), now: octal(private_) });
  };
  tighten(dataDir, 0o700);
  for (const entry of readdirSync(dataDir, { withFileTypes: true })) {
    if (entry.isFile() && STATE_FILE.test(entry.name)) tighten(join(dataDir, entry.name), 0o600);
  }
  return tightened;
}
