/**
 * `sentinel investigate … 2>&1 | head -3` (issue #18): once the reader goes away the investigation
 * stops at a safe point, stays resumable, runs nothing, and exits 141 — never 0 while unresolved.
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

  it('stops at a safe point, leaves the investigation resumable and exits 141', async () => {
    incident = await startIncident('bad-image-rollout');
    const { dataDir } = incident;
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
        `${incident.server.url}/mcp`,
        '--data-dir',
        dataDir,
      ],
      { env, stdio: ['pipe', 'pipe', 'pipe'] },
    );
    const running = child;
    // `2>&1 | head -3`: read the first lines, then close both pipes.
    running.stderr!.once('data', () => {
      running.stdout!.destroy();
      running.stderr!.destroy();
    });
    const code = await new Promise<number | null>((resolve) => running.once('exit', (c) => resolve(c)));
    expect(code).toBe(141);
    const files = readdirSync(join(dataDir, 'investigations')).filter((name) => name.endsWith('.json'));
    expect(files).toHaveLength(1);
    const saved = JSON.parse(readFileSync(join(dataDir, 'investigations', files[0]!), 'utf8')) as {
      status: string;
    };
    expect(['running', 'awaiting_approval']).toContain(saved.status);
    expect(incident.mutations()).toHaveLength(0);
  });
});
