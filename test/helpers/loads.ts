/**
 * What a Node process loads: runs `node --import record-loads.mjs <args>` and returns its exit code,
 * output and the URLs of every module it loaded (project files as paths relative to the clone,
 * packages as `node_modules/<name>/…`). For start-up tests that assert which modules a command does
 * not load — behaviour, not time.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const HOOK = fileURLToPath(new URL('./record-loads.mjs', import.meta.url));

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
    const loaded = readFileSync(file, 'utf8')
      .split('\n')
      .filter(Boolean)
      .map((url) => (url.startsWith(root) ? url.slice(root.length) : url));
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
