/**
 * `sentinel policy test` and `sentinel freeze`: the functions behind them, and one real process of
 * bin/sentinel.js each.
 */
import { execFile } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { join } from 'node:path';
import { writeFileSync } from 'node:fs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createRegistry } from '../../tools/index.ts';
import { createIdentityStore } from '../../server/identity-store.ts';
import { requestFreeze } from '../../server/gate/freeze-client.ts';
import { formatPolicyTest, runPolicyTest } from '../../server/gate/policy-test.ts';
import { tempDataDir } from '../helpers/server.ts';
import { startGateServer, type GateServer } from '../server/gate/fixtures/serve.ts';
import { fixtureTools } from '../server/gate/fixtures/tools.ts';

const BIN = fileURLToPath(new URL('../../bin/sentinel.js', import.meta.url));
const run = promisify(execFile);
const registry = createRegistry(fixtureTools);

describe('sentinel policy test', () => {
  const data = tempDataDir();
  beforeAll(() => {
    createIdentityStore({ tokensFile: join(data.dir, 'tokens.yaml') }).add({
      name: 'harness',
      roles: ['caller'],
      trustUpstreamApproval: true,
      upstreamHarness: { url: 'http://127.0.0.1:8000' },
    });
  });
  afterAll(() => data.cleanup());

  it('prints the matched rule and decision of the shipped policy', () => {
    const report = runPolicyTest(
      {
        tool: 'scale_deployment',
        args: '{"namespace":"shop","name":"web","replicas":0}',
        cluster: 'kind-sentinel',
      },
      registry,
    );
    expect(report.verdict).toMatchObject({ decision: 'ask', rule: 'scale-to-zero' });
    expect(report.arguments).toEqual({ namespace: 'shop', name: 'web', replicas: 0, dry_run: false });
    const text = formatPolicyTest(report);
    expect(text).toContain('Rule:      scale-to-zero');
    expect(text).toContain('Decision:  ask');
    expect(text).toContain('Approvers: role:approver (admins as fallback; never the requester)');
  });

  it('reports system-namespace denials, dry runs, unknown tools and upstream trust', () => {
    const test = (tool: string, args: string, identity?: string) =>
      runPolicyTest({ tool, args, dataDir: data.dir, ...(identity && { identity }) }, registry);
    expect(test('pause_rollout', '{"namespace":"kube-system","name":"x"}').verdict.rule).toBe(
      'system-namespaces',
    );
    expect(
      test('rollback_deployment', '{"namespace":"shop","name":"x","dry_run":true}').verdict,
    ).toMatchObject({
      decision: 'allow',
      dryRun: true,
    });
    // An unknown tool is a usage error (the gate would deny it; a typo should not look like a verdict).
    expect(() => test('drop_database', '{}')).toThrow(
      expect.objectContaining({ code: 'invalid_input', field: '--tool' }),
    );
    const trusted = test('rollback_deployment', '{"namespace":"shop","name":"x"}', 'harness');
    expect(trusted.upstreamApproval).toBe(true);
    expect(formatPolicyTest(trusted)).toContain(
      "harness has trust_upstream_approval: this call runs on the harness's approval",
    );
  });

  it('names the field for bad arguments, bad JSON and unknown identities', () => {
    expect(() =>
      runPolicyTest(
        { tool: 'scale_deployment', args: '{"namespace":"shop","name":"w","replicas":-1}' },
        registry,
      ),
    ).toThrow(/replicas/);
    expect(() => runPolicyTest({ tool: 'scale_deployment', args: '{nope' }, registry)).toThrow(
      /--args is not valid JSON/,
    );
    expect(() => runPolicyTest({ tool: 'scale_deployment', args: '[]' }, registry)).toThrow(
      /--args must be a JSON object/,
    );
    expect(() =>
      runPolicyTest(
        { tool: 'pause_rollout', args: '{"namespace":"a","name":"b"}', identity: 'ghost', dataDir: data.dir },
        registry,
      ),
    ).toThrow(/--identity 'ghost' is not in/);
  });

  it('runs as a command, with a policy file given by --policy', async () => {
    const policy = join(data.dir, 'p.yaml');
    writeFileSync(
      policy,
      'version: 1\nrules:\n  - name: no-version\n    tool: get_cluster_version\n    decision: deny\n',
    );
    const { stdout } = await run(process.execPath, [
      BIN,
      'policy',
      'test',
      '--tool',
      'get_cluster_version',
      '--policy',
      policy,
      '--json',
    ]);
    expect(JSON.parse(stdout).verdict).toMatchObject({ decision: 'deny', rule: 'no-version' });
    const bad = await run(process.execPath, [
      BIN,
      'policy',
      'test',
      '--tool',
      'x',
      '--policy',
      join(data.dir, 'missing.yaml'),
    ]).catch((error: { code: number; stderr: string }) => error);
    expect(bad).toMatchObject({ code: 2, stderr: expect.stringContaining('missing.yaml cannot be read') });
    const allowAll = join(data.dir, 'allow-all.yaml');
    writeFileSync(allowAll, 'version: 1\nrules:\n  - name: allow-all\n    decision: allow\n');
    const floor = await run(process.execPath, [
      BIN,
      'policy',
      'test',
      '--tool',
      'scale_deployment',
      '--policy',
      allowAll,
    ]).catch((error: { code: number; stderr: string }) => error);
    expect(floor).toMatchObject({
      code: 2,
      stderr: expect.stringMatching(
        /allow-all\.yaml, line 4: rules\[0\]\.decision: rule 'allow-all' allows real calls of destructive tools \(.*scale_deployment.*\) without approval; destructive tools can only be ask or deny; allow their previews with dry_run: true/,
      ),
    });
  });
});

