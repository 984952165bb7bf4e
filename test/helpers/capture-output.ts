/**
 * Captures what the CLI writes to process.stdout and process.stderr during each test of the
 * enclosing `describe`, and resets `process.exitCode` around each test. Environment stubs are undone
 * after each test too.
 */
import { afterEach, beforeEach, vi } from 'vitest';

export interface CapturedOutput {
  /** stdout written since the test started (or the last `clear`). */
  readonly out: string;
  /** stderr written since the test started (or the last `clear`). */
  readonly err: string;
  clear(): void;
}

export function captureProcessOutput(): CapturedOutput {
  let out = '';
  let err = '';
  beforeEach(() => {
    out = '';
    err = '';
    vi.spyOn(process.stdout, 'write').mockImplementation((text) => ((out += String(text)), true));
    vi.spyOn(process.stderr, 'write').mockImplementation((text) => ((err += String(text)), true));
    process.exitCode = undefined;
  });
  afterEach(() => {
    vi.restoreAllMocks();
    vi.unstubAllEnvs();
    process.exitCode = undefined;
  });
  return {
    get out() {
      return out;
    },
    get err() {
      return err;
    },
    clear() {
      out = '';
      err = '';
    },
  };
}
