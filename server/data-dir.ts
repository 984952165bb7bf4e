/**
 * Where Sentinel keeps its state (tokens.yaml, local.token, the approval store, audit log):
 * `--data-dir`, else `SENTINEL_DATA_DIR`, else `~/.sentinel`. Every subcommand that touches state
 * takes `dataDirOption()`.
 */
import { Option } from 'commander';
import { homedir } from 'node:os';
import { join, resolve } from 'node:path';

/** Absolute data directory from the flag value, the environment, or the default `~/.sentinel`. */
export function resolveDataDir(flag?: string, env: NodeJS.ProcessEnv = process.env): string {
  const chosen = flag ?? (env.SENTINEL_DATA_DIR || undefined) ?? join(homedir(), '.sentinel');
  return resolve(chosen);
}

/** The shared `--data-dir <dir>` option. */
export function dataDirOption(): Option {
  return new Option('--data-dir <dir>', 'state directory (env SENTINEL_DATA_DIR; default ~/.sentinel)');
}

/** `<data-dir>/tokens.yaml`: identities and token hashes. */
export function defaultTokensFile(dataDir: string): string {
  return join(dataDir, 'tokens.yaml');
}

/** `<data-dir>/local.token`: the token generated for identity `local` (mode 0600). */
export function localTokenFile(dataDir: string): string {
  return join(dataDir, 'local.token');
}
