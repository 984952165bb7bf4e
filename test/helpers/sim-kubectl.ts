/**
 * Runs the real kubectl against a simulator: a private HOME and discovery cache per suite, the
 * simulator's kubeconfig, and the exit code, stdout and stderr of every run (a failing command is a
 * result, not a throw, so tests can assert on kubectl's error text).
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';

export interface KubectlResult {
  code: number;
  stdout: string;
  stderr: string;
}

/** `kubectl --kubeconfig <kubeconfig> ...args` with HOME and the cache under `dir`; optional stdin. */
export function runKubectl(
  kubectlPath: string,
  kubeconfig: string,
  dir: string,
  args: string[],
  input?: string,
): Promise<KubectlResult> {
  return new Promise((resolve) => {
    const child = execFile(
      kubectlPath,
      ['--kubeconfig', kubeconfig, ...args],
      {
        timeout: 120_000,
        env: { ...process.env, HOME: dir, KUBECACHEDIR: join(dir, 'cache') },
      },
      (error, stdout, stderr) => {
        const code = error ? (typeof error.code === 'number' ? error.code : 1) : 0;
        resolve({ code, stdout, stderr });
      },
    );
    if (input !== undefined) child.stdin?.end(input);
  });
}
