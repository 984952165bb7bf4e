/**
 * `sentinel serve` with a configuration error exits 2 (README "Exit codes") with one line naming
 * the option and the rule — checked before anything is written to the data directory, so a failed
 * start leaves no database behind (let alone one readable by other users).
 */
import { execFile } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../bin/sentinel.js', import.meta.url));

/** Runs `sentinel serve …args` as a process (a server that does start is killed after 120 s). */
function serve(args: string[]): Promise<{ code: number | null; stderr: string }> {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('SENTINEL_')));
  return new Promise((resolve) => {
    execFile(
      process.execPath,
      [BIN, 'serve', '--port', '0', ...args],
      { env, timeout: 120_000 },
      (error, _out, stderr) =>
        resolve({ code: error ? (typeof error.code === 'number' ? error.code : null) : 0, stderr }),
    );
  });
}

describe('sentinel serve refuses a configuration error before touching the data dir (exit 2)', () => {
  const dirs: string[] = [];
  const dataDir = () => {
    const dir = mkdtempSync(join(tmpdir(), 'sentinel-serve-config-'));
    dirs.push(dir);
    return dir;
  };
  afterEach(() => {
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['--tokens-file', /^sentinel: --tokens-file \/nonexistent\/tokens\.yaml does not exist/],
    ['--policy', /^sentinel: --policy \/nonexistent\/tokens\.yaml does not exist/],
  ])('an explicit %s that does not exist: named, nothing created', async (flag, message) => {
    const dir = dataDir();
    const result = await serve([flag, '/nonexistent/tokens.yaml', '--data-dir', dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(readdirSync(dir)).toEqual([]);
  });

  it('--data-dir that is a file: names --data-dir and says it is not a directory', async () => {
    const result = await serve(['--data-dir', '/etc/passwd']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^sentinel: --data-dir \/etc\/passwd is not a directory/);
    expect(result.stderr).not.toContain('unexpected error');
  });

  it('--data-dir that cannot be created (under /proc): named, exit 2, no spinning mkdir', async () => {
    // Node's recursive mkdir loops for ever there (ENOENT under a parent that exists).
    const result = await serve(['--data-dir', '/proc/sentinel-nope/data']);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /^sentinel: --data-dir \/proc\/sentinel-nope\/data cannot be created: mkdir \/proc\/sentinel-nope failed \(ENOENT\)/,
    );
  });

  it('--host 0.0.0.0 without --allow-remote is a configuration error', async () => {
    const result = await serve(['--host', '0.0.0.0', '--data-dir', dataDir()]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/^sentinel: Refusing to listen on 0\.0\.0\.0/);
  });
});
