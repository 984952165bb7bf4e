import { spawn } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { groupAlive, stopProcessGroup } from './process-group.ts';

describe('stopProcessGroup', () => {
  const scratch = mkdtempSync(join(tmpdir(), 'sentinel-pgroup-'));
  afterAll(() => rmSync(scratch, { recursive: true, force: true }));

  /**
   * A detached group whose grandchild, on SIGTERM, keeps writing files into `dir` for a while before
   * it exits: what Node does when it flushes its compile cache at exit (the README suite's CI
   * failure: ENOTEMPTY removing the clone while a stopped server still wrote there).
   */
  function writerGroup(dir: string) {
    const script = `
      mkdir -p ${dir}/cache
      ( trap 'for i in $(seq 1 20); do echo x > ${dir}/cache/f$i; sleep 0.02; done; exit 0' TERM
        echo up > ${dir}/ready; while true; do sleep 0.05; done ) &
      wait`;
    return spawn('bash', ['-c', script], { detached: true, stdio: 'ignore' });
  }

  it('resolves only when every member of the group has finished its exit work', async () => {
    const dir = join(scratch, 'writer');
    const child = writerGroup(dir);
    while (!existsSync(join(dir, 'ready'))) await new Promise((r) => setTimeout(r, 20));
    await stopProcessGroup(child.pid!);
    expect(groupAlive(child.pid!)).toBe(false);
    // The exit work ran to its end, and the directory is removed at once and stays removed.
    expect(readdirSync(join(dir, 'cache'))).toHaveLength(20);
    rmSync(dir, { recursive: true });
    await new Promise((r) => setTimeout(r, 100));
    expect(existsSync(dir)).toBe(false);
  });

  it('kills a group that ignores SIGTERM once the grace period is over', async () => {
    const dir = join(scratch, 'stubborn');
    const child = spawn(
      'bash',
      ['-c', `trap '' TERM; mkdir -p ${dir}; echo up > ${dir}/ready; while true; do sleep 0.05; done`],
      { detached: true, stdio: 'ignore' },
    );
    while (!existsSync(join(dir, 'ready'))) await new Promise((r) => setTimeout(r, 20));
    await stopProcessGroup(child.pid!, 200);
    expect(groupAlive(child.pid!)).toBe(false);
  });

  it('resolves at once for a group that is already gone', async () => {
    const child = spawn('true', [], { detached: true, stdio: 'ignore' });
    await new Promise((r) => child.once('exit', r));
    await stopProcessGroup(child.pid!);
    expect(groupAlive(child.pid!)).toBe(false);
  });
});
