/**
 * The top-level modules (agent/, server/, tools/, core/, trueforge/, cli/, …) depend on each other
 * in one direction only: no cycle between them, through static, type-only or literal dynamic
 * imports alike. A cycle is how `server/gate/upstream.ts → agent/index.ts → agent/harness/names.ts →
 * server/index.ts` once made whichever module loaded first see the other half-initialised (the
 * bench had to import agent/ first). Imports are read with TypeScript's own pre-processor, the
 * graph is of modules (a module's own files may import each other freely), and test/ is left out
 * (tests import across everything).
 */
import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve, sep } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('..', import.meta.url));
const SKIPPED = new Set(['test', 'node_modules', 'docs', 'coverage', 'test-results']);

/** Source files of a directory, recursively (`.ts`, `.js`). */
function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return /\.(ts|js)$/.test(name) ? [path] : [];
  });
}

/** The top-level module a repository path belongs to (`server`, `agent`, …; `.` for root files). */
const moduleOf = (path: string) => {
  const parts = relative(ROOT, path).split(sep);
  return parts.length > 1 ? parts[0]! : '.';
};

/** Edge `from → to` between modules, with one importing file as the example. */
type ModuleEdges = Map<string, Map<string, string>>;

function moduleEdges(): ModuleEdges {
  const modules = readdirSync(ROOT).filter(
    (name) => !name.startsWith('.') && !SKIPPED.has(name) && statSync(join(ROOT, name)).isDirectory(),
  );
  const edges: ModuleEdges = new Map();
  for (const file of modules.flatMap((module) => sourceFiles(join(ROOT, module)))) {
    const from = moduleOf(file);
    const imports = ts.preProcessFile(readFileSync(file, 'utf8'), true, true).importedFiles;
    for (const { fileName } of imports) {
      if (!fileName.startsWith('.')) continue; // a package
      const to = moduleOf(resolve(dirname(file), fileName));
      if (to === from || to === 'test' || to === '.') continue;
      const out = edges.get(from) ?? new Map<string, string>();
      if (!out.has(to)) out.set(to, `${relative(ROOT, file)} imports ${fileName}`);
      edges.set(from, out);
    }
  }
  return edges;
}

/**
 * Every cycle of the module graph, one per strongly connected component of more than one module,
 * as the path `a → b → … → a` with the importing file of each step.
 */
function moduleCycles(edges: ModuleEdges): string[][] {
  // Tarjan's strongly connected components.
  let index = 0;
  const indexOf = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const components: string[][] = [];
  const visit = (node: string) => {
    indexOf.set(node, index);
    low.set(node, index++);
    stack.push(node);
    for (const next of edges.get(node)?.keys() ?? []) {
      if (!indexOf.has(next)) {
        visit(next);
        low.set(node, Math.min(low.get(node)!, low.get(next)!));
      } else if (stack.includes(next)) low.set(node, Math.min(low.get(node)!, indexOf.get(next)!));
    }
    if (low.get(node) === indexOf.get(node)) {
      const component: string[] = [];
      let member: string;
      do {
        member = stack.pop()!;
        component.push(member);
      } while (member !== node);
      if (component.length > 1) components.push(component);
    }
  };
  for (const node of edges.keys()) if (!indexOf.has(node)) visit(node);
  // One cycle through each component: breadth-first from its first module back to it.
  return components.map((component) => {
    const start = component.sort()[0]!;
    const inside = new Set(component);
    const previous = new Map<string, string>();
    const queue = [start];
    while (queue.length > 0) {
      const node = queue.shift()!;
      for (const next of edges.get(node)?.keys() ?? []) {
        if (!inside.has(next) || previous.has(next)) continue;
        previous.set(next, node);
        if (next === start) queue.length = 0;
        else queue.push(next);
      }
    }
    const path = [start];
    for (let node = previous.get(start)!; node !== start; node = previous.get(node)!) path.unshift(node);
    path.unshift(start);
    return path
      .slice(0, -1)
      .map((node, i) => `${node} → ${path[i + 1]} (${edges.get(node)!.get(path[i + 1]!)})`);
  });
}

const graph = (pairs: [string, string][]): ModuleEdges => {
  const edges: ModuleEdges = new Map();
  for (const [from, to] of pairs) edges.set(from, (edges.get(from) ?? new Map()).set(to, `${from}/x.ts`));
  return edges;
};

describe('the top-level module graph', () => {
  it('finds a cycle, naming each step and the file that makes it, and nothing in a layered graph', () => {
    expect(
      moduleCycles(
        graph([
          ['cli', 'agent'],
          ['server', 'agent'],
          ['agent', 'server'],
          ['agent', 'core'],
        ]),
      ),
    ).toEqual([['agent → server (agent/x.ts)', 'server → agent (server/x.ts)']]);
    expect(
      moduleCycles(
        graph([
          ['a', 'b'],
          ['b', 'c'],
          ['c', 'a'],
          ['c', 'd'],
        ]),
      ),
    ).toEqual([['a → b (a/x.ts)', 'b → c (b/x.ts)', 'c → a (c/x.ts)']]);
    expect(
      moduleCycles(
        graph([
          ['cli', 'agent'],
          ['cli', 'server'],
          ['agent', 'server'],
          ['server', 'core'],
        ]),
      ),
    ).toEqual([]);
  });

  it('has no cycle between the modules of this repository', () => {
    const edges = moduleEdges();
    // The graph is really read: the command line depends on the server, the server on the tools.
    expect(edges.get('cli')?.has('server')).toBe(true);
    expect(edges.get('server')?.has('tools')).toBe(true);
    expect(moduleCycles(edges)).toEqual([]);
  });
});
