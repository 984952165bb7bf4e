/**
 * Summarises a V8 CPU profile (`node --cpu-prof`, e.g. a target of `BENCH_CPU_PROF=<dir> npm run
 * bench`): busy time by area (a package under node_modules, a folder of the project, node's own
 * code, GC; and again with node's own code charged to its caller), the functions with the most self time, and the project and package functions with the
 * most inclusive time (time on the stack, each sample counted once per function).
 *
 *   node bench/cpu-profile.ts /tmp/prof/CPU.20261202.061500.1234.0.001.cpuprofile [top=25]
 *
 * Times are ms of the profile's samples (idle excluded from "busy"); not a test, no exit code.
 */
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number };
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  samples: number[];
  timeDeltas: number[];
}

const ROOT = fileURLToPath(new URL('..', import.meta.url));

/** `undici`, `server/gate`, `(node)`, `(garbage collector)`, … for a call frame. */
function areaOf(frame: ProfileNode['callFrame']): string {
  const { url, functionName } = frame;
  if (!url) return functionName.startsWith('(') ? functionName : '(native)';
  const modules = url.lastIndexOf('/node_modules/');
  if (modules >= 0) {
    const [scope, name] = url.slice(modules + 14).split('/');
    return scope!.startsWith('@') ? `${scope}/${name}` : scope!;
  }
  if (url.startsWith('node:')) return '(node)';
  const path = url.startsWith('file://') ? fileURLToPath(url) : url;
  if (path.startsWith(ROOT)) {
    const parts = path.slice(ROOT.length).split('/');
    return parts.length > 2 ? `${parts[0]}/${parts[1]}` : parts[0]!;
  }
  return '(other)';
}

function label(frame: ProfileNode['callFrame']): string {
  const where = frame.url
    ? `${frame.url
        .replace(/^file:\/\//, '')
        .replace(ROOT, '')
        .replace(/^.*\/node_modules\//, '')}:${frame.lineNumber + 1}`
    : '';
  return `${frame.functionName || '(anonymous)'} ${where}`.trim();
}

function summarise(profile: Profile, top: number): string {
  const byId = new Map(profile.nodes.map((node) => [node.id, node]));
  const parent = new Map<number, number>();
  for (const node of profile.nodes) for (const child of node.children ?? []) parent.set(child, node.id);
  const self = new Map<number, number>();
  profile.samples.forEach((id, i) => self.set(id, (self.get(id) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000));
  let total = 0;
  let idle = 0;
  const areas = new Map<string, number>();
  // Node's own code and native frames charged to the nearest package or project frame that called them.
  const callers = new Map<string, number>();
  const selfByFunction = new Map<string, number>();
  const inclusive = new Map<string, number>();
  for (const [id, ms] of self) {
    const node = byId.get(id)!;
    total += ms;
    if (node.callFrame.functionName === '(idle)') {
      idle += ms;
      continue;
    }
    const area = areaOf(node.callFrame);
    areas.set(area, (areas.get(area) ?? 0) + ms);
    let caller = area;
    for (let at = parent.get(id); caller.startsWith('(') && at !== undefined; at = parent.get(at)) {
      const above = areaOf(byId.get(at)!.callFrame);
      if (!above.startsWith('(')) caller = above;
    }
    callers.set(caller, (callers.get(caller) ?? 0) + ms);
    const name = label(node.callFrame);
    selfByFunction.set(name, (selfByFunction.get(name) ?? 0) + ms);
    const seen = new Set<string>();
    for (let at: number | undefined = id; at !== undefined; at = parent.get(at)) {
      const frame = byId.get(at)!.callFrame;
      if (!frame.url) continue;
      const key = label(frame);
      if (seen.has(key)) continue;
      seen.add(key);
      inclusive.set(key, (inclusive.get(key) ?? 0) + ms);
    }
  }
  const busy = total - idle;
  const rows = (map: Map<string, number>, n: number) =>
    [...map]
      .sort((a, b) => b[1] - a[1])
      .slice(0, n)
      .map(
        ([name, ms]) =>
          `  ${ms.toFixed(0).padStart(7)} ms ${((ms / busy) * 100).toFixed(1).padStart(5)} %  ${name}`,
      );
  return [
    `profile: ${total.toFixed(0)} ms sampled, ${busy.toFixed(0)} ms busy, ${idle.toFixed(0)} ms idle`,
    'busy time by area (self):',
    ...rows(areas, top),
    "busy time by area, node's own and native code charged to the nearest caller outside it:",
    ...rows(callers, top),
    `top ${top} functions by self time:`,
    ...rows(selfByFunction, top),
    `top ${top} functions by inclusive time:`,
    ...rows(inclusive, top),
  ].join('\n');
}

const [file, n] = process.argv.slice(2);
if (!file) {
  process.stderr.write('usage: node bench/cpu-profile.ts <file.cpuprofile> [top=25]\n');
  process.exitCode = 2;
} else {
  process.stdout.write(`${summarise(JSON.parse(readFileSync(file, 'utf8')) as Profile, Number(n ?? 25))}\n`);
}
