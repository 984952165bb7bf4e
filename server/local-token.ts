/**
 * The token of identity `local` (every role) that `sentinel serve` uses on loopback when none is
 * supplied: generated once into `<data-dir>/local.token` (0600) and kept across restarts, so a
 * restart or a second server on the same data directory never locks out the clients reading it.
 * Only `sentinel tokens rotate local` replaces it (running servers pick the new one up at once).
 */
import { readFileSync } from 'node:fs';
import { writeSecret } from './credentials.ts';
import { localTokenFile } from './data-dir.ts';
import { generateToken, MIN_TOKEN_LENGTH } from './tokens.ts';

/** The kept `local` token of `dataDir`, created when there is none (or it is unreadable or too short). */
export function loadOrCreateLocalToken(dataDir: string): { token: string; created: boolean } {
  const file = localTokenFile(dataDir);
  try {
    const token = readFileSync(file, 'utf8').trim();
    if (token.length >= MIN_TOKEN_LENGTH && !/\s/.test(token)) return { token, created: false };
  } catch {
    // none yet
  }
  const token = generateToken();
  writeSecret(file, token);
  return { token, created: true };
}

/** Replaces the `local` token of `dataDir` with a new one and returns it. */
export function rotateLocalToken(dataDir: string): string {
  const token = generateToken();
  writeSecret(localTokenFile(dataDir), token);
  return token;
}
