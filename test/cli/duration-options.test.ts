/**
 * Every duration option refuses a bare number the same way, naming the option: `ms` would read
 * `30` as 30 milliseconds, never what was meant.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { tempDataDir } from '../helpers/server.ts';

describe('duration options without a unit', () => {
  it.each([
    [
      '--window',
      ['approvals', 'approve', 'apr_0123456789abcdef', '--window', '30', '--server', 'http://127.0.0.1:9'],
    ],
    [
      '--upstream-max-age',
      [
        'tokens',
        'add',
        'h1',
        '--role',
        'caller',
        '--trust-upstream-approval',
        '--upstream-harness',
        'http://127.0.0.1:9',
        '--upstream-max-age',
        '30',
      ],
    ],
  ])('%s 30 is a usage error asking for a unit (exit 2)', async (option, args) => {
    const data = tempDataDir();
    try {
      const result = await runCli([...args, '--data-dir', data.dir]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(`option '${option} <duration>' argument '30' is invalid`);
      expect(result.stderr).toContain('give a unit, e.g. 30s or 30m');
    } finally {
      data.cleanup();
    }
  });
});

describe('out-of-range numbers say the real bound', () => {
  it('--window 0s: must be longer than zero, and names the longest allowed (exit 2)', async () => {
    const result = await runCli([
      'approvals',
      'approve',
      'apr_0123456789abcdef',
      '--window',
      '0s',
      '--server',
      'http://127.0.0.1:9',
    ]);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain("--window '0s' must be longer than zero");
    expect(result.stderr).toContain("at most the policy's max_window (1h by default");
  });

  it('investigate --timeout 0: says 0 is refused (greater than 0, at most 3600)', async () => {
    const result = await runCli(['investigate', 'x', '--timeout', '0']);
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('must be a number of seconds greater than 0 and at most 3600');
    expect(result.stderr).not.toContain('between 0 and 3600');
  });
});
