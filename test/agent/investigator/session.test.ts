/**
 * Local investigations across processes: a real `sentinel investigate` child process killed while it
 * waits for approval, and another one resuming it; the investigator's identity.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createApprovalsClient } from '../../../server/approvals-client.ts';
import { investigatorTokenFile } from '../../../agent/investigator/identity.ts';
import type { Report } from '../../../agent/investigator/report.ts';
import { openInvestigationStore } from '../../../agent/investigator/store.ts';
import { runLocalInvestigation } from '../../../agent/investigator/session.ts';
import { runCli } from '../../helpers/cli.ts';
import { capture, startIncident, type Incident } from '../../helpers/incident.ts';

const SENTINEL = fileURLToPath(new URL('../../../bin/sentinel.js', import.meta.url));

/** Starts `sentinel <args>` with no terminal (stdin ignored) and no Sentinel variables from the test's environment. */
function sentinel(args: string[]): ChildProcess & { output: () => { stdout: string; stderr: string } } {
  const env = Object.fromEntries(Object.entries(process.env).filter(([key]) => !key.startsWith('SENTINEL_')));
  const child = spawn(process.execPath, [SENTINEL, ...args], { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr!.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return Object.assign(child, { output: () => ({ stdout, stderr }) });
}

function exited(child: ChildProcess): Promise<number | null> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) resolve(child.exitCode);
    else child.once('exit', (code) => resolve(code));
  });
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 60_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const value = probe();
    if (value !== undefined) return value;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('local investigations across processes', { timeout: 240_000 }, () => {
  let incident: Incident | undefined;
  let child: ReturnType<typeof sentinel> | undefined;
  const scratchDirs: string[] = [];
  afterEach(async () => {
    if (child && child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await exited(child);
    }
    child = undefined;
    await incident?.close();
    incident = undefined;
    for (const dir of scratchDirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  });

  it('on Ctrl-C says what is still pending and how to resume, leaves no token file, exits 130', async () => {
    incident = await startIncident('bad-image-rollout');
    const dataDir = mkdtempSync(join(tmpdir(), 'sentinel-investigate-'));
    scratchDirs.push(dataDir);
    child = sentinel([
      'investigate',
      'checkout returns 502',
      '-n',
      'shop',
      '--kubeconfig',
      incident.kubeconfig,
      '--data-dir',
      dataDir,
    ]);
    await until('the wait loop', () =>
      child!.output().stderr.includes('Waiting for a decision') ? true : undefined,
    );
    child.kill('SIGINT');
    const code = await exited(child);
    const { stderr } = child.output();
    expect(code, stderr).toBe(130);
    expect(stderr).toMatch(
      /Still pending on the Sentinel server: approval request apr_\w+ \(nothing has run/,
    );
    // Its server was in-process and stopped with it: no `approvals show` hint that cannot work.
    expect(stderr).toContain("the server was this command's own and has stopped: resume to decide");
    expect(stderr).not.toContain('approvals show');
    expect(stderr).toMatch(
      new RegExp(`Resume with: npx sentinel investigate --resume inv_\\w+ --data-dir ${dataDir}`),
    );
    expect(readdirSync(dataDir).filter((name) => name.startsWith('local-server-'))).toEqual([]);
    expect(existsSync(join(dataDir, 'servers')) ? readdirSync(join(dataDir, 'servers')) : []).toEqual([]);
    expect(incident.mutations()).toEqual([]);
  });

  it('on Ctrl-C with a running server: the real request id, its page URL and the exact commands', async () => {
    incident = await startIncident('bad-image-rollout');
    const { dataDir } = incident;
    const base = incident.server.url;
    child = sentinel([
      'investigate',
      'checkout returns 502',
      '-n',
      'shop',
      '--server',
      `${base}/mcp`,
      '--data-dir',
      dataDir,
    ]);
    await until('the wait loop', () =>
      child!.output().stderr.includes('Waiting for a decision') ? true : undefined,
    );
    const [id] = openInvestigationStore(dataDir).list();
    const [requestId] = openInvestigationStore(dataDir).load(id!).pending_approval_ids;
    child.kill('SIGINT');
    const code = await exited(child);
    const { stderr } = child.output();
    expect(code, stderr).toBe(130);
    expect(stderr).toContain(
      `Still pending on the Sentinel server at ${base}: approval request ${requestId} (nothing has run).`,
    );
    expect(stderr).toContain(`Decide on the approvals page ${base}/ui/approvals, or see it with:`);
    expect(stderr).toContain(
      `  npx sentinel approvals show ${requestId} --server ${base} --data-dir ${dataDir}`,
    );
    expect(stderr).toContain(`Resume with: npx sentinel investigate --resume ${id} --data-dir ${dataDir}`);
    expect(stderr).not.toContain('<id>');
    expect((await incident.approvals.get(requestId!)).status).toBe('pending');
  });

  it('resumes after the process is killed while waiting for approval, and executes the call once', async () => {
    incident = await startIncident('bad-image-rollout');
    const { dataDir } = incident;
    const mcp = `${incident.server.url}/mcp`;
    child = sentinel([
      'investigate',
      'checkout returns 502',
      '-n',
      'shop',
      '--server',
      mcp,
      '--data-dir',
      dataDir,
    ]);

    const store = openInvestigationStore(dataDir);
    const waiting = await until('an investigation waiting for approval', () => {
      const [id] = store.list();
      const investigation = id ? store.load(id) : undefined;
      return investigation?.status === 'awaiting_approval' ? investigation : undefined;
    });
    const [requestId] = waiting.pending_approval_ids;
    await until('the wait loop', () =>
      child!.output().stderr.includes('Waiting for a decision') ? true : undefined,
    );
    expect(child.output().stderr).toContain(`Resume with: npx sentinel investigate --resume ${waiting.id}`);
    child.kill('SIGKILL');
    await exited(child);
    expect(incident.mutations()).toEqual([]);

    // Approved elsewhere (the approvals page, another terminal) while no investigator runs.
    await incident.approvals.approve(requestId!);

    child = sentinel([
      'investigate',
      '--resume',
      waiting.id,
      '--settle-seconds',
      '0',
      '--server',
      mcp,
      '--data-dir',
      dataDir,
      '--json',
    ]);
    const code = await exited(child);
    const { stdout, stderr } = child.output();
    expect(code, stderr).toBe(0);
    const report = JSON.parse(stdout) as Report;
    expect(report).toMatchObject({ id: waiting.id, status: 'done', pending_approval_ids: [] });
    expect(report.action).toMatchObject({
      status: 'executed',
      approval_request_id: requestId,
      decided_by: 'local',
    });
    expect(report.verification).toMatchObject({ healthy: true });
    expect(stderr).toContain(`Investigation ${waiting.id} (resumed)`);

    const request = await incident.approvals.get(requestId!);
    expect(request.executions).toHaveLength(1);
    expect(incident.mutations()).toHaveLength(1);
    // The resumed run did not repeat the steps the first one finished.
    expect(store.load(waiting.id).steps.map((s) => s.name)).toEqual([
      'triage',
      'evidence:checkout',
      'logs:checkout',
      'preview',
      'remediate',
      'verify:1',
    ]);
  }, 240_000); // two CLI processes start (each loads the whole CLI): slow on a loaded machine

  it('calls as `investigator`, an identity that can never approve its own request', async () => {
    incident = await startIncident('bad-image-rollout');
    const progress = capture();
    const run = runLocalInvestigation({
      symptom: 'checkout returns 502',
      namespace: 'shop',
      server: `${incident.server.url}/mcp`,
      dataDir: incident.dataDir,
      progress,
      pollMs: 50,
    });
    const store = openInvestigationStore(incident.dataDir);
    const waiting = await until('a held call', () => {
      const [id] = store.list();
      const investigation = id ? store.load(id) : undefined;
      return investigation?.pending_approval_ids.length ? investigation : undefined;
    });
    const token = readFileSync(investigatorTokenFile(incident.dataDir), 'utf8').trim();
    const asInvestigator = createApprovalsClient({ server: incident.server.url, token });
    const requestId = waiting.pending_approval_ids[0]!;
    expect((await asInvestigator.get(requestId)).requester).toBe('investigator');
    await expect(asInvestigator.approve(requestId)).rejects.toMatchObject({ code: 'forbidden' });

    await incident.approvals.deny(requestId, 'not during the sale');
    const { report } = await run;
    expect(report.action).toMatchObject({ status: 'declined', decision_reason: 'not during the sale' });
    expect(incident.mutations()).toEqual([]);
  });

  it('with its in-process server and no terminal, says where to approve and where the token is', async () => {
    incident = await startIncident('bad-image-rollout');
    const dataDir = mkdtempSync(join(tmpdir(), 'sentinel-investigate-'));
    scratchDirs.push(dataDir);
    const progress = capture();
    const run = runLocalInvestigation({
      symptom: 'checkout returns 502',
      namespace: 'shop',
      kubeconfig: incident.kubeconfig,
      dataDir,
      progress,
      pollMs: 50,
      verifyWaitSeconds: 5,
      clusterNow: () => incident!.sim.clock.now(),
    });
    const [, requestId, url, tokenFile] = await until(
      'the instructions',
      () =>
        /To approve (apr_\w+) \(or deny it\), either:\n {2}open (http:\/\/127\.0\.0\.1:\d+)\/ui\/approvals and sign in with the token in (\S+) \(valid while this command runs\), or\n/.exec(
          progress.text(),
        ) ?? undefined,
    );
    expect(progress.text()).toContain(
      `  run: npx sentinel approvals approve ${requestId} --server ${url} --token "$(cat ${tokenFile})"\n`,
    );
    expect(statSync(tokenFile!).mode & 0o777).toBe(0o600);
    const approvals = createApprovalsClient({ server: url!, token: readFileSync(tokenFile!, 'utf8').trim() });
    await approvals.approve(requestId!);
    const { report } = await run;
    expect(report.action).toMatchObject({ status: 'executed', decided_by: 'local' });
    expect(incident.mutations()).toHaveLength(1);
    expect(existsSync(tokenFile!)).toBe(false);
  });

  it('saves nothing when the command fails on its arguments or cannot reach the server', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sentinel-investigate-'));
    scratchDirs.push(dataDir);
    const run = (namespace: string, deployment?: string) =>
      runLocalInvestigation({
        symptom: 'checkout returns 502',
        namespace,
        deployment,
        server: 'http://127.0.0.1:1/mcp',
        dataDir,
        progress: capture(),
      });
    await expect(run('Bad_NS!')).rejects.toMatchObject({
      code: 'invalid_input',
      field: 'namespace',
      message: expect.stringMatching(/^--namespace 'Bad_NS!': must be a DNS-1123 label/),
    });
    await expect(run('shop', 'Bad!')).rejects.toMatchObject({ code: 'invalid_input', field: 'deployment' });
    await expect(run('shop')).rejects.toMatchObject({ code: 'unavailable' });
    expect(openInvestigationStore(dataDir).list()).toEqual([]);
  });

  it('refuses a cluster configuration it cannot use like a bad flag: exit 2, the file or context named, nothing saved', async () => {
    const dataDir = mkdtempSync(join(tmpdir(), 'sentinel-investigate-'));
    scratchDirs.push(dataDir);
    const kubeconfig = join(dataDir, 'kubeconfig');
    writeFileSync(
      kubeconfig,
      [
        'apiVersion: v1',
        'kind: Config',
        'current-context: lab',
        'clusters: [{name: lab, cluster: {server: "https://127.0.0.1:1"}}]',
        'users: [{name: me, user: {token: t}}]',
        'contexts: [{name: lab, context: {cluster: lab, user: me}}]',
      ].join('\n'),
    );
    const run = (flags: { kubeconfig?: string; context?: string }) =>
      runLocalInvestigation({ symptom: 'x', namespace: 'shop', ...flags, dataDir, progress: capture() });

    await expect(run({ kubeconfig: '/nonexistent' })).rejects.toMatchObject({
      code: 'invalid_input',
      field: 'kubeconfig',
      message: expect.stringContaining("kubeconfig file '/nonexistent' does not exist"),
    });
    await expect(run({ kubeconfig, context: 'nosuch' })).rejects.toMatchObject({
      code: 'invalid_input',
      field: 'context',
      message: expect.stringContaining(`Context 'nosuch' is not in kubeconfig '${kubeconfig}'; it has 'lab'`),
    });
    // No kubeconfig anywhere (and not in a Pod).
    vi.stubEnv('HOME', dataDir);
    vi.stubEnv('KUBECONFIG', undefined);
    vi.stubEnv('KUBERNETES_SERVICE_HOST', undefined);
    try {
      await expect(run({})).rejects.toMatchObject({
        code: 'invalid_input',
        field: 'kubeconfig',
        message: expect.stringMatching(/^No Kubernetes cluster is configured: .*--kubeconfig <file>/),
      });
      const cli = await runCli(['investigate', 'x', '-n', 'shop', '--data-dir', dataDir]);
      expect(cli.code).toBe(2);
      expect(cli.stderr).toContain('No Kubernetes cluster is configured');
      expect(cli.stderr).not.toContain('Resume with');
    } finally {
      vi.unstubAllEnvs();
    }
    const cli = await runCli([
      'investigate',
      'x',
      '-n',
      'shop',
      '--kubeconfig',
      '/nonexistent',
      '--data-dir',
      dataDir,
    ]);
    expect(cli).toMatchObject({ code: 2, stdout: '' });
    expect(cli.stderr).toContain("kubeconfig file '/nonexistent' does not exist");
    expect(cli.stderr).not.toContain('Investigation inv_');
    expect(openInvestigationStore(dataDir).list()).toEqual([]);
  });

  it('refuses --yes without a token to approve with', async () => {
    incident = await startIncident('bad-image-rollout');
    // A server this data directory holds no token for (its discovery file gone: another machine's).
    rmSync(join(incident.dataDir, 'servers'), { recursive: true, force: true });
    await expect(
      runLocalInvestigation({
        symptom: 'x',
        namespace: 'shop',
        server: `${incident.server.url}/mcp`,
        dataDir: incident.dataDir,
        yes: true,
        confirm: ['checkout'],
        progress: capture(),
      }),
    ).rejects.toMatchObject({ code: 'invalid_input', field: 'token' });
  });

  it('--yes with a --token the server refuses (revoked or unknown) says so, not "pass --token"', async () => {
    incident = await startIncident('bad-image-rollout');
    const token = 'snt_revoked-or-never-issued-0123456789';
    const { investigation } = await runLocalInvestigation({
      symptom: 'checkout returns 502',
      namespace: 'shop',
      server: `${incident.server.url}/mcp`,
      token,
      dataDir: incident.dataDir,
      yes: true,
      confirm: ['checkout'],
      progress: capture(),
    });
    expect(investigation.status).toBe('failed');
    expect(investigation.error).toContain(
      `The Sentinel server at ${incident.server.url} refused the token passed with --token (401): it is revoked or unknown there`,
    );
    expect(investigation.error).not.toContain(token);
    expect(incident.mutations()).toEqual([]);
  });
});
