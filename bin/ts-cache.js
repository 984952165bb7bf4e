// @ts-check
/**
 * A cache of Node's own type stripping for the `sentinel` launcher. Sentinel's sources are
 * TypeScript run by Node's built-in type stripping (no build step); every process pays for it
 * twice: once to initialise the stripper (a WebAssembly module, about as long as `node -e 0`
 * itself), and once per `.ts` file it loads. `installTypeScriptCache` registers a module load hook
 * that keeps the stripped JavaScript of each of the clone's `.ts` files in `.tools/ts-cache/`,
 * keyed by the file's content and the Node.js version, so a warm start loads plain JavaScript and
 * never initialises the stripper. A cold file is stripped with `module.stripTypeScriptTypes` in
 * `strip` mode — what Node does itself for a `.ts` file (whitespace in place of types, so lines
 * and columns, and with them stack traces, are unchanged) — and written once.
 *
 * Nothing else changes: module URLs (`import.meta.url`) stay the files', a file that cannot be
 * stripped fails as it would without the cache, and a cache that cannot be written (a read-only
 * install) is skipped. Plain JavaScript without dependencies, like ensure-node.js.
 */
import { createHash } from 'node:crypto';
import { mkdirSync, readFileSync, renameSync, writeFileSync } from 'node:fs';
import module from 'node:module';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import { DEFAULT_TOOLS_DIR } from './ensure-node.js';

/** The clone's root as a `file:` URL prefix: only its own sources are cached, never node_modules. */
const ROOT_URL = pathToFileURL(fileURLToPath(new URL('..', import.meta.url))).href;

/** Where the stripped files live, per Node.js version (another version may strip differently). */
export const TS_CACHE_DIR = join(DEFAULT_TOOLS_DIR, 'ts-cache', process.version);

/**
 * Where V8's compiled code for the launcher's modules is kept (Node's module compile cache, which
 * keeps one subdirectory per Node.js version and V8 flags): the clone's own ignored `.tools/`,
 * written by this user only — never a shared temporary directory, whose entries another user
 * could plant.
 */
export const COMPILE_CACHE_DIR = join(DEFAULT_TOOLS_DIR, 'compile-cache');

/**
 * Enables Node's module compile cache (`module.enableCompileCache`) in `dir` (default
 * `COMPILE_CACHE_DIR`): a warm start deserialises V8's code for every module instead of compiling
 * it — the project's `.ts` files too, as the source this cache's load hook returns is plain
 * JavaScript. Node checks each entry against the module's source (a changed file is compiled
 * anew) and writes new entries at exit. Returns false when unavailable or the directory cannot be
 * used (a read-only install): the process then compiles as before.
 * @param {string} [dir]
 * @returns {boolean}
 */
export function enableCompileCache(dir = COMPILE_CACHE_DIR) {
  if (typeof module.enableCompileCache !== 'function') return false;
  const { status } = module.enableCompileCache(dir);
  return (
    status === module.constants.compileCacheStatus.ENABLED ||
    status === module.constants.compileCacheStatus.ALREADY_ENABLED
  );
}

/** The warning `module.stripTypeScriptTypes` gives on first use (a cold cache): noise to users. */
export const STRIP_WARNING = /stripTypeScriptTypes/;

/**
 * Registers the load hook (once per process). `dir` is the cache directory (default
 * `TS_CACHE_DIR`). Returns false, doing nothing, on a Node.js without `module.registerHooks` or
 * `module.stripTypeScriptTypes` (the launcher then runs as before: Node strips every file).
 * @param {string} [dir]
 * @returns {boolean}
 */
export function installTypeScriptCache(dir = TS_CACHE_DIR) {
  const { registerHooks, stripTypeScriptTypes } = module;
  if (typeof registerHooks !== 'function' || typeof stripTypeScriptTypes !== 'function') return false;
  let writable = true;
  registerHooks({
    load(url, context, nextLoad) {
      const loaded = nextLoad(url, context);
      if (
        loaded.format !== 'module-typescript' ||
        !url.startsWith(ROOT_URL) ||
        url.slice(ROOT_URL.length).includes('node_modules/') ||
        loaded.source === undefined ||
        loaded.source === null
      ) {
        return loaded;
      }
      const source =
        typeof loaded.source === 'string' ? loaded.source : new TextDecoder().decode(loaded.source);
      const file = join(dir, `${createHash('sha256').update(source).digest('hex')}.js`);
      let stripped;
      try {
        stripped = readFileSync(file, 'utf8');
      } catch {
        stripped = stripTypeScriptTypes(source, { mode: 'strip' });
        if (writable) {
          try {
            mkdirSync(dir, { recursive: true });
            // Written whole, then renamed into place: a concurrent reader sees all of it or nothing.
            const temporary = `${file}.${process.pid}.tmp`;
            writeFileSync(temporary, stripped);
            renameSync(temporary, file);
          } catch {
            writable = false;
          }
        }
      }
      return { format: 'module', source: stripped, shortCircuit: true };
    },
  });
  return true;
}
