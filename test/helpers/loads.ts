/**
 * What a Node process loads: runs `node --import record-loads.mjs <args>` and returns its exit code,
 * output and the URLs of every module it loaded (project files as paths relative to the clone,
 * packages as `node_modules/<name>/…`). For start-up tests that assert which modules a command does
 * not load — behaviour, not time.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HOOK = fileURLToPath(new URL('./record-loads.mjs', import.meta.url));
const BIN = fileURLToPath(new URL('../../bin/sentinel.js', import.meta.url));

export interface LoadsResult {
  code: number | null;
  stdout: string;
  stderr: string;
  /** Loaded modules: `cli/program.ts`, `node_modules/zod/index.js`, `node:fs`, … */
  loaded: string[];
}

/** Runs `node <args>` from the clone's root with `env` added, recording the modules it loads. */
export async function loadsOf(args: string[], env: Record<string, string> = {}): Promise<LoadsResult> {
  const dir = mkdtempSync(join(tmpdir(), 'sentinel-loads-'));
  const file = join(dir, 'loads.txt');
  try {
    const child = spawn(process.execPath, ['--import', pathToFileURL(HOOK).href, ...args], {
      cwd: ROOT,
      env: { ...process.env, ...env, SENTINEL_TEST_LOADS_FILE: file },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += String(chunk)));
    child.stderr.on('data', (chunk) => (stderr += String(chunk)));
    const code = await new Promise<number | null>((resolve) => child.on('close', resolve));
    const root = pathToFileURL(ROOT).href;
    const loaded = readLoadLog(file).map((url) => (url.startsWith(root) ? url.slice(root.length) : url));
    return { code, stdout, stderr, loaded };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The packages among `loaded` (`zod`, `@kubernetes/client-node`), each once, sorted. */
export function packagesOf(loaded: string[]): string[] {
  const names = loaded.flatMap((path) => {
    const match = /(?:^|\/)node_modules\/((?:@[^/]+\/)?[^/]+)\//.exec(path);
    return match ? [match[1]!] : [];
  });
  return [...new Set(names)].sort();
}

/** Reads a module-load log written by record-loads.mjs: one module URL a line. */
export function readLoadLog(file: string): string[] {
  return readFileSync(file, 'utf8').split('\n').filter(Boolean);
}

/** What `serveRecordingLoads` takes. */
export interface ServeRecordingLoadsOptions {
  /** The flags after `sentinel serve` (`--port 0` is the caller's to pass). */
  args: string[];
  /** Added to the environment; `undefined` removes a variable (e.g. `SENTINEL_DATA_DIR`). */
  env?: Record<string, string | undefined>;
  /** The module-load log; with `perProcess`, each process writes `<logFile>.<pid>` instead. */
  logFile: string;
  perProcess?: boolean;
  /** A stderr pattern that says the server is up; start-up fails if the process exits first. */
  ready: RegExp;
}

/** A running `sentinel serve` process started by `serveRecordingLoads`. */
export interface ServeRecordingLoads {
  child: ChildProcess;
  /** `http://127.0.0.1:<port>` from the banner's `listening on …/mcp` line. */
  url: string;
  /** Everything the process printed on stderr so far. */
  stderr: () => string;
  /** What the process had loaded when `ready` matched (the single-process log; [] with perProcess). */
  loadedAtReady: string[];
  /** What the process has loaded so far (the single-process log). */
  loaded: () => string[];
  /** With perProcess: the modules each process of the tree loaded, by pid. */
  loadsByPid: () => Map<number, string[]>;
  /** SIGTERM and wait for the exit (no-op once it has exited). */
  stop: () => Promise<void>;
}

/**
 * Runs `node --import record-loads.mjs bin/sentinel.js serve <args>` and resolves once its stderr
 * matches `ready`, so a start-up test can assert which modules the server (or each process of a
 * `--workers` tree) loaded. Rejects with the stderr if the process exits before that.
 */
export async function serveRecordingLoads(options: ServeRecordingLoadsOptions): Promise<ServeRecordingLoads> {
  const { logFile, perProcess = false } = options;
  const env: NodeJS.ProcessEnv = { ...process.env, SENTINEL_TEST_LOADS_FILE: logFile };
  if (perProcess) env.SENTINEL_TEST_LOADS_PER_PROCESS = '1';
  for (const [name, value] of Object.entries(options.env ?? {})) {
    if (value === undefined) delete env[name];
    else env[name] = value;
  }
  if (!perProcess) writeFileSync(logFile, '');
  const loaded = () => (perProcess ? [] : readLoadLog(logFile));
  const loadsByPid = () => {
    const prefix = `${basename(logFile)}.`;
    return new Map(
      readdirSync(dirname(logFile))
        .filter((name) => name.startsWith(prefix))
        .map((name) => [Number(name.slice(prefix.length)), readLoadLog(join(dirname(logFile), name))]),
    );
  };
  const child = spawn(process.execPath, ['--import', HOOK, BIN, 'serve', ...options.args], {
    env,
    stdio: ['ignore', 'ignore', 'pipe'],
  });
  let stderr = '';
  const loadedAtReady = await new Promise<string[]>((resolve, reject) => {
    let up = false;
    child.stderr!.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (!up && options.ready.test(stderr)) {
        up = true;
        // Read now, in the same callback: what was loaded when the line was printed.
        resolve(loaded());
      }
    });
    child.once('exit', (code) => reject(new Error(`serve exited with ${code}: ${stderr}`)));
  });
  const url = /listening on (http:\/\/127\.0\.0\.1:\d+)\/mcp/.exec(stderr)?.[1];
  if (url === undefined) {
    child.kill('SIGTERM');
    throw new Error(`serve printed no 'listening on …/mcp' line: ${stderr}`);
  }
  return {
    child,
    url,
    stderr: () => stderr,
    loadedAtReady,
    loaded,
    loadsByPid,
    stop: async () => {
      if (child.exitCode !== null || child.signalCode !== null) return;
      child.kill('SIGTERM');
      await once(child, 'exit');
    },
  };
}
