import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { createIdentityStore, type IdentityStore } from '../../server/identity-store.ts';
import { credentialOf } from '../../server/identity.ts';
import { hashToken } from '../../server/tokens.ts';
import type { SentinelError } from '../../tools/errors.ts';
import { tempDataDir } from '../helpers/server.ts';

describe('identity store (tokens.yaml)', () => {
  let dir: string;
  let cleanup: () => void;
  let tokensFile: string;
  let store: IdentityStore;
  const loadErrors: SentinelError[] = [];

  beforeEach(() => {
    ({ dir, cleanup } = tempDataDir());
    tokensFile = join(dir, 'nested', 'tokens.yaml');
    loadErrors.length = 0;
    store = createIdentityStore({
      tokensFile,
      startupToken: 'startup-token-0123456789',
      onLoadError: (e) => loadErrors.push(e),
    });
  });
  afterEach(() => cleanup());

  it('adds an identity, stores only the hash (0600), and resolves the token to it', () => {
    const { identity, token } = store.add({ name: 'investigator', roles: ['caller'] });
    expect(token).toMatch(/^snt_[A-Za-z0-9_-]{43}$/);
    expect(identity).toEqual({
      name: 'investigator',
      roles: ['caller'],
      trustUpstreamApproval: false,
      credential: credentialOf(hashToken(token)),
    });
    const text = readFileSync(tokensFile, 'utf8');
    expect(text).not.toContain(token);
    expect(text).toContain(hashToken(token));
    expect(statSync(tokensFile).mode & 0o777).toBe(0o600);
    expect(store.lookupByToken(token)).toEqual(identity);
    expect(store.lookupByToken(`${token}x`)).toBeUndefined();
    expect(store.list().map((r) => r.name)).toEqual(['investigator']);
  });

  it('gives a re-added identity a new credential, so what the old token was bound to does not carry over', () => {
    const first = store.add({ name: 'investigator', roles: ['caller'] });
    store.revoke('investigator');
    const second = store.add({ name: 'investigator', roles: ['caller'] });
    expect(second.identity.credential).toMatch(/^[0-9a-f]{16}$/);
    expect(second.identity.credential).not.toBe(first.identity.credential);
    expect(store.get('investigator')?.credential).toBe(second.identity.credential);
    expect(store.lookupByToken(first.token)).toBeUndefined();
  });

  it('maps the startup token to local with every role', () => {
    expect(store.lookupByToken('startup-token-0123456789')).toEqual({
      name: 'local',
      roles: ['caller', 'approver', 'admin'],
      trustUpstreamApproval: false,
      credential: credentialOf(hashToken('startup-token-0123456789')),
    });
    expect(store.get('local')?.roles).toEqual(['caller', 'approver', 'admin']);
    expect(store.hasTokens()).toBe(true);
    expect(createIdentityStore({ tokensFile }).get('local')?.credential).toBeUndefined();
    expect(createIdentityStore({ tokensFile }).hasTokens()).toBe(false);
  });

  it('keeps trust_upstream_approval and webhook', () => {
    const { token } = store.add({
      name: 'harness',
      roles: ['caller'],
      trustUpstreamApproval: true,
      upstreamHarness: { url: 'http://127.0.0.1:8000', token_file: '/etc/sentinel/harness.token' },
      webhook: 'https://hooks.example.com/sentinel',
    });
    expect(store.lookupByToken(token)?.trustUpstreamApproval).toBe(true);
    expect(store.lookupByToken(token)?.upstreamHarness).toEqual({
      url: 'http://127.0.0.1:8000',
      token_file: '/etc/sentinel/harness.token',
    });
    expect(store.list()[0]).toMatchObject({
      webhook: 'https://hooks.example.com/sentinel',
      trust_upstream_approval: true,
    });
  });

  it('refuses trust_upstream_approval without a harness to verify against, on add and when tokens.yaml loads', () => {
    expect(() => store.add({ name: 'harness', roles: ['caller'], trustUpstreamApproval: true })).toThrow(
      /trust_upstream_approval needs a harness to verify approvals against/,
    );
    const { token } = store.add({ name: 'harness', roles: ['caller'] });
    // Hand-edited: the flag without the harness. The whole file fails closed, naming the field.
    const text = readFileSync(tokensFile, 'utf8').replace(
      /(- name: harness\n)/,
      '$1    trust_upstream_approval: true\n',
    );
    writeFileSync(tokensFile, text);
    const reloaded = createIdentityStore({ tokensFile });
    expect(() => reloaded.list()).toThrow(
      /identities\.0\.trust_upstream_approval: 'harness' trusts upstream approval but names no harness to verify it against/,
    );
    expect(reloaded.lookupByToken(token)).toBeUndefined();
  });

  it.each([
    [{ name: 'Alice', roles: ['caller'] }, /Cannot add identity 'Alice': name: must be 1-63 characters/],
    [
      { name: 'alice', roles: ['root'] },
      /roles\.0: Invalid option: expected one of "caller"\|"approver"\|"admin"/,
    ],
    [{ name: 'alice', roles: [] }, /roles: must list at least one role/],
    [{ name: 'alice', roles: ['caller', 'caller'] }, /roles: must not repeat a role/],
    [{ name: 'alice', roles: ['caller'], webhook: 'ftp://x' }, /webhook: must be an http or https URL/],
    [
      { name: 'alice', roles: ['caller'], webhook: 'file:///etc/passwd' },
      /webhook: must be an http or https URL/,
    ],
    [{ name: 'alice', roles: ['caller'], webhook: 'not a url' }, /webhook: must be an http or https URL/],
    [
      { name: 'alice', roles: ['caller'], webhook: 'http://169.254.169.254/latest/meta-data' },
      /webhook: must not be a link-local address/,
    ],
    [
      { name: 'alice', roles: ['caller'], webhook: 'http://[fe80::1]/hook' },
      /webhook: must not be a link-local address/,
    ],
  ])('rejects %j naming the field and the rule', (input, message) => {
    expect(() => store.add(input as never)).toThrow(message);
  });

  it('refuses duplicates and the reserved name local', () => {
    store.add({ name: 'alice', roles: ['approver'] });
    expect(() => store.add({ name: 'alice', roles: ['caller'] })).toThrow(/Identity 'alice' already exists/);
    expect(() => store.add({ name: 'local', roles: ['caller'] })).toThrow(/'local' is reserved/);
  });

  it('revokes, and says what exists when the name is unknown', () => {
    const { token } = store.add({ name: 'alice', roles: ['approver'] });
    store.revoke('alice');
    expect(store.lookupByToken(token)).toBeUndefined();
    expect(store.get('alice')).toBeUndefined();
    expect(() => store.revoke('alice')).toThrow(/No identity named 'alice'.*sentinel tokens list/);
  });

  it('rotates a token in place: same name, roles, settings, creation time and position; the old token stops at once', () => {
    store.add({ name: 'alice', roles: ['approver'] });
    const old = store.add({ name: 'bob', roles: ['caller'], webhook: 'https://hooks.example/bob' });
    store.add({ name: 'carol', roles: ['admin'] });
    const before = store.list();
    const rotated = store.rotate('bob');
    expect(rotated.token).not.toBe(old.token);
    expect(rotated.identity).toEqual({ ...old.identity, credential: credentialOf(hashToken(rotated.token)) });
    expect(store.lookupByToken(old.token)).toBeUndefined();
    expect(store.lookupByToken(rotated.token)).toEqual(rotated.identity);
    expect(store.list()).toEqual(
      before.map((record) =>
        record.name === 'bob' ? { ...record, token_sha256: hashToken(rotated.token) } : record,
      ),
    );
    expect(() => store.rotate('dave')).toThrow(/No identity named 'dave'.*sentinel tokens list/);
    expect(() => store.rotate('local')).toThrow(/No identity named 'local'/);
  });

  it('follows a rewritten startup token file, and keeps the last token when the file is unusable', () => {
    const file = join(dir, 'local.token');
    writeFileSync(file, 'first-startup-token-0123456789abcdef\n');
    const following = createIdentityStore({
      tokensFile,
      startupToken: 'first-startup-token-0123456789abcdef',
      startupTokenFile: file,
    });
    expect(following.lookupByToken('first-startup-token-0123456789abcdef')?.name).toBe('local');
    writeFileSync(file, 'second-startup-token-0123456789abcdef-and-longer\n');
    expect(following.lookupByToken('first-startup-token-0123456789abcdef')).toBeUndefined();
    expect(following.lookupByToken('second-startup-token-0123456789abcdef-and-longer')?.name).toBe('local');
    writeFileSync(file, 'short\n');
    expect(following.lookupByToken('second-startup-token-0123456789abcdef-and-longer')?.name).toBe('local');
    expect(following.get('local')?.credential).toBe(
      credentialOf(hashToken('second-startup-token-0123456789abcdef-and-longer')),
    );
  });

  it('sees changes made by another store on the same file', () => {
    const other = createIdentityStore({ tokensFile });
    const { token } = other.add({ name: 'bob', roles: ['approver'] });
    expect(store.lookupByToken(token)?.name).toBe('bob');
    other.revoke('bob');
    expect(store.lookupByToken(token)).toBeUndefined();
  });

  it('fails closed on an invalid file, reports it once, and keeps the startup token working', () => {
    const { token } = store.add({ name: 'alice', roles: ['approver'] });
    const good = readFileSync(tokensFile, 'utf8');
    writeFileSync(tokensFile, good.replace('approver', 'superuser'));
    expect(store.lookupByToken(token)).toBeUndefined();
    expect(store.lookupByToken('startup-token-0123456789')?.name).toBe('local');
    expect(() => store.list()).toThrow(/tokens\.yaml is invalid: identities\.0\.roles\.0: Invalid option/);
    expect(() => store.add({ name: 'carol', roles: ['caller'] })).toThrow(/is invalid/);
    expect(loadErrors).toHaveLength(1);

    writeFileSync(tokensFile, 'identities: [unclosed\n');
    expect(() => store.list()).toThrow(/is not valid YAML/);

    writeFileSync(tokensFile, good);
    expect(store.lookupByToken(token)?.name).toBe('alice');
  });

  it('rejects a hand-written local identity and duplicate names', () => {
    const hash = hashToken('x'.repeat(20));
    const entry = (name: string) =>
      `  - {name: ${name}, roles: [caller], token_sha256: ${hash}, created_at: "2026-01-01T00:00:00Z"}\n`;
    writeFileSync(tokensFile.replace('nested/', ''), `identities:\n${entry('local')}`);
    const flat = createIdentityStore({ tokensFile: tokensFile.replace('nested/', '') });
    expect(() => flat.list()).toThrow(/'local' is reserved/);
    writeFileSync(tokensFile.replace('nested/', ''), `identities:\n${entry('a')}${entry('a')}`);
    expect(() => flat.list()).toThrow(/'a' appears more than once/);
  });

  it('rejects two identities sharing a token, naming both, and authenticates neither', () => {
    const shared = 'shared-token-0123456789abcdef';
    const entry = (name: string) =>
      `  - {name: ${name}, roles: [caller], token_sha256: ${hashToken(shared)}, created_at: "2026-01-01T00:00:00Z"}\n`;
    writeFileSync(tokensFile.replace('nested/', ''), `identities:\n${entry('agent')}${entry('alice')}`);
    const flat = createIdentityStore({ tokensFile: tokensFile.replace('nested/', '') });
    expect(() => flat.list()).toThrow(
      /identities\.1\.token_sha256: 'alice' has the same token as 'agent'; every identity needs its own token/,
    );
    expect(flat.lookupByToken(shared)).toBeUndefined();
  });

  it('refuses an identity whose token is the startup token, naming both sources and no token', () => {
    const startup = 'startup-token-0123456789';
    const flatFile = tokensFile.replace('nested/', '');
    writeFileSync(
      flatFile,
      `identities:\n  - {name: agent, roles: [caller], token_sha256: ${hashToken(startup)}, created_at: "2026-01-01T00:00:00Z"}\n`,
    );
    const clashing = createIdentityStore({
      tokensFile: flatFile,
      startupToken: startup,
      startupTokenSource: 'SENTINEL_TOKEN',
    });
    let error: SentinelError | undefined;
    try {
      clashing.list();
    } catch (thrown) {
      error = thrown as SentinelError;
    }
    expect(error?.code).toBe('invalid_input');
    expect(error?.message).toContain(
      `The startup token (SENTINEL_TOKEN) is also the token of identity 'agent' in ${flatFile}`,
    );
    expect(error?.message).toContain("so 'agent' could approve its own requests");
    expect(error?.message).not.toContain(startup);
    expect(error?.message).not.toContain(hashToken(startup));
    // Fails closed: the file's identities do not authenticate while it clashes.
    expect(clashing.get('agent')).toBeUndefined();
  });
});
