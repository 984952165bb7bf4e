/**
 * `sentinel tokens add` of a name it cannot take says what was probably meant: the reserved `local`
 * and an existing identity point to `tokens rotate`, which gives a token without a new identity.
 */
import { describe, expect, it } from 'vitest';
import { runCli } from '../helpers/cli.ts';
import { tempDataDir } from '../helpers/server.ts';

describe('sentinel tokens revoke local', () => {
  it('points at `tokens rotate local`: local is the startup token, not an identity in tokens.yaml', async () => {
    const data = tempDataDir();
    try {
      const result = await runCli(['tokens', 'revoke', 'local', '--data-dir', data.dir]);
      expect(result.code).toBe(2);
      expect(result.stderr).toContain(
        "'local' is the server's startup token, not an identity in the tokens file: `npx sentinel tokens rotate local` replaces it",
      );
    } finally {
      data.cleanup();
    }
  });
});

describe('sentinel tokens add of a reserved or existing name', () => {
  it('local and an existing identity: a usage error with the rotate command meant', async () => {
    const data = tempDataDir();
    try {
      const local = await runCli(['tokens', 'add', 'local', '--role', 'caller', '--data-dir', data.dir]);
      expect(local.code).not.toBe(0);
      expect(local.stderr).toContain(
        "'local' is reserved for the server's startup token. Did you mean `npx sentinel tokens rotate local` (a new token in ",
      );
      expect(
        (await runCli(['tokens', 'add', 'alice', '--role', 'approver', '--data-dir', data.dir])).code,
      ).toBe(0);
      const again = await runCli(['tokens', 'add', 'alice', '--role', 'approver', '--data-dir', data.dir]);
      expect(again.code).not.toBe(0);
      expect(again.stderr).toContain(
        "Identity 'alice' already exists. Did you mean `npx sentinel tokens rotate alice` (a new token, the old one stops working)?",
      );
      const typo = await runCli(['tokens', 'add', 'Alice', '--role', 'approver', '--data-dir', data.dir]);
      expect(typo.stderr).toContain("Did you mean 'alice'?");
    } finally {
      data.cleanup();
    }
  });
});

describe('names and keys that are Object.prototype members', () => {
  it('an identity named constructor is plain data; __proto__ is refused by the name rule', async () => {
    const data = tempDataDir();
    try {
      const added = await runCli([
        'tokens',
        'add',
        'constructor',
        '--role',
        'caller',
        '--data-dir',
        data.dir,
      ]);
      expect(added.code, added.stderr).toBe(0);
      expect((await runCli(['tokens', 'list', '--data-dir', data.dir])).stdout).toMatch(
        /^constructor +caller /m,
      );
      const proto = await runCli(['tokens', 'add', '__proto__', '--role', 'caller', '--data-dir', data.dir]);
      expect(proto.stderr).toMatch(/Cannot add identity '__proto__': name: must be/);
      const args = '{"namespace":"shop","name":"checkout","replicas":1,"__proto__":{"polluted":true}}';
      const policy = await runCli(['policy', 'test', '--tool', 'scale_deployment', '--args', args]);
      expect(policy.stderr).toContain('arguments.__proto__: unknown argument');
      expect(({} as Record<string, unknown>).polluted).toBeUndefined();
    } finally {
      data.cleanup();
    }
  });
});
