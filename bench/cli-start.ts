/**
 * CLI start-up: wall time from spawning `bin/sentinel.js --help` (and `tokens list`, which reads the
 * data directory) to its exit, median of N runs, next to a bare `node -e 0` measured in the same run
 * (so a loaded machine shows as a high baseline, not as a slow CLI). Run: `node bench/cli-start.ts [N]`.
 */
import { spawnSync } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';

const BIN = fileURLToPath(new URL('../bin/sentinel.js', import.meta.url));
const runs = Number(process.argv[2] ?? 5);
const dataDir = mkdtempSync(join(tmpdir(), 'sentinel-bench-'));

function median(args: string[]): number {
  const times: number[] = [];
  for (let i = 0; i < runs; i++) {
    const start = performance.now();
    const result = spawnSync(process.execPath, args, { env: { ...process.env, SENTINEL_DATA_DIR: dataDir } });
    if (result.status !== 0) throw new Error(`${args.join(' ')} exited ${result.status}: ${result.stderr}`);
    times.push(performance.now() - start);
  }
  times.sort((a, b) => a - b);
  return times[Math.floor(times.length / 2)]!;
}

try {
  const baseline = median(['-e', '0']);
  for (const args of [['--help'], ['tokens', 'list']]) {
    const ms = median([BIN, ...args]);
    console.log(
      `sentinel ${args.join(' ')}: ${ms.toFixed(0)} ms median of ${runs} (node -e 0: ${baseline.toFixed(0)} ms; ratio ${(ms / baseline).toFixed(1)})`,
    );
  }
} finally {
  rmSync(dataDir, { recursive: true, force: true });
}
