/**
 * `sentinel investigate` with the local investigator, as the command line sees it: usage errors come
 * first (before any line about which server is used) and exit 2; the fresh user's flow of Ctrl-C,
 * `sentinel approvals approve` and `--resume` ends with the process exiting.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it } from 'vitest';
import type { Report } from '../../agent/investigator/report.ts';
import { runCli } from '../helpers/cli.ts';
import { startIncident, type Incident } from '../helpers/incident.ts';
import { registerServer } from '../../server/discovery.ts';
import { tempDataDir } from '../helpers/server.ts';

const BIN = fileURLToPath(new URL('../../bin/sentinel.js', import.meta.url));

/** `sentinel <args>` as a child process with stdin left open (a shell's pipe), no SENTINEL_* variables. */
function sentinel(args: string[]): ChildProcess & { out: () => string; err: () => string } {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('SENTINEL_')));
  const child = spawn(process.execPath, [BIN, ...args], { env, stdio: ['pipe', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout!.on('data', (chunk: Buffer) => (out += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (err += chunk.toString()));
  return Object.assign(child, { out: () => out, err: () => err });
}

const exited = (child: ChildProcess) =>
  new Promise<number | null>((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });

async function until(probe: () => boolean): Promise<void> {
  while (!probe()) await new Promise((resolve) => setTimeout(resolve, 50));
}

describe('sentinel investigate (local): usage errors first', () => {
  const data = tempDataDir();

  it('without a symptom: the usage error alone, exit 2, nothing about servers', async () => {
    const result = await runCli(['investigate', '--data-dir', data.dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'sentinel: Say what is wrong: npx sentinel investigate "<symptom>" --namespace <ns>.\n',
    );
  });

  it('without --namespace: the usage error alone, exit 2', async () => {
    const result = await runCli(['investigate', 'checkout returns 502', '--data-dir', data.dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toBe(
      'sentinel: --namespace is required: the namespace to investigate, e.g. --namespace shop.\n',
    );
  });
});

describe('sentinel investigate (local): --kubeconfig names the cluster', () => {
  const data = tempDataDir();

  it('with a `sentinel serve` running, --kubeconfig starts a server in-process instead of using it', async () => {
    // A live discovery entry (this process's pid) for a serve of another cluster.
    const remove = registerServer(data.dir, {
      url: 'http://127.0.0.1:9/',
      pid: process.pid,
      started: new Date().toISOString(),
      kind: 'serve',
    });
    try {
      const result = await runCli([
        'investigate',
        'checkout returns 502',
        '-n',
        'shop',
        '--kubeconfig',
        `${data.dir}/missing.kubeconfig`,
        '--data-dir',
        data.dir,
      ]);
      expect(result.stderr).not.toContain('Using the Sentinel server running at');
      expect(result.stderr).toContain(
        '--kubeconfig/--context given: starting a Sentinel server in-process for that cluster (not the one running at http://127.0.0.1:9/).',
      );
    } finally {
      remove();
    }
  });

  it('with an explicit --server, --kubeconfig is a usage error naming both, exit 2', async () => {
    const result = await runCli([
      'investigate',
      'checkout returns 502',
      '-n',
      'shop',
      '--server',
      'http://127.0.0.1:9/mcp',
      '--kubeconfig',
      `${data.dir}/missing.kubeconfig`,
      '--data-dir',
      data.dir,
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(
      /--kubeconfig\/--context choose the cluster of a server started in-process/,
    );
  });
});

describe('sentinel investigate (local): Ctrl-C, approve with the CLI, --resume', { timeout: 300_000 }, () => {
  let incident: Incident | undefined;
  const children: ChildProcess[] = [];
  afterEach(async () => {
    for (const child of children.splice(0)) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    await incident?.close();
  });

  it('the resumed run prints the report and exits 0, though its stdin stays open', async () => {
    incident = await startIncident('bad-image-rollout');
    const { dataDir } = incident;
    const first = sentinel([
      'investigate',
      'checkout returns 502',
      '-n',
      'shop',
      '--server',
      `${incident.server.url}/mcp`,
      '--data-dir',
      dataDir,
    ]);
    children.push(first);
    await until(() => first.err().includes('Waiting for a decision'));
    first.kill('SIGINT');
    expect(await exited(first), first.err()).toBe(130);
    const requestId = /approval request (apr_\w+) \(nothing has run/.exec(first.err())![1]!;
    const investigationId = /--resume (inv_\w+)/.exec(first.err())![1]!;

    // Another terminal approves: no --server, no --token (discovery finds both).
    const approved = await runCli([
      'approvals',
      'approve',
      requestId,
      '--confirm',
      'checkout',
      '--data-dir',
      dataDir,
    ]);
    expect(approved.code, approved.stderr).toBe(0);

    const resumed = sentinel([
      'investigate',
      '--resume',
      investigationId,
      '--settle-seconds',
      '0',
      '--json',
      '--data-dir',
      dataDir,
    ]);
    children.push(resumed);
    expect(await exited(resumed), resumed.err()).toBe(0);
    const report = JSON.parse(resumed.out()) as Report;
    expect(report.action).toMatchObject({ status: 'executed', approval_request_id: requestId });
    expect(incident.mutations()).toHaveLength(1);
  });
});
