/**
 * `execArgv` for forking a checkout's `.ts` entry (bench/target.ts) the way bin/sentinel.js runs it:
 * with that checkout's type-stripping cache (bin/ts-cache.js) installed before the first `.ts` file,
 * so the forked process never initialises Node's type stripper (~17 MB RSS and its start-up time,
 * which `sentinel serve` does not pay on a warm cache). Empty for a checkout without bin/ts-cache.js
 * (it then runs as before: Node strips every file).
 */
import { existsSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';

/** `['--import', 'data:…']` installing the cache of the checkout holding `script` (its bench/ file). */
export function tsCacheExecArgv(script: string): string[] {
  const cache = join(dirname(script), '..', 'bin', 'ts-cache.js');
  if (!existsSync(cache)) return [];
  const code = `import { installTypeScriptCache } from ${JSON.stringify(pathToFileURL(cache).href)}; installTypeScriptCache();`;
  return ['--import', `data:text/javascript,${encodeURIComponent(code)}`];
}
