/**
 * `sentinel tokens add|revoke` run at the same time on one data directory (two on-call engineers,
 * a script in a loop): each read-modify-write of tokens.yaml waits for the others, so no identity
 * is lost and every token printed works (a new user's 8 parallel adds kept 3).
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { tempDataDir } from '../helpers/server.ts';

const BIN = fileURLToPath(new URL('../../bin/sentinel.js', import.meta.url));

/** `sentinel <args>` in its own process: its exit code and output. */
function runProcess(args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env };
  delete env.SENTINEL_DATA_DIR;
  return new Promise((resolve) => {
    execFile(process.execPath, [BIN, ...args], { env }, (error, stdout, stderr) =>
      resolve({ code: error ? Number(error.code ?? 1) : 0, stdout, stderr }),
    );
  });
}

describe('sentinel tokens add and revoke in parallel', () => {
  it('keeps every added identity and removes every revoked one', { timeout: 120_000 }, async () => {
    const data = tempDataDir();
    try {
      const dir = ['--data-dir', data.dir];
      for (const name of ['old1', 'old2', 'old3']) {
        expect((await runProcess(['tokens', 'add', name, '--role', 'caller', ...dir])).code).toBe(0);
      }
      const adds = Array.from({ length: 8 }, (_, i) => [
        'tokens',
        'add',
        `par${i}`,
        '--role',
        'caller',
        ...dir,
      ]);
      const revokes = ['old1', 'old2', 'old3'].map((name) => ['tokens', 'revoke', name, ...dir]);
      const results = await Promise.all([...adds, ...revokes].map((args) => runProcess(args)));
      expect(
        results.map((result) => result.code),
        results.map((result) => result.stderr).join(''),
      ).toEqual(results.map(() => 0));
      const listed = await runProcess(['tokens', 'list', ...dir]);
      for (let i = 0; i < 8; i += 1) expect(listed.stdout).toContain(`par${i}`);
      expect(listed.stdout).not.toMatch(/old[123]/);
    } finally {
      data.cleanup();
    }
  });
});
