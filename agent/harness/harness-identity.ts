/**
 * The Sentinel identity the harness calls as: `trueforge`, a caller and never an approver (docs/DESIGN.md:
 * no identity approves what it requested, and the agent's identity is never an approver).
 *
 * Its token is kept in `<data-dir>/trueforge.token` (0600) so that re-running `sentinel harness
 * register` — documented as idempotent — puts the same token in the connector instead of rotating
 * it. A rotation voids what the old token was granted (unused grants, pending requests); it happens
 * only when asked (`--rotate-token`). What restricts the identity — its denials, the upstream
 * replay window, consumed harness approvals — is keyed on the name and survives a rotation.
 */
import { chmodSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import type { IdentityStore } from '../../server/index.ts';
import { hashToken, sameHash } from '../../server/index.ts';
import { SentinelError } from '../../core/index.ts';
import { HARNESS_IDENTITY } from './names.ts';

/** `<data-dir>/trueforge.token`: the connector's token, written by `sentinel harness register`. */
export function harnessTokenFile(dataDir: string): string {
  return join(dataDir, `${HARNESS_IDENTITY}.token`);
}

/**
 * Issues a fresh bearer token for `trueforge` in the identity store (tokens.yaml) and returns it.
 * Only token hashes are stored, so an existing identity cannot give its token back: it is rotated
 * (revoked and re-added), keeping the operator's `trust_upstream_approval`, `upstream_harness` and
 * `webhook` settings but always with the single role `caller`. A running server picks the change up
 * without a restart. Throws the store's `SentinelError` (an invalid tokens.yaml is reported, not
 * overwritten).
 */
export function issueHarnessToken(store: IdentityStore): { token: string; rotated: boolean } {
  const existing = store.list().find((identity) => identity.name === HARNESS_IDENTITY);
  if (existing) store.revoke(HARNESS_IDENTITY);
  const { token } = store.add({
    name: HARNESS_IDENTITY,
    roles: ['caller'],
    trustUpstreamApproval: existing?.trust_upstream_approval,
    upstreamHarness: existing?.upstream_harness,
    webhook: existing?.webhook,
  });
  return { token, rotated: existing !== undefined };
}

/**
 * The token for the connector: the one in `tokenFile` while it is still `trueforge`'s token
 * (`kept`), a new identity's (`created`), or — only with `rotate` — a new token for the existing
 * identity (`rotated`). The token file is (re)written 0600. Throws `SentinelError('conflict')`
 * naming `--rotate-token` when `trueforge` exists but its token is not in the file (another machine,
 * a wiped file): rotating silently would void its grants.
 */
export function harnessToken(
  store: IdentityStore,
  tokenFile: string,
  options: { rotate?: boolean } = {},
): { token: string; action: 'created' | 'kept' | 'rotated' } {
  const existing = store.list().find((identity) => identity.name === HARNESS_IDENTITY);
  if (existing && !options.rotate) {
    const saved = readToken(tokenFile);
    if (saved !== undefined && sameHash(hashToken(saved), existing.token_sha256)) {
      return { token: saved, action: 'kept' };
    }
    throw new SentinelError(
      'conflict',
      `Sentinel identity '${HARNESS_IDENTITY}' exists in ${store.tokensFile} but its token is not in ${tokenFile}; pass its token with --trueforge-token, or issue a new one with --rotate-token (its unused grants and pending requests are then void).`,
      { field: 'rotate-token' },
    );
  }
  const { token, rotated } = issueHarnessToken(store);
  mkdirSync(dirname(tokenFile), { recursive: true, mode: 0o700 });
  writeFileSync(tokenFile, `${token}\n`, { mode: 0o600 });
  chmodSync(tokenFile, 0o600);
  return { token, action: rotated ? 'rotated' : 'created' };
}

function readToken(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8').trim() || undefined;
  } catch {
    return undefined;
  }
}
