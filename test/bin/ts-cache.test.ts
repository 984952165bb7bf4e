/**
 * bin/ts-cache.js: the launcher's cache of Node's type stripping. A cold load strips with Node's
 * own `stripTypeScriptTypes` (lines unchanged) and stores the result under the source's hash; a warm
 * load uses the stored JavaScript instead of stripping; an unwritable cache is skipped.
 */
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { chmodSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { stripTypeScriptTypes } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import { ROOT } from '../helpers/loads.ts';

const SAMPLE = join(ROOT, 'test/fixtures/ts-cache/sample.ts');
const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** Imports the sample in a fresh process with the cache installed on `dir`; prints its exports. */
function loadSample(dir: string): { answer: number; line: number; stderr: string } {
  const script = `
    const { installTypeScriptCache } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'bin/ts-cache.js')).href)});
    if (!installTypeScriptCache(${JSON.stringify(dir)})) throw new Error('not installed');
    const { answer, line } = await import(${JSON.stringify(pathToFileURL(SAMPLE).href)});
    console.log(JSON.stringify({ answer: answer.value, line: line() }));`;
  const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
  expect(result.status, result.stderr).toBe(0);
  return { ...(JSON.parse(result.stdout) as { answer: number; line: number }), stderr: result.stderr };
}

const tempDir = () => {
  const dir = mkdtempSync(join(tmpdir(), 'sentinel-ts-cache-'));
  dirs.push(dir);
  return dir;
};

describe('type-stripping cache (bin/ts-cache.js)', () => {
  it('stores what Node strips, under the hash of the source, and keeps line numbers', () => {
    const dir = tempDir();
    expect(loadSample(dir)).toMatchObject({ answer: 42, line: 6 });
    const source = readFileSync(SAMPLE, 'utf8');
    const hash = createHash('sha256').update(source).digest('hex');
    expect(readdirSync(dir)).toEqual([`${hash}.js`]);
    expect(readFileSync(join(dir, `${hash}.js`), 'utf8')).toBe(
      stripTypeScriptTypes(source, { mode: 'strip' }),
    );
  });

  it('loads the stored JavaScript on a warm start instead of stripping again', () => {
    const dir = tempDir();
    const hash = createHash('sha256').update(readFileSync(SAMPLE, 'utf8')).digest('hex');
    // A stored entry that differs from what stripping gives shows which one ran.
    writeFileSync(
      join(dir, `${hash}.js`),
      'export const answer = { value: 7 };\nexport const line = () => 0;\n',
    );
    expect(loadSample(dir)).toMatchObject({ answer: 7, line: 0 });
  });

  it('runs without caching when the cache directory cannot be written', () => {
    const dir = tempDir();
    chmodSync(dir, 0o500);
    try {
      expect(loadSample(join(dir, 'sub'))).toMatchObject({ answer: 42, line: 6 });
    } finally {
      chmodSync(dir, 0o700);
    }
  });
});

describe('compile cache (bin/ts-cache.js enableCompileCache)', () => {
  /** Enables the compile cache on `dir` with the type-stripping cache, loads the sample, flushes. */
  const loadCompiled = (dir: string, stripCache: string) => {
    const script = `
      const { enableCompileCache, installTypeScriptCache } = await import(${JSON.stringify(pathToFileURL(join(ROOT, 'bin/ts-cache.js')).href)});
      const enabled = enableCompileCache(${JSON.stringify(dir)});
      installTypeScriptCache(${JSON.stringify(stripCache)});
      const { answer } = await import(${JSON.stringify(pathToFileURL(SAMPLE).href)});
      (await import('node:module')).flushCompileCache();
      console.log(JSON.stringify({ enabled, answer: answer.value }));`;
    const result = spawnSync(process.execPath, ['--input-type=module', '-e', script], { encoding: 'utf8' });
    expect(result.status, result.stderr).toBe(0);
    return JSON.parse(result.stdout) as { enabled: boolean; answer: number };
  };
  const entries = (dir: string): string[] =>
    readdirSync(dir, { recursive: true, withFileTypes: true })
      .filter((entry) => entry.isFile())
      .map((entry) => entry.name);

  it('keeps compiled code of the stripped .ts modules in the given directory', () => {
    const dir = tempDir();
    const first = loadCompiled(dir, tempDir());
    expect(first).toEqual({ enabled: true, answer: 42 });
    expect(entries(dir).length).toBeGreaterThan(0);
    // A warm start reads the same entries and still runs the module.
    const written = entries(dir).sort();
    expect(loadCompiled(dir, tempDir())).toEqual({ enabled: true, answer: 42 });
    expect(entries(dir).sort()).toEqual(written);
  });

  it('reports false, and the process runs as before, when the directory cannot be used', () => {
    const file = join(tempDir(), 'not-a-dir');
    writeFileSync(file, '');
    expect(loadCompiled(join(file, 'cache'), tempDir())).toEqual({ enabled: false, answer: 42 });
  });
});
