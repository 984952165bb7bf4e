/**
 * `sentinel serve … | head -1`: once the reader of its output goes away, `serve` stops as on
 * SIGTERM (graceful: calls drained, stores closed, its discovery file and its own login link
 * removed) and exits 141 (128 + SIGPIPE) — never 0, so a supervisor that restarts on failure
 * restarts it instead of leaving Sentinel down with its logs going nowhere.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, readdirSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';

const BIN = fileURLToPath(new URL('../../bin/sentinel.js', import.meta.url));

describe('sentinel serve with its output closed', () => {
  const dirs: string[] = [];
  let child: ChildProcess | undefined;
  afterEach(() => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it.each([
    ['`2>&1 | true` (stdout and stderr)', ['stdout', 'stderr']],
    ['`| true` (stdout only: the logs)', ['stdout']],
    ['`2>&1 >/dev/null | true` (stderr only: the banner)', ['stderr']],
  ] as const)('%s: stops gracefully, removes its files and exits 141', async (_what, closed) => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sentinel-serve-closed-'));
    dirs.push(dataDir);
    // Another server (this test process) runs on the data dir: this one's login link goes next to
    // its discovery file, servers/<port>.login-link.url, which it must remove when it stops.
    mkdirSync(join(dataDir, 'servers'), { recursive: true, mode: 0o700 });
    const other = {
      url: 'http://127.0.0.1:1',
      pid: process.pid,
      started: new Date(0).toISOString(),
      kind: 'serve',
    };
    writeFileSync(join(dataDir, 'servers', '1.json'), JSON.stringify(other), { mode: 0o600 });
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !key.startsWith('SENTINEL_')),
    );
    const running = (child = spawn(process.execPath, [BIN, 'serve', '--port', '0', '--data-dir', dataDir], {
      env: { ...env, KUBECONFIG: join(dataDir, 'no-kubeconfig') },
      stdio: ['ignore', 'pipe', 'pipe'],
    }));
    const exited = new Promise<number | null>((resolve) => running.once('exit', (code) => resolve(code)));
    for (const name of closed) running[name].destroy();
    expect(await exited).toBe(141);
    expect(readdirSync(join(dataDir, 'servers'))).toEqual(['1.json']);
  });
});
