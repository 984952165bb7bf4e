/**
 * What Linux's /proc says about a benchmark target's processes (bench/target.ts): CPU time of a
 * process and of its main thread alone, RSS, and involuntary context switches. Each answers 0 where
 * /proc is missing.
 */
import { readFileSync } from 'node:fs';

/** The name under which a one-process target reports its main thread's CPU (`processes` of its usage). */
export const MAIN_THREAD = 'server main thread';

/**
 * Times the main (JavaScript) thread of process `pid` was preempted: its involuntary context
 * switches (`nonvoluntary_ctxt_switches` of /proc/<pid>/status).
 */
export function preemptions(pid: number): number {
  try {
    return Number(
      /nonvoluntary_ctxt_switches:\s+(\d+)/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0,
    );
  } catch {
    return 0;
  }
}

/** User + system CPU µs in a /proc `stat` file (of a process or of one thread; ticks at 100 Hz). */
function statCpuMicros(file: string): number {
  const stat = readFileSync(file, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return (Number(fields[11]) + Number(fields[12])) * 10_000;
}

/**
 * CPU µs of the main (JavaScript) thread of process `pid` alone, without V8's and libuv's helper
 * threads (/proc/<pid>/task/<pid>/stat).
 */
export function mainThreadCpuMicros(pid: number): number {
  try {
    return statCpuMicros(`/proc/${pid}/task/${pid}/stat`);
  } catch {
    return 0;
  }
}

/** CPU µs and RSS bytes of process `pid`, all its threads. */
export function procUsage(pid: number): { cpuMicros: number; rss: number } {
  try {
    const rssPages = Number(readFileSync(`/proc/${pid}/statm`, 'utf8').split(' ')[1]);
    return { cpuMicros: statCpuMicros(`/proc/${pid}/stat`), rss: rssPages * 4096 };
  } catch {
    return { cpuMicros: 0, rss: 0 };
  }
}
