/**
 * Benchmark: one local investigation of a 2,000-Pod namespace on the simulator — wall time, CPU and
 * the Kubernetes API requests Sentinel's server made (the simulator's audit log, like
 * kube-apiserver's `--audit-log-path`), by verb/resource and by phase. The namespace is a generated
 * scenario (`generateScenario`: Deployments of 25 Pods, svc-0 rolled out 20 minutes ago to a
 * crash-looping image), investigated from the symptom "svc-0 is crash-looping" with every request
 * approved: triage, evidence, logs, preview, rollback, verification and the settle window. Each run
 * is its own process (bench/investigate-run.ts). Not a test: it prints figures to compare.
 *
 * With `--before <git ref>` the same workload runs against that ref too (unpacked with `git
 * archive` into a temporary directory, this tree's node_modules linked in), runs alternating
 * before/after so both see the same machine load; medians per side, and after/before ratios.
 *
 *   npm run bench:investigate                             # this tree, 3 runs
 *   npm run bench:investigate -- --before main --runs 5   # main vs this tree
 *   BENCH_PODS=500 BENCH_SETTLE=0 node bench/investigate.ts
 *
 * Environment: BENCH_PODS (2000), BENCH_HISTORY (3h), BENCH_TIME_SCALE (60 simulated seconds per
 * wall second), BENCH_SETTLE (settle window, 60 cluster seconds: 1 s of wall time at scale 60).
 */
import { spawn, execFileSync } from 'node:child_process';
import { mkdtempSync, rmSync, symlinkSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { parseArgs } from 'node:util';
import type { RunResult } from './investigate-run.ts';

const here = resolve(import.meta.dirname, '..');
const { values } = parseArgs({
  options: { before: { type: 'string' }, runs: { type: 'string', default: '3' } },
});
const runs = Number(values.runs);
if (!Number.isInteger(runs) || runs < 1)
  throw new Error(`--runs must be a whole number ≥ 1, got '${values.runs}'`);

/** `ref` of this repository unpacked into a temporary directory that uses this tree's node_modules. */
function unpack(ref: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'sentinel-bench-before-'));
  const archive = execFileSync('git', ['-C', here, 'archive', '--format=tar', ref], {
    maxBuffer: 512 * 1024 * 1024,
  });
  execFileSync('tar', ['-x', '-C', dir], { input: archive });
  symlinkSync(join(here, 'node_modules'), join(dir, 'node_modules'), 'dir');
  return dir;
}

/** One run in a child process; its JSON line, or an error carrying its stderr. */
function runOnce(root: string): Promise<RunResult> {
  return new Promise((done, fail) => {
    const child = spawn(process.execPath, ['--no-warnings', join(here, 'bench/investigate-run.ts'), root], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let out = '';
    let err = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (err += chunk.toString()));
    child.on('close', (code) => {
      const line = out.trim().split('\n').at(-1);
      if (code === 0 && line) done(JSON.parse(line) as RunResult);
      else fail(new Error(`run against ${root} exited ${code}:\n${err}`));
    });
  });
}

const median = (numbers: number[]): number => {
  const sorted = [...numbers].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2;
};

interface Side {
  label: string;
  root: string;
  results: RunResult[];
}

const sides: Side[] = [];
const beforeRoot = values.before ? unpack(values.before) : undefined;
if (beforeRoot) sides.push({ label: `before (${values.before})`, root: beforeRoot, results: [] });
sides.push({ label: 'after (this tree)', root: here, results: [] });

try {
  for (let run = 1; run <= runs; run++) {
    for (const side of sides) {
      const result = await runOnce(side.root);
      side.results.push(result);
      process.stderr.write(
        `run ${run}/${runs} ${side.label}: ${result.wallMs} ms wall, ${result.cpuMs} ms CPU, ${result.requests} requests\n`,
      );
    }
  }
} finally {
  if (beforeRoot) rmSync(beforeRoot, { recursive: true, force: true });
}

const first = sides[0]!.results[0]!;
const out = process.stdout;
out.write(
  `${first.pods} Pods, time scale ${first.timeScale}, settle ${first.settleSeconds}s; medians of ${runs} run(s) per side, alternating (CPU: the run's process — server, simulator and investigator)\n`,
);
for (const side of sides) out.write(`${side.label}: ${side.results[0]!.outcome}\n`);

/** Rows of `metric | side… | ratio (last/first)`. */
const rows: [string, ...number[]][] = [];
const metric = (name: string, pick: (r: RunResult) => number) =>
  rows.push([name, ...sides.map((side) => median(side.results.map(pick)))]);
metric('wall ms', (r) => r.wallMs);
metric('  without settle', (r) => r.wallMs - (r.phases['settle']?.wallMs ?? 0));
metric('CPU ms', (r) => r.cpuMs);
metric('Kubernetes requests', (r) => r.requests);
metric('response KiB', (r) => Math.round(r.responseBytes / 1024));
const kinds = [...new Set(sides.flatMap((side) => side.results.flatMap((r) => Object.keys(r.byKind))))];
kinds.sort((a, b) => (first.byKind[b] ?? 0) - (first.byKind[a] ?? 0));
for (const kind of kinds) metric(`  ${kind}`, (r) => r.byKind[kind] ?? 0);
const phases = [...new Set(sides.flatMap((side) => side.results.flatMap((r) => Object.keys(r.phases))))];
for (const phase of phases) {
  metric(`phase ${phase}: wall ms`, (r) => r.phases[phase]?.wallMs ?? 0);
  metric(`phase ${phase}: requests`, (r) => r.phases[phase]?.requests ?? 0);
}

const width = Math.max(...rows.map(([name]) => name.length));
const columns = sides.map((side) => Math.max(side.label.length, 8));
out.write(
  `${''.padEnd(width)}  ${sides.map((side, i) => side.label.padStart(columns[i]!)).join('  ')}${sides.length > 1 ? '   after/before' : ''}\n`,
);
for (const [name, ...cells] of rows) {
  const ratio =
    sides.length > 1
      ? `   ${cells[0] ? (cells.at(-1)! / cells[0]).toFixed(2) : cells.at(-1) ? '∞' : '-'}`
      : '';
  out.write(
    `${name.padEnd(width)}  ${cells.map((cell, i) => String(Math.round(cell)).padStart(columns[i]!)).join('  ')}${ratio}\n`,
  );
}
