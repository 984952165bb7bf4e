/**
 * CLI start-up (issue 18: every command's start to first output ≤ 0.5 s): for each command, the
 * wall time from spawning `node bin/sentinel.js …` to its first byte of output (stdout or stderr)
 * and to its exit, next to floors measured in the same run — `node -e 0`, a bare commander program
 * as `.js`, and the same program as `.ts` (Node's type stripping initialises once per process, a
 * cost every `.ts` entry pays). Rows rotate order round by round, so a loaded machine slows every
 * row alike; figures are medians, ratios are taken round by round then their median.
 *
 * Commands: `--help`, `investigate --help`, `policy test --tool rollback_deployment`, `tokens
 * list`, and `approvals list` against a `sentinel serve` this script starts (port 0, its own data
 * directory, found through its discovery file like a user's). `BENCH_COMPARE=<clone>[,<clone>…]`
 * adds the same commands run from other clones (e.g. one checked out before a change) as
 * `<name>@<clone folder>`.
 *
 *   node bench/cli-start.ts [rounds]            # default 7 rounds
 *   BENCH_COMPARE=../main node bench/cli-start.ts 5
 *
 * Prints a table; exit code 1 when a command's median first output misses 0.5 s.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const rounds = Number(process.argv[2] ?? 7);
const TARGET_MS = 500;
const compare = (process.env.BENCH_COMPARE ?? '')
  .split(',')
  .filter(Boolean)
  .map((dir) => resolve(dir));
const work = mkdtempSync(join(tmpdir(), 'sentinel-cli-bench-'));
const dataDir = join(work, 'data');

interface Row {
  name: string;
  args: string[];
  /** A floor, not a Sentinel command: no target, shown for the ratios. */
  floor?: boolean;
}

interface Timing {
  firstOutputMs: number;
  exitMs: number;
}

/** Spawns `node args`, resolving with the time to its first output byte and to its exit. */
function time(args: string[]): Promise<Timing> {
  return new Promise((resolveTiming, reject) => {
    const start = performance.now();
    let first: number | undefined;
    let stderr = '';
    const child = spawn(process.execPath, args, {
      cwd: work,
      env: { ...process.env, SENTINEL_DATA_DIR: dataDir, NO_COLOR: '1' },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    const mark = () => (first ??= performance.now() - start);
    child.stdout.on('data', mark);
    child.stderr.on('data', (chunk) => {
      mark();
      stderr += String(chunk);
    });
    child.on('error', reject);
    child.on('close', (code) => {
      const exitMs = performance.now() - start;
      if (code !== 0) reject(new Error(`node ${args.join(' ')} exited ${code}: ${stderr.slice(0, 500)}`));
      else resolveTiming({ firstOutputMs: first ?? exitMs, exitMs });
    });
  });
}

/** Starts `sentinel serve --port 0` on `dataDir` and waits for its discovery file. */
async function startServe(): Promise<ChildProcess> {
  const child = spawn(process.execPath, [join(ROOT, 'bin/sentinel.js'), 'serve', '--port', '0'], {
    cwd: work,
    env: { ...process.env, SENTINEL_DATA_DIR: dataDir, SENTINEL_LOG_LEVEL: 'silent' },
    stdio: ['ignore', 'ignore', 'ignore'],
  });
  const servers = join(dataDir, 'servers');
  for (let waited = 0; waited < 120_000; waited += 100) {
    if (existsSync(servers) && readdirSync(servers).some((file) => file.endsWith('.json'))) return child;
    if (child.exitCode !== null) throw new Error(`sentinel serve exited ${child.exitCode}`);
    await new Promise((r) => setTimeout(r, 100));
  }
  child.kill();
  throw new Error('sentinel serve wrote no discovery file within 120 s');
}

const median = (values: number[]) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)]!;

/** The bare commander program, as .js and as .ts, in a folder that resolves this clone's packages. */
function bareProgram(): { js: string; ts: string } {
  const source = `import { Command } from 'commander';\nnew Command('bare').description('bare').option('--x <y>', 'an option').parse(process.argv);\n`;
  symlinkSync(join(ROOT, 'node_modules'), join(work, 'node_modules'), 'dir');
  writeFileSync(join(work, 'package.json'), '{"type":"module","private":true}\n');
  writeFileSync(join(work, 'bare.js'), source);
  writeFileSync(join(work, 'bare.ts'), source);
  return { js: join(work, 'bare.js'), ts: join(work, 'bare.ts') };
}

const commands = (clone: string, suffix: string): Row[] => {
  const bin = join(clone, 'bin/sentinel.js');
  return [
    { name: `--help${suffix}`, args: [bin, '--help'] },
    { name: `investigate --help${suffix}`, args: [bin, 'investigate', '--help'] },
    {
      name: `policy test${suffix}`,
      args: [
        bin,
        'policy',
        'test',
        '--tool',
        'rollback_deployment',
        '--args',
        '{"namespace":"shop","name":"checkout"}',
      ],
    },
    { name: `tokens list${suffix}`, args: [bin, 'tokens', 'list'] },
    { name: `approvals list${suffix}`, args: [bin, 'approvals', 'list'] },
  ];
};

let serve: ChildProcess | undefined;
let missed = false;
try {
  const bare = bareProgram();
  const rows: Row[] = [
    { name: 'node -e 0', args: ['-e', '0'], floor: true },
    { name: 'bare commander .js', args: [bare.js, '--help'], floor: true },
    { name: 'bare commander .ts', args: [bare.ts, '--help'], floor: true },
    ...commands(ROOT, ''),
    ...compare.flatMap((clone) => commands(clone, `@${basename(clone)}`)),
  ];
  serve = await startServe();
  const samples = new Map<string, Timing[]>(rows.map((row) => [row.name, []]));
  for (let round = 0; round < rounds; round++) {
    // Rotate the order so no row always runs first (or right after the heaviest one).
    const order = rows.map((_, i) => rows[(i + round) % rows.length]!);
    for (const row of order) samples.get(row.name)!.push(await time(row.args));
  }
  const ratio = (name: string, floor: string, key: keyof Timing) =>
    median(samples.get(name)!.map((t, i) => t[key] / samples.get(floor)![i]![key]));
  console.log(
    `CLI start-up, ${rounds} rounds, medians (ratios per round vs node -e 0 and vs bare .ts, median)`,
  );
  console.log(
    ['command'.padEnd(30), 'first output', 'exit', '× node -e 0', '× bare .ts', 'target'].join('  '),
  );
  for (const row of rows) {
    const timings = samples.get(row.name)!;
    const first = median(timings.map((t) => t.firstOutputMs));
    const exit = median(timings.map((t) => t.exitMs));
    const ok = row.floor || row.name.includes('@') ? '' : first <= TARGET_MS ? 'ok' : 'MISSED';
    if (ok === 'MISSED') missed = true;
    console.log(
      [
        row.name.padEnd(30),
        `${first.toFixed(0).padStart(9)} ms`,
        `${exit.toFixed(0).padStart(5)} ms`,
        ratio(row.name, 'node -e 0', 'firstOutputMs').toFixed(2).padStart(11),
        ratio(row.name, 'bare commander .ts', 'firstOutputMs').toFixed(2).padStart(10),
        ok ? `${ok} (≤ ${TARGET_MS} ms)` : '',
      ].join('  '),
    );
  }
} finally {
  serve?.kill('SIGTERM');
  if (serve && serve.exitCode === null) await new Promise((r) => serve!.once('exit', r));
  rmSync(work, { recursive: true, force: true });
}
process.exitCode = missed ? 1 : 0;
