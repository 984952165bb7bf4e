/**
 * CLI start-up (issue 18: start to first output ≤ 0.5 s, measured in bench/cli-start.ts). The lever
 * is what a command loads before it prints: `sentinel --help`, a subcommand's `--help` and a usage
 * error load the command line and the modules' light entries only; a client command (`approvals`,
 * `tokens`) loads the server's client side, never the server itself. Asserted on the modules each
 * process loads (a loader hook records them), not on time.
 */
import { describe, expect, it } from 'vitest';
import { loadsOf, packagesOf } from '../helpers/loads.ts';
import { tempDataDir } from '../helpers/server.ts';

const BIN = 'bin/sentinel.js';

/** Whole modules (index.ts) and packages that registering the commands must not load. */
const NOT_AT_START_UP = [
  'server/index.ts',
  'server/client.ts',
  'tools/index.ts',
  'agent/index.ts',
  'agent-spec/index.ts',
  'deploy/index.ts',
  'core/index.ts',
];
/** Packages of the server runtime: a client command loads none of them. */
const SERVER_RUNTIME = [
  '@kubernetes/client-node',
  '@modelcontextprotocol/sdk',
  'express',
  'pino',
  'prom-client',
];

describe('sentinel start-up', () => {
  it.each([
    [['--help']],
    [['investigate', '--help']],
    [['serve', '--help']],
    [['approvals', 'list', '--help']],
    [['policy', 'test', '--help']],
    [['sim', '--help']],
    [['--version']],
  ])('%j loads only the command line, light entries and commander', async (args) => {
    const result = await loadsOf([BIN, ...args]);
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).not.toBe('');
    expect(result.loaded).toContain('cli/program.ts');
    for (const module of NOT_AT_START_UP) expect(result.loaded).not.toContain(module);
    expect(packagesOf(result.loaded)).toEqual(['commander', 'fastest-levenshtein']);
  });

  it('tells a usage error (exit 2) without loading any module behind the command', async () => {
    const result = await loadsOf([BIN, 'tokens', 'add', 'alice', '--role', 'aprover']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("Did you mean 'approver'?");
    for (const module of NOT_AT_START_UP) expect(result.loaded).not.toContain(module);
    expect(packagesOf(result.loaded)).toEqual(['commander', 'fastest-levenshtein']);
  });

  it('runs `approvals list` on the server’s client side: no server runtime is loaded', async () => {
    const result = await loadsOf([
      BIN,
      'approvals',
      'list',
      '--server',
      'http://127.0.0.1:9',
      '--token',
      'x'.repeat(32),
    ]);
    expect(result.code, result.stderr).toBe(3); // nothing listens on port 9: cannot reach the server
    expect(result.loaded).toContain('server/client.ts');
    expect(result.loaded).not.toContain('server/index.ts');
    for (const name of SERVER_RUNTIME) expect(packagesOf(result.loaded)).not.toContain(name);
  });

  it('runs `tokens list` on the server’s client side: no server runtime is loaded', async () => {
    const data = tempDataDir();
    try {
      const result = await loadsOf([BIN, 'tokens', 'list', '--data-dir', data.dir]);
      expect(result.code, result.stderr).toBe(0);
      expect(result.stdout).toContain('NAME');
      expect(result.loaded).not.toContain('server/index.ts');
      for (const name of SERVER_RUNTIME) expect(packagesOf(result.loaded)).not.toContain(name);
    } finally {
      data.cleanup();
    }
  });
});
