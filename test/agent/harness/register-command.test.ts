import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import { main } from '../../../agent/cli.ts';
import { FakeTrueForge } from '../../helpers/fake-trueforge.ts';

const SPEC = {
  model: { name: 'openai/gpt-main' },
  instructions: { $file: 'instructions.md' },
  mcp_servers: [
    { name: 'sentinel', enable_tools: ['@all'], require_approval_for_tools: ['@write', '@destructive'] },
  ],
};

describe('sentinel harness register (command line)', () => {
  let harness: FakeTrueForge;
  let dir: string;
  let specPath: string;
  let out: string;
  let err: string;

  beforeAll(async () => {
    harness = await new FakeTrueForge({ token: 'harness-login' }).start();
    dir = mkdtempSync(join(tmpdir(), 'sentinel-register-'));
    specPath = join(dir, 'sentinel.agent.json');
    writeFileSync(specPath, JSON.stringify(SPEC));
    writeFileSync(join(dir, 'instructions.md'), '# Runbook\nInvestigate first.\n');
  });
  afterAll(async () => {
    await harness.close();
    rmSync(dir, { recursive: true, force: true });
  });
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

  const run = (...args: string[]) => main(['node', 'sentinel', 'harness', 'register', ...args]);

  it('registers from flags and environment, twice, and prints what it did', async () => {
    vi.stubEnv('SENTINEL_HARNESS_TOKEN', 'harness-login');
    vi.stubEnv('SENTINEL_TRUEFORGE_TOKEN', 'tf-caller-token');
    await run('--harness', harness.url, '--spec', specPath, '--model', 'fake/scripted');
    expect(err).toBe('');
    expect(out).toBe(
      "MCP server 'sentinel' created: http://127.0.0.1:7070/mcp (auth authenticated)\n" +
        "Agent 'sentinel' created: id agent-1, model fake/scripted\n",
    );
    const agent = [...harness.agents.values()][0]!;
    expect(agent.manifest).toMatchObject({
      model: { name: 'fake/scripted' },
      instructions: '# Runbook\nInvestigate first.\n',
    });
    expect(harness.requests.every((r) => r.authorization === 'Bearer harness-login')).toBe(true);

    out = '';
    await run('--harness', harness.url, '--spec', specPath, '--server', 'http://127.0.0.1:9999/mcp');
    expect(out).toContain("MCP server 'sentinel' updated: http://127.0.0.1:9999/mcp");
    expect(out).toContain("Agent 'sentinel' updated: id agent-1");
    expect(harness.agents.size).toBe(1);
    expect(process.exitCode).toBeUndefined();
  });

  it('explains a missing connector token and a missing spec in one line, exit code 2', async () => {
    await run('--harness', harness.url, '--spec', specPath);
    expect(err).toBe(
      "sentinel: The connector needs the token of the Sentinel identity 'trueforge': pass --trueforge-token or set SENTINEL_TRUEFORGE_TOKEN (create it with `sentinel tokens add trueforge --role caller`).\n",
    );
    expect(process.exitCode).toBe(2);

    err = '';
    await run('--harness', harness.url, '--trueforge-token', 't', '--spec', join(dir, 'missing.json'));
    expect(err).toBe(`sentinel: Cannot read the agent spec ${join(dir, 'missing.json')}: file not found.\n`);
  });
});
