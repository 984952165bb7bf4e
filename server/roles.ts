/**
 * The roles and the startup identity's name (identity.ts holds the schema and the identity type).
 * Apart so the command line can offer them (`tokens add --role`) without loading zod.
 */

/**
 * `caller` may call tools, `approver` may decide approval requests (never its own), `admin` may
 * manage identities and policy. In order of increasing privilege.
 */
export const ROLES = ['caller', 'approver', 'admin'] as const;

/** One of `ROLES`. */
export type Role = (typeof ROLES)[number];

/** Name of the identity that holds the token the server starts with (given, or generated on loopback). */
export const LOCAL_IDENTITY_NAME = 'local';
