/**
 * `sentinel investigate … 2>&1 | head -3` (issue #18): once the reader goes away the investigation
 * stops at a safe point, stays resumable, runs nothing, and exits 141 — never 0 while unresolved.
 * `… | true` (the reader gone before anything is written) is noticed at the first write: with both
 * outputs closed that is the first progress line (141, nothing run); with only stdout closed,
 * progress and any approval prompt still reach the terminal on stderr, so the run goes on to its
 * outcome and only the report, written last, is lost.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { startIncident, type Incident } from '../helpers/incident.ts';

const BIN = fileURLToPath(new URL('../../bin/sentinel.js', import.meta.url));

describe('sentinel investigate with its output closed early', () => {
  let incident: Incident | undefined;
  let child: ChildProcess | undefined;
  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    await incident?.close();
  });

  /** Starts `sentinel investigate` on the incident (no terminal: stdin a pipe), with `extra` flags. */
  const investigate = (extra: string[] = []) => {
    const env = Object.fromEntries(
      Object.entries(process.env).filter(([key]) => !key.startsWith('SENTINEL_')),
    );
    child = spawn(
      process.execPath,
      [
        BIN,
        'investigate',
        'checkout returns 502',
        '-n',
        'shop',
        '--server',
        `${incident!.server.url}/mcp`,
        '--data-dir',
        incident!.dataDir,
        ...extra,
      ],
      { env, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const exited = new Promise<number | null>((resolve) => child!.once('exit', (c) => resolve(c)));
    return { child, exited };
  };
  /** The one investigation saved in the data directory. */
  const saved = () => {
    const dir = join(incident!.dataDir, 'investigations');
    const files = readdirSync(dir).filter((name) => name.endsWith('.json'));
    expect(files).toHaveLength(1);
    return JSON.parse(readFileSync(join(dir, files[0]!), 'utf8')) as {
      status: string;
      action: { status: string } | null;
    };
  };

  it.each([
    // `2>&1 | head -3`: read the first lines, then close both pipes.
    ['`2>&1 | head -3` (closed after its first lines)', [], 'first-line'],
    // `2>&1 | true`: closed before anything is written; even --yes approves and runs nothing.
    ['`2>&1 | true` (closed before anything is written)', ['--yes', '--confirm', 'checkout'], 'at-once'],
  ] as const)(
    '%s: stops at a safe point, leaves the investigation resumable and exits 141',
    async (_what, flags, when) => {
      incident = await startIncident('bad-image-rollout');
      const { child: running, exited } = investigate([...flags]);
      const close = () => {
        running.stdout!.destroy();
        running.stderr!.destroy();
      };
      if (when === 'at-once') close();
      else running.stderr!.once('data', close);
      expect(await exited).toBe(141);
      expect(['running', 'awaiting_approval']).toContain(saved().status);
      expect(incident.mutations()).toHaveLength(0);
    },
  );

  it('`| true` (stdout closed before anything is written, stderr open): runs to its outcome; the exit status is that outcome', async () => {
    incident = await startIncident('bad-image-rollout');
    const { child: running, exited } = investigate([
      '--yes',
      '--confirm',
      'checkout',
      '--settle-seconds',
      '0',
    ]);
    running.stdout!.destroy();
    let stderr = '';
    running.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    expect(await exited, stderr).toBe(0);
    expect(saved()).toMatchObject({ status: 'done', action: { status: 'executed' } });
    expect(incident.mutations().map((m) => m.verb)).toContain('patch');
    expect(stderr).toContain('Verification');
    // The lost report is noticed after the outcome is known: no "stopping at the next safe point".
    expect(stderr).not.toContain('Output closed');
  });
});
