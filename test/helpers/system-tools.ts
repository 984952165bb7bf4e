/**
 * Tests that need a system tool (kubectl, chromium, shellcheck) skip with a visible message when the
 * tool is missing — unless SENTINEL_REQUIRE_SYSTEM_TOOLS=1 (set by `.ci/run`), where a missing
 * tool fails the suite instead.
 */
import { execFileSync } from 'node:child_process';
import { describe } from 'vitest';

/** Absolute path of `command` on PATH, or undefined. */
export function findSystemTool(command: string): string | undefined {
  try {
    return execFileSync('sh', ['-c', `command -v ${command}`], { encoding: 'utf8' }).trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * `describe` when `command` exists; otherwise a visibly skipped suite (or, in CI, a failing one).
 * Usage: `describeWithTool('kubectl', 'kubectl against the simulator', () => { ... })`.
 */
export function describeWithTool(command: string, title: string, body: (path: string) => void): void {
  const path = findSystemTool(command);
  if (path) {
    describe(title, () => body(path));
    return;
  }
  const message = `${command} not found on PATH: skipping "${title}"`;
  if (process.env.SENTINEL_REQUIRE_SYSTEM_TOOLS === '1') {
    describe(title, () => {
      throw new Error(`${message} — SENTINEL_REQUIRE_SYSTEM_TOOLS=1 turns this skip into a failure`);
    });
    return;
  }
  process.stderr.write(`\n[SKIP] ${message}\n`);
  describe.skip(`${title} [SKIPPED: ${command} missing]`, () => body(''));
}
