/**
 * Who is calling. Every bearer token maps to one identity; the approval gate, the audit log and the
 * approvals API decide from it (DESIGN.md, "Identity").
 */
import { createHash } from 'node:crypto';
import { z } from 'zod';
import { LOCAL_IDENTITY_NAME, ROLES, type Role } from './roles.ts';

export { LOCAL_IDENTITY_NAME, ROLES, type Role };

/** One of `ROLES` (roles.ts: what each may do). */
export const RoleSchema = z.enum(ROLES);

/** The authenticated principal of one request. */
export interface Identity {
  /** Unique name, e.g. `local`, `investigator`, `alice`. */
  name: string;
  roles: Role[];
  /**
   * Opt-in (DESIGN.md, "Upstream approval"): calls from this identity to tools the agent spec gates
   * run on the harness's approval alone. Off by default.
   */
  trustUpstreamApproval: boolean;
  /**
   * For a `trustUpstreamApproval` identity: the harness its approvals are verified against (URL,
   * read-token file, oldest allow honoured). Without it no upstream approval is honoured.
   */
  upstreamHarness?: { url: string; token_file?: string | undefined; max_age?: string | undefined };
  /**
   * Fingerprint of the token this identity authenticates with (`credentialOf`). It changes when the
   * identity is revoked and re-added or its token is rotated, so what was bound to the old token —
   * approval requests, grants, approvals-page sessions — does not carry over to the new one.
   * Undefined for an identity built without a token (tests).
   */
  credential?: string;
}

/** Credential fingerprint of a token hash: 16 hex digits, never the hash itself. */
export function credentialOf(tokenSha256: string): string {
  return createHash('sha256').update(`sentinel-credential:${tokenSha256}`).digest('hex').slice(0, 16);
}

/** The startup identity: `local`, with every role. */
export const localIdentity: Readonly<Identity> = Object.freeze({
  name: LOCAL_IDENTITY_NAME,
  roles: [...ROLES],
  trustUpstreamApproval: false,
});

/** True when `identity` holds `role`. */
export function hasRole(identity: Identity, role: Role): boolean {
  return identity.roles.includes(role);
}
