/**
 * The exit-code table every command follows (README "Exit codes"): 0 done, 1 unresolved or
 * refused, 2 usage or configuration error, 3 cannot reach the server or cluster; and "did you mean"
 * for typos. (`serve` on a port in use, exit 2: test/cli/serve.test.ts.)
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { tempDataDir } from '../helpers/server.ts';
import { closestNames, didYouMean } from '../../core/suggest.ts';

describe('exit codes', () => {
  const data = tempDataDir();

  it.each([
    ['an unknown option', ['tokens', 'list', '--no-such-flag']],
    ['a missing required option', ['approvals', 'deny', 'apr_0123456789abcdef', '--token', 'x'.repeat(20)]],
    ['an invalid option value', ['sim', '--scenario', 'bad-image-rollout', '--time-scale', '-1']],
    ['an unknown command', ['investigat']],
    ['a bad --since', ['audit', 'export', '--since', 'yesterday', '--data-dir', data.dir]],
    ['a mistyped tool in policy test', ['policy', 'test', '--tool', 'scale_deploymnt']],
    ['an unknown role', ['tokens', 'add', 'bob', '--role', 'root', '--data-dir', data.dir]],
  ])('exits 2 for %s', async (_what, args) => {
    const result = await runCli(args);
    expect(result.code).toBe(2);
  });

  it('suggests the command for a typo', async () => {
    const result = await runCli(['investigat']);
    expect(result.stderr).toContain('investigate');
  });

  it('names the closest tool for a typo in policy test, and says nothing was evaluated', async () => {
    const result = await runCli(['policy', 'test', '--tool', 'scale_deploymnt']);
    expect(result.stderr).toContain("Unknown tool 'scale_deploymnt'");
    expect(result.stderr).toContain("Did you mean 'scale_deployment'?");
    expect(result.stdout).toBe('');
  });

  it.each([
    [
      'a scenario (demo)',
      ['demo', '--scenario', 'bad-imag-rollout', '--yes'],
      "Did you mean 'bad-image-rollout'?",
    ],
    ['a scenario (sim)', ['sim', '--scenario', 'healty'], "Did you mean 'healthy'?"],
    [
      'a role',
      ['tokens', 'add', 'bob', '--role', 'aprover', '--data-dir', data.dir],
      "Did you mean 'approver'?",
    ],
  ])('suggests the nearest name for a typo in %s, exit 2', async (_what, args, suggestion) => {
    const result = await runCli(args);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain(suggestion);
  });

  it('exits 3 when the server cannot be reached', async () => {
    const result = await runCli([
      'approvals',
      'list',
      '--server',
      'http://127.0.0.1:9',
      '--token',
      'x'.repeat(20),
      '--data-dir',
      data.dir,
    ]);
    expect(result.code).toBe(3);
    expect(result.stderr).toContain('127.0.0.1:9');
  });

  it('exits 0 for --help and --version', async () => {
    expect((await runCli(['--help'])).code).toBe(0);
    expect((await runCli(['--version'])).code).toBe(0);
  });
});

describe('didYouMean', () => {
  it('finds near names, nearest first, and nothing for a far one', () => {
    expect(
      closestNames('scale_deploymnt', ['scale_deployment', 'restart_service', 'get_deployment']),
    ).toEqual(['scale_deployment']);
    expect(closestNames('Shop', ['shop', 'kube-system'])).toEqual(['shop']);
    expect(didYouMean('xyzzy', ['shop', 'default'])).toBe('');
    expect(didYouMean('shpo', ['shop', 'shot'])).toBe(" Did you mean 'shop' or 'shot'?");
  });
});

describe('start-up', () => {
  it("keeps demo's --scenario default equal to the demo's own (the CLI does not load the demo to show --help)", async () => {
    const { DEMO_SCENARIO } = await import('../../cli/demo.ts');
    const { DEFAULT_DEMO_SCENARIO } = await import('../../agent/investigator/demo.ts');
    expect(DEMO_SCENARIO).toBe(DEFAULT_DEMO_SCENARIO);
  });
});
