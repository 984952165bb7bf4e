/**
 * How a printed hint names the `sentinel` CLI so it runs where it is printed: `npx sentinel` inside
 * this project's clone (the bin is not on PATH there), `sentinel` when it was started through a link
 * on PATH (`npm link`, a global install), else `node <clone>/bin/sentinel.js`.
 */
import { realpathSync } from 'node:fs';
import { isAbsolute, join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';

const ROOT = fileURLToPath(new URL('..', import.meta.url));

const inside = (path: string, dir: string) => {
  const rel = relative(dir, path);
  return rel === '' || (!rel.startsWith('..') && !isAbsolute(rel));
};

/** The command to type for the CLI, from `cwd` (default the process's) and the script it runs as. */
export function sentinelCommand(
  cwd: string = process.cwd(),
  script: string | undefined = process.argv[1],
): string {
  if (inside(cwd, ROOT)) return 'npx sentinel';
  if (script !== undefined && !inside(script, ROOT)) {
    try {
      if (inside(realpathSync(script), ROOT)) return 'sentinel'; // a link on PATH to this clone's bin
    } catch {
      // fall through
    }
  }
  return `node ${join(ROOT, 'bin', 'sentinel.js')}`;
}
