/**
 * The token a client command (`approvals`, `freeze`, `investigate`) presents when none is given:
 * the one of the server it talks to, from that server's discovery file (server/discovery.ts), else
 * the data directory's kept `local.token`.
 */
import { readFileSync } from 'node:fs';
import { sentinelCommand, SentinelError } from '../core/index.ts';
import { localTokenFile } from './data-dir.ts';
import { entryToken, findServer } from './discovery.ts';

/** Where a client's token came from (for messages), and the token. */
export interface ClientToken {
  token: string;
  /** `--token`, `SENTINEL_TOKEN`, or the file it was read from. */
  source: string;
}

/**
 * The error for a token the server at `baseUrl` answered 401 to: it names which token was refused
 * (`source`, as `ClientToken.source`: `--token`, `SENTINEL_TOKEN` or the file it was read from;
 * undefined: just "the token") — never the secret — and how to get a new one (an identity with
 * `role`). 401 cannot tell a revoked token from one never issued, so the message says both.
 */
export function refusedToken(
  baseUrl: string,
  source: string | undefined,
  role: 'approver' | 'admin',
): SentinelError {
  const which =
    source === '--token'
      ? ' passed with --token'
      : source === 'SENTINEL_TOKEN'
        ? ' in SENTINEL_TOKEN'
        : source
          ? ` read from ${source}`
          : '';
  const use =
    source === '--token'
      ? 'then pass that with --token'
      : source === 'SENTINEL_TOKEN'
        ? 'then set SENTINEL_TOKEN to that'
        : 'then pass it with --token, or run where that server keeps its local.token (--data-dir)';
  const command = sentinelCommand();
  return new SentinelError(
    'unauthorized',
    `The Sentinel server at ${baseUrl} refused the token${which} (401): it is revoked or unknown there (a rotated or revoked token stops working at once). Get a new one from an admin — on the server's machine, \`${command} tokens rotate <name>\` for your identity or \`${command} tokens add <name> --role ${role}\` prints it once — ${use}.`,
    { field: '--token' },
  );
}

/**
 * `given` when set; else the token of the running server at `serverUrl` (base or MCP URL) found in
 * `dataDir`'s discovery files; else `<dataDir>/local.token`; else undefined.
 */
export function clientToken(
  given: string | undefined,
  dataDir: string,
  serverUrl: string,
): ClientToken | undefined {
  if (given) return { token: given, source: '--token' };
  const entry = findServer(dataDir, serverUrl);
  const fromEntry = entry && entryToken(entry);
  if (fromEntry) return { token: fromEntry, source: entry.token_file! };
  const file = localTokenFile(dataDir);
  try {
    const token = readFileSync(file, 'utf8').trim();
    if (token) return { token, source: file };
  } catch {
    // no local token
  }
  return undefined;
}
