/**
 * `sentinel investigate` with the local investigator, as the command line sees it: usage errors come
 * first (before any line about which server is used) and exit 2.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { tempDataDir } from '../helpers/server.ts';

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
