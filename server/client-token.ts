/**
 * The token a client command (`approvals`, `freeze`, `investigate`) presents when none is given:
 * the one of the server it talks to, from that server's discovery file (server/discovery.ts), else
 * the data directory's kept `local.token`.
 */
import { readFileSync } from 'node:fs';
import { localTokenFile } from './data-dir.ts';
import { entryToken, findServer } from './discovery.ts';

/** Where a client's token came from (for messages), and the token. */
export interface ClientToken {
  token: string;
  /** `--token`/`SENTINEL_TOKEN`, or the file it was read from. */
  source: string;
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