describe('sentinel freeze', () => {
  let s: GateServer;
  beforeAll(async () => {
    s = await startGateServer();
  });
  afterAll(async () => {
    await s?.close();
  });

  it('turns the freeze on and off with an admin token, refuses others', async () => {
    const on = await requestFreeze(
      { server: `${s.url}/mcp`, token: s.tokens.root },
      { frozen: true, reason: 'DB migration' },
    );
    expect(on).toMatchObject({ frozen: true, reason: 'DB migration', by: 'root' });
    await expect(
      requestFreeze({ server: s.url, token: s.tokens.alice }, { frozen: false }),
    ).rejects.toMatchObject({
      code: 'forbidden',
      message: expect.stringContaining('only admins'),
    });
    const { stdout } = await run(process.execPath, [BIN, 'freeze', 'off', '--server', s.url], {
      env: { ...process.env, SENTINEL_TOKEN: s.tokens.root },
    });
    // Lifted for every server on the store, which the last line names.
    expect(stdout).toMatch(
      /^Changes are not frozen\.\nStored in \S+sentinel\.db: it applies to every Sentinel server on that data directory/,
    );
    expect((await requestFreeze({ server: s.url, token: s.tokens.agent }, undefined)).frozen).toBe(false);
  });

  it("prints since when in the reader's zone (TZ) with UTC alongside, not the ISO value", async () => {
    const env = { ...process.env, SENTINEL_TOKEN: s.tokens.root, TZ: 'Asia/Tokyo' };
    const on = await run(process.execPath, [BIN, 'freeze', 'on', '--reason', 'window', '--server', s.url], {
      env,
    });
    const status = await run(process.execPath, [BIN, 'freeze', 'status', '--server', s.url], { env });
    for (const { stdout } of [on, status]) {
      expect(stdout).toMatch(
        /^Changes are FROZEN since \d{4}-\d\d-\d\d \d\d:\d\d GMT\+9 \(\d\d:\d\d UTC, .+\) by root: window\n/,
      );
      expect(stdout).not.toMatch(/\d\dT\d\d:\d\d/);
    }
    await requestFreeze({ server: s.url, token: s.tokens.root }, { frozen: false });
  });

  it('a second freeze on says it was already frozen, by whom and since when; status says where it is stored', async () => {
    const env = { ...process.env, SENTINEL_TOKEN: s.tokens.root, TZ: 'UTC' };
    const first = await requestFreeze(
      { server: s.url, token: s.tokens.root },
      { frozen: true, reason: 'window' },
    );
    const again = await run(process.execPath, [BIN, 'freeze', 'on', '--reason', 'again', '--server', s.url], {
      env,
    });
    expect(again.stdout).toMatch(
      /^Changes were already FROZEN since \d{4}-\d\d-\d\d \d\d:\d\d UTC \(.+\) by root: window\n/,
    );
    expect(again.stdout).toContain('Reason changed to: again');
    const status = await requestFreeze({ server: s.url, token: s.tokens.root }, undefined);
    expect(status).toMatchObject({ frozen: true, reason: 'again', by: 'root', since: first.since });
    const shown = await run(process.execPath, [BIN, 'freeze', 'status', '--server', s.url], { env });
    expect(shown.stdout).toMatch(
      /\nStored in \S+sentinel\.db: it applies to every Sentinel server on that data directory/,
    );
    await requestFreeze({ server: s.url, token: s.tokens.root }, { frozen: false });
  });

  it('says what to do when the server does not accept the token', async () => {
    await expect(
      requestFreeze({ server: s.url, token: 'not-a-token-of-this-server' }, undefined),
    ).rejects.toMatchObject({
      code: 'unauthorized',
      message: expect.stringMatching(
        /refused the token passed with --token \(401\): it is revoked or unknown there.*--role admin/,
      ),
    });
  });
});
