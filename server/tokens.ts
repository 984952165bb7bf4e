/**
 * Bearer tokens: generation, hashing, constant-time comparison. Only SHA-256 hashes are ever stored.
 */
import { createHash, randomBytes, timingSafeEqual } from 'node:crypto';
import { SentinelError, sentinelCommand } from '../core/index.ts';

/** Prefix of generated tokens, so secret scanners and people recognise them. */
export const TOKEN_PREFIX = 'snt_';

/** Shortest token Sentinel accepts from SENTINEL_TOKEN or a token file. */
export const MIN_TOKEN_LENGTH = 16;

/** A new random token: `snt_` + 32 random bytes in base64url (256 bits of entropy). */
export function generateToken(): string {
  return TOKEN_PREFIX + randomBytes(32).toString('base64url');
}

/** Lowercase hex SHA-256 of the token's UTF-8 bytes (64 characters). */
export function hashToken(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/**
 * Whether two hex SHA-256 hashes are equal, in time independent of where they differ. Both sides are
 * fixed-length digests, so the length check leaks nothing about the token.
 */
export function sameHash(a: string, b: string): boolean {
  const left = Buffer.from(a, 'hex');
  const right = Buffer.from(b, 'hex');
  return left.length === 32 && right.length === 32 && timingSafeEqual(left, right);
}

/**
 * Checks a token supplied by the operator (SENTINEL_TOKEN, --token-file). Throws
 * `SentinelError('invalid_input')` naming `source` when it is shorter than 16 characters or contains
 * whitespace. Returns the token.
 */
export function checkSuppliedToken(token: string, source: string): string {
  if (token.length < MIN_TOKEN_LENGTH) {
    throw new SentinelError(
      'invalid_input',
      `The token from ${source} is ${token.length} characters; at least ${MIN_TOKEN_LENGTH} are required (generate one with \`${sentinelCommand()} tokens add\` or \`openssl rand -base64 32\`).`,
      { field: source },
    );
  }
  if (/\s/.test(token)) {
    throw new SentinelError(
      'invalid_input',
      `The token from ${source} contains whitespace; tokens are one word.`,
      {
        field: source,
      },
    );
  }
  return token;
}
