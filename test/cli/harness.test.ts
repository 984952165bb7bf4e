import { existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import YAML from 'yaml';
import { loadAgentSpec } from '../../agent-spec/index.ts';
import { main } from '../../cli/program.ts';
import { hashToken } from '../../server/index.ts';
import { captureProcessOutput } from '../helpers/capture-output.ts';
import { FakeTrueForge } from '../helpers/fake-trueforge.ts';

describe('sentinel harness register (command line)', () => {
  let harness: FakeTrueForge;
  let dir: string;
  const output = captureProcessOutput();

  beforeAll(async () => {
    harness = await new FakeTrueForge({ token: 'harness-login' }).start();
    dir = mkdtempSync(join(tmpdir(), 'sentinel-register-'));
  });
  afterAll(async () => {
    await harness.close();
    rmSync(dir, { recursive: true, force: true });
  });

  const run = (...args: string[]) => main(['node', 'sentinel', 'harness', 'register', ...args]);
  const connectorToken = () =>
    (
      harness.mcpServers.get('sentinel') as { auth: { headers: { Authorization: string } } }
    ).auth.headers.Authorization.replace('Bearer ', '');
  const identities = () =>
    (
      YAML.parse(readFileSync(join(dir, 'tokens.yaml'), 'utf8')) as {
        identities: { name: string; roles: string[]; token_sha256: string }[];
      }
    ).identities;

  it('registers the shipped spec with a new caller identity, keeps its token on a second run, rotates only with --rotate-token', async () => {
    vi.stubEnv('SENTINEL_HARNESS_TOKEN', 'harness-login');
    await run('--harness', harness.url, '--data-dir', dir, '--model', 'fake/scripted');
    expect(output.err).toBe('');
    expect(output.out).toBe(
      `Sentinel identity 'trueforge' (caller) created in ${join(dir, 'tokens.yaml')}\n` +
        "MCP server 'sentinel' created: http://127.0.0.1:7070/mcp (auth authenticated)\n" +
        "Agent 'sentinel' created: id agent-1, model fake/scripted\n",
    );
    const first = connectorToken();
    expect(identities()).toEqual([
      expect.objectContaining({ name: 'trueforge', roles: ['caller'], token_sha256: hashToken(first) }),
    ]);
    expect(output.out).not.toContain(first); // the token goes to the harness only
    const agent = [...harness.agents.values()][0]!;
    expect(agent.manifest).toEqual({ ...loadAgentSpec(), model: { name: 'fake/scripted' } });
    expect(harness.requests.every((r) => r.authorization === 'Bearer harness-login')).toBe(true);

    output.clear();
    await run('--harness', harness.url, '--data-dir', dir, '--server', 'http://127.0.0.1:9999/mcp');
    expect(output.out).toContain(
      `Sentinel identity 'trueforge' (caller) kept its token in ${join(dir, 'tokens.yaml')}`,
    );
    expect(connectorToken()).toBe(first);
    expect(identities()).toEqual([expect.objectContaining({ token_sha256: hashToken(first) })]);
    expect(statSync(join(dir, 'trueforge.token')).mode & 0o777).toBe(0o600);

    output.clear();
    await run(
      '--harness',
      harness.url,
      '--data-dir',
      dir,
      '--server',
      'http://127.0.0.1:9999/mcp',
      '--rotate-token',
    );
    expect(output.out).toContain(
      `Sentinel identity 'trueforge' (caller) given a new token in ${join(dir, 'tokens.yaml')}`,
    );
    expect(output.out).toContain("MCP server 'sentinel' updated: http://127.0.0.1:9999/mcp");
    expect(output.out).toContain("Agent 'sentinel' updated: id agent-1, model openai/gpt-5.2");
    expect(harness.agents.size).toBe(1);
    expect(connectorToken()).not.toBe(first);
    expect(identities()).toEqual([
      expect.objectContaining({ name: 'trueforge', token_sha256: hashToken(connectorToken()) }),
    ]);
    expect(process.exitCode).toBeUndefined();

    // The identity exists but its token is not on this machine: refused, nothing rotated.
    rmSync(join(dir, 'trueforge.token'));
    const before = identities();
    output.clear();
    await run('--harness', harness.url, '--data-dir', dir);
    expect(output.err).toContain("Sentinel identity 'trueforge' exists");
    expect(output.err).toContain('--rotate-token');
    expect(identities()).toEqual(before);
    process.exitCode = undefined;
  });

  it('uses a given connector token without touching tokens.yaml', async () => {
    const elsewhere = mkdtempSync(join(tmpdir(), 'sentinel-register-'));
    try {
      await run(
        '--harness',
        harness.url,
        '--harness-token',
        'harness-login',
        '--trueforge-token',
        'snt_given_token_123',
        '--data-dir',
        elsewhere,
      );
      expect(connectorToken()).toBe('snt_given_token_123');
      expect(existsSync(join(elsewhere, 'tokens.yaml'))).toBe(false);
    } finally {
      rmSync(elsewhere, { recursive: true, force: true });
    }
  });

  it('explains a bad spec in one line, exit code 2, before anything changes', async () => {
    const specPath = join(dir, 'broken.agent.json');
    writeFileSync(
      specPath,
      JSON.stringify({
        model: { name: 'm' },
        instructions: 'x',
        mcp_servers: [{ name: 'sentinel', require_approval_for_tool: [] }],
      }),
    );
    const before = harness.requests.length;
    await run(
      '--harness',
      harness.url,
      '--harness-token',
      'harness-login',
      '--data-dir',
      dir,
      '--spec',
      specPath,
    );
    expect(output.err).toBe(
      `sentinel: Agent spec ${specPath}: mcp_servers.0: unknown key(s) require_approval_for_tool.\n`,
    );
    expect(process.exitCode).toBe(2);

    output.clear();
    await run('--harness', harness.url, '--data-dir', dir, '--spec', join(dir, 'missing.json'));
    expect(output.err).toBe(
      `sentinel: Cannot read the agent spec ${join(dir, 'missing.json')}: file not found.\n`,
    );
    expect(harness.requests.length).toBe(before);
  });
});
