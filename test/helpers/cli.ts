/**
 * Runs the `sentinel` CLI in-process (no child process): what it wrote to stdout/stderr and its exit
 * code. For commands that finish; long-running ones (`serve`) need a real process.
 */
import { vi } from 'vitest';
import { main } from '../../cli/program.ts';

export interface CliResult {
  code: number;
  stdout: string;
  stderr: string;
}

export async function runCli(args: string[]): Promise<CliResult> {
  let stdout = '';
  let stderr = '';
  const out = vi
    .spyOn(process.stdout, 'write')
    .mockImplementation((chunk) => ((stdout += String(chunk)), true));
  const err = vi
    .spyOn(process.stderr, 'write')
    .mockImplementation((chunk) => ((stderr += String(chunk)), true));
  const previous = process.exitCode;
  process.exitCode = undefined;
  try {
    await main(['node', 'sentinel', ...args]);
    return { code: Number(process.exitCode ?? 0), stdout, stderr };
  } finally {
    process.exitCode = previous;
    out.mockRestore();
    err.mockRestore();
  }
}
