/**
 * The exit-code table every command follows (README "Exit codes"): 0 done, 1 unresolved or
 * refused, 2 usage or configuration error, 3 cannot reach the server or cluster; and "did you mean"
 * for typos. (`serve` on a port in use, exit 2: test/cli/serve.test.ts.)
 */
import { createServer } from 'node:net';
import { join } from 'node:path';
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
    [
      'a --window without a unit (not 15 ms)',
      ['approvals', 'approve', 'apr_0123456789abcdef', '--window', '15', '--server', 'http://127.0.0.1:9'],
    ],
    ['a mistyped tool in policy test', ['policy', 'test', '--tool', 'scale_deploymnt']],
    ['an unknown role', ['tokens', 'add', 'bob', '--role', 'root', '--data-dir', data.dir]],
    [
      'investigate --confirm without --yes (it names what --yes may approve)',
      ['investigate', 'x', '--confirm', 'checkout', '--data-dir', data.dir],
    ],
  ])('exits 2 for %s', async (_what, args) => {
    const result = await runCli(args);
    expect(result.code).toBe(2);
  });

  it.each([
    [
      'tokens add on a data dir that cannot be written',
      ['tokens', 'add', 'x1', '--role', 'caller', '--data-dir', '/proc/1'],
      /sentinel: Cannot write the tokens file \/proc\/1\/tokens\.yaml: /,
    ],
    // A million simulated seconds per second spun a core for ever, deaf to SIGTERM (a new user's try).
    [
      'a --time-scale beyond an hour per second',
      ['sim', '--scenario', 'healthy', '--time-scale', '1000000'],
      /--time-scale.*must be a number > 0 and at most 3600/,
    ],
    // Exit 3 ("cannot reach the server") made a script think the server was down.
    [
      'freeze on with an empty reason',
      ['freeze', 'on', '--reason', ' ', '--server', 'http://127.0.0.1:9', '--token', 'x'.repeat(20)],
      /--reason.*must not be empty/,
    ],
    // As `tokens add --webhook` refuses it: a post to the cloud metadata service.
    [
      'audit checkpoint --webhook to a link-local address',
      ['audit', 'checkpoint', '--webhook', 'http://169.254.169.254/', '--data-dir', data.dir],
      /sentinel: --webhook: must not be a link-local address/,
    ],
    [
      'eval on a directory without scenarios',
      ['eval', '--scenarios', '/etc'],
      /sentinel: --scenarios \/etc has no scenario files/,
    ],
  ])('exits 2 for %s, naming it: no "unexpected error"', async (_what, args, message) => {
    const result = await runCli(args);
    expect(result.stderr).toMatch(message);
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

  it('names the nearest identity for a typo in tokens revoke and rotate, exit 2', async () => {
    expect((await runCli(['tokens', 'add', 'bob', '--role', 'caller', '--data-dir', data.dir])).code).toBe(0);
    for (const verb of ['revoke', 'rotate']) {
      const result = await runCli(['tokens', verb, 'bbo', '--data-dir', data.dir]);
      expect(result.code, verb).toBe(2);
      expect(result.stderr, verb).toContain("No identity named 'bbo' in ");
      expect(result.stderr, verb).toContain("Did you mean 'bob'?");
      expect(result.stderr, verb).toContain('`npx sentinel tokens list` shows what exists.');
    }
    const again = await runCli(['tokens', 'add', 'bob', '--role', 'caller', '--data-dir', data.dir]);
    expect(again.stderr).toContain('revoke it first (`npx sentinel tokens revoke bob`)');
  });

  it('exits 2 for investigate --resume of an unknown investigation id, as for unknown ids elsewhere', async () => {
    const result = await runCli(['investigate', '--resume', 'inv_0123456789abcdef', '--data-dir', data.dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('No investigation inv_0123456789abcdef in ');
  });

  it('exits 2 for sim on a port in use, as serve does, naming the port and --port', async () => {
    const busy = createServer();
    await new Promise<void>((resolveListen) => busy.listen(0, '127.0.0.1', resolveListen));
    const { port } = busy.address() as { port: number };
    try {
      const result = await runCli([
        'sim',
        '--scenario',
        'healthy',
        '--port',
        String(port),
        '--kubeconfig-out',
        join(data.dir, 'sim.kubeconfig'),
      ]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        `Port ${port} on 127.0.0.1 is already in use; choose another with --port (0 picks a free one).`,
      );
    } finally {
      await new Promise((resolveClose) => busy.close(resolveClose));
    }
  });

  it('reports a mistyped option as unknown (with the option meant), not as a missing required one', async () => {
    const result = await runCli(['tokens', 'add', 'bob', '--rol', 'caller', '--data-dir', data.dir]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("error: unknown option '--rol'");
    expect(result.stderr).toContain('Did you mean --role?');
    expect(result.stderr).not.toContain('required option');
    const missing = await runCli(['tokens', 'add', 'bob', '--data-dir', data.dir]);
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("error: required option '--role <role...>' not specified");
  });

  it('refuses an unknown --tool (with did-you-mean) and a malformed --requester in approvals list before any request, exit 2', async () => {
    // An unreachable server: the usage error comes first (exit 2, not 3).
    const list = (...args: string[]) =>
      runCli(['approvals', 'list', ...args, '--server', 'http://127.0.0.1:9', '--token', 'x'.repeat(20)]);
    const tool = await list('--tool', 'rollback_deploymnt');
    expect(tool.code).toBe(2);
    expect(tool.stderr).toContain("--tool 'rollback_deploymnt' is not a tool");
    expect(tool.stderr).toContain("Did you mean 'rollback_deployment'?");
    const requester = await list('--requester', 'Alice Smith');
    expect(requester.code).toBe(2);
    expect(requester.stderr).toContain(
      "--requester 'Alice Smith' is not an identity name: it must be 1-63 characters",
    );
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
