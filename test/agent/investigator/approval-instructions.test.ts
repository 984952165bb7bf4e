/**
 * The "how to approve" lines an investigation prints: each runs where it is printed (issue 18) —
 * `npx sentinel` in the clone, the server named, and a token the `approvals` command finds by itself.
 */
import { describe, expect, it } from 'vitest';
import { approvalInstructions } from '../../../agent/investigator/approval-instructions.ts';
import { runCli } from '../../helpers/cli.ts';

const id = 'apr_0123456789abcdef';
const serve = 'http://127.0.0.1:7070';
const home = { dataDir: '/home/me/.sentinel', defaultDataDir: '/home/me/.sentinel' };

describe('approvalInstructions', () => {
  it('for a running `sentinel serve` whose token the approvals command discovers: no placeholder', () => {
    const text = approvalInstructions(id, undefined, serve, {
      ...home,
      token: { kind: 'file', file: '/home/me/.sentinel/local.token' },
    });
    expect(text).toBe(
      [
        `To approve ${id} (or deny it), either:`,
        `  open ${serve}/ui/approvals and sign in with the token in /home/me/.sentinel/local.token, or`,
        `  run: npx sentinel approvals approve ${id} --server ${serve}`,
      ].join('\n'),
    );
    expect(text).not.toContain('<approver-token>');
  });

  it('names a non-default data directory, and relies on SENTINEL_TOKEN when that is where the token is', () => {
    const text = approvalInstructions(id, undefined, serve, {
      dataDir: '/tmp/sentinel-demo',
      defaultDataDir: '/home/me/.sentinel',
      token: { kind: 'env' },
    });
    expect(text).toContain(
      `  run: npx sentinel approvals approve ${id} --server ${serve} --data-dir /tmp/sentinel-demo`,
    );
    expect(text).toContain('sign in with your approver token (SENTINEL_TOKEN)');
  });

  it('says plainly when the token cannot be repeated or is not known here', () => {
    expect(approvalInstructions(id, undefined, serve, { ...home, token: { kind: 'flag' } })).toContain(
      '--token <the token you passed to --token>',
    );
    expect(approvalInstructions(id, undefined, serve, { ...home, token: { kind: 'none' } })).toContain(
      `  run: SENTINEL_TOKEN=<an approver's token> npx sentinel approvals approve ${id} --server ${serve}`,
    );
  });

  it('for the in-process server: its token file, valid while the command runs', () => {
    const local = { url: 'http://127.0.0.1:41234', tokenFile: '/home/me/.sentinel/local-server-41234.token' };
    expect(approvalInstructions(id, local, serve, { ...home, token: { kind: 'none' } })).toContain(
      `  run: npx sentinel approvals approve ${id} --server ${local.url} --token "$(cat ${local.tokenFile})"`,
    );
  });

  it('prints a command the CLI accepts as written (its flags parse; only the server is missing here)', async () => {
    const text = approvalInstructions(id, undefined, 'http://127.0.0.1:9', {
      dataDir: '/tmp/none',
      defaultDataDir: '/home/me/.sentinel',
      token: { kind: 'env' },
    });
    const args = /run: npx sentinel (.+)$/m.exec(text)![1]!.split(' ');
    const previous = process.env.SENTINEL_TOKEN;
    process.env.SENTINEL_TOKEN = 'some-approver-token-0000';
    const result = await runCli(args).finally(() => {
      if (previous === undefined) delete process.env.SENTINEL_TOKEN;
      else process.env.SENTINEL_TOKEN = previous;
    });
    expect(result.code).toBe(3); // parsed, token found; only the server at :9 is not there
    expect(result.stderr).toMatch(/No Sentinel server answers at http:\/\/127\.0\.0\.1:9\b/);
  });
});
