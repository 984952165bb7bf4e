/**
 * The Sentinel identity the harness calls as: `trueforge`, a caller and never an approver (docs/DESIGN.md:
 * no identity approves what it requested, and the agent's identity is never an approver).
 */
import type { IdentityStore } from '../../server/index.ts';
import { HARNESS_IDENTITY } from './names.ts';

/**
 * Issues a fresh bearer token for `trueforge` in the identity store (tokens.yaml) and returns it.
 * Only token hashes are stored, so an existing identity cannot give its token back: it is rotated
 * (revoked and re-added), keeping the operator's `trust_upstream_approval` and `webhook` settings
 * but always with the single role `caller`. A running server picks the change up without a restart.
 * Throws the store's `SentinelError` (an invalid tokens.yaml is reported, not overwritten).
 */
export function issueHarnessToken(store: IdentityStore): { token: string; rotated: boolean } {
  const existing = store.list().find((identity) => identity.name === HARNESS_IDENTITY);
  if (existing) store.revoke(HARNESS_IDENTITY);
  const { token } = store.add({
    name: HARNESS_IDENTITY,
    roles: ['caller'],
    trustUpstreamApproval: existing?.trust_upstream_approval,
    webhook: existing?.webhook,
  });
  return { token, rotated: existing !== undefined };
}
