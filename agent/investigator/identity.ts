/**
 * The identities of a local investigation: the investigator's own (`investigator`, role `caller`
 * only — it can never approve, so no call it makes can be approved by itself) and the human's (an
 * approver token: `--token`/SENTINEL_TOKEN, else the `local` token `sentinel serve` saved).
 */
import { clientToken, localTokenFile, type IdentityStore } from '../../server/index.ts';
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';

/** The identity every local investigation calls tools as. */
export const INVESTIGATOR_IDENTITY = 'investigator';

/** `<data-dir>/investigator.token` (mode 0600): the investigator's bearer token. */
export function investigatorTokenFile(dataDir: string): string {
  return join(dataDir, 'investigator.token');
}

function readToken(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}

/**
 * The investigator's bearer token, creating the identity on first use. The token saved in
 * `<data-dir>/investigator.token` is reused while it still authenticates as `investigator`;
 * otherwise (first use, revoked, token file lost) the identity is (re)created with the single role
 * `caller` and its new token saved. Only the token's hash goes into tokens.yaml, and a running server
 * picks the change up without a restart. Throws the store's `SentinelError` (e.g. an invalid
 * tokens.yaml is reported, never overwritten).
 */
export function investigatorToken(store: IdentityStore, dataDir: string): string {
  const file = investigatorTokenFile(dataDir);
  const saved = readToken(file);
  if (saved && store.lookupByToken(saved)?.name === INVESTIGATOR_IDENTITY) return saved;
  if (store.list().some((identity) => identity.name === INVESTIGATOR_IDENTITY))
    store.revoke(INVESTIGATOR_IDENTITY);
  const { token } = store.add({ name: INVESTIGATOR_IDENTITY, roles: ['caller'] });
  mkdirSync(dirname(file), { recursive: true, mode: 0o700 });
  writeFileSync(file, `${token}\n`, { mode: 0o600 });
  chmodSync(file, 0o600);
  return token;
}

/**
 * The human's token: the one given (`--token`, SENTINEL_TOKEN), else the `local` token that
 * `sentinel serve` saved in the data directory, else undefined (the investigator can then only wait
 * for decisions made elsewhere).
 */
export function humanToken(
  given: string | undefined,
  dataDir: string,
  serverUrl?: string,
): string | undefined {
  if (serverUrl !== undefined) return clientToken(given, dataDir, serverUrl)?.token;
  return given || readToken(localTokenFile(dataDir));
}
