/**
 * The client side of the change freeze: `GET|POST|DELETE /freeze` on a running server with an
 * admin's token, and the lines `sentinel freeze on|off|status` print.
 */
import { SentinelError } from '../../core/index.ts';
import { clientToken, refusedToken, type ClientToken } from '../client-token.ts';
import { localTokenFile, resolveDataDir } from '../data-dir.ts';
import { localTime, type LocalTimeOptions } from '../render/time.ts';
import { serverBaseUrl } from '../server-url.ts';
import { ensureServerAnswers, serverUnreachable } from '../unreachable.ts';
import { ApiErrorSchema, FreezeStateSchema, type FreezeState } from './approval-request.ts';

/**
 * `--token`, SENTINEL_TOKEN, else the `local` token the server generated in the data dir. With none,
 * says first that no server answers, when none does (exit 3); else that a token is missing (exit 2).
 */
async function tokenFor(options: FreezeClientOptions): Promise<ClientToken> {
  const dataDir = resolveDataDir(options.dataDir);
  const found = clientToken(options.token, dataDir, options.server);
  if (found) return options.token ? { ...found, source: options.tokenSource ?? found.source } : found;
  await ensureServerAnswers(serverBaseUrl(options.server), options.dataDir);
  const file = localTokenFile(dataDir);
  throw new SentinelError(
    'invalid_input',
    `No token: give --token or SENTINEL_TOKEN (an admin's), or run the server so ${file} exists.`,
    { field: '--token' },
  );
}

/** Where `requestFreeze` goes and with which token. */
export interface FreezeClientOptions {
  server: string;
  /** `--token`/SENTINEL_TOKEN; default the server's token found in the data dir. */
  token?: string;
  /** Where a given `token` came from, for a refusal's message: `--token` (default) or `SENTINEL_TOKEN`. */
  tokenSource?: '--token' | 'SENTINEL_TOKEN';
  dataDir?: string;
}

/**
 * `GET|POST|DELETE /freeze` on a running server. Throws `SentinelError` with the server's message
 * (403 for a non-admin token), `unauthorized` naming the refused token (401: `refusedToken`), or
 * `unavailable` when the server cannot be reached.
 */
export async function requestFreeze(
  options: FreezeClientOptions,
  change: { frozen: true; reason: string } | { frozen: false } | undefined,
): Promise<FreezeState> {
  const base = serverBaseUrl(options.server);
  // Before the request: a missing token is its own error, not an unreachable server.
  const { token, source } = await tokenFor(options);
  let response: Response;
  try {
    response = await fetch(`${base}/freeze`, {
      method: change === undefined ? 'GET' : change.frozen ? 'POST' : 'DELETE',
      headers: {
        authorization: `Bearer ${token}`,
        ...(change?.frozen && { 'content-type': 'application/json' }),
      },
      ...(change?.frozen && { body: JSON.stringify({ reason: change.reason }) }),
      signal: AbortSignal.timeout(30_000),
    });
  } catch (error) {
    throw serverUnreachable(base, error, options.dataDir);
  }
  const body: unknown = await response.json().catch(() => undefined);
  if (!response.ok) {
    const apiError = ApiErrorSchema.safeParse(body);
    if (response.status === 401) {
      throw refusedToken(base, source, 'admin');
    }
    const message = apiError.success ? apiError.data.error.message : `HTTP ${response.status}`;
    throw new SentinelError(response.status === 403 ? 'forbidden' : 'unavailable', message);
  }
  return FreezeStateSchema.parse(body);
}

/**
 * The freeze state as the lines `sentinel freeze` prints, "since" in the reader's zone with UTC
 * alongside (`localTime`, as `tokens list`; `options` fix the clock and zone for tests).
 */
export function formatFreeze(state: FreezeState, options: LocalTimeOptions = {}): string {
  const since = (at: string | null) => (at === null ? 'an unknown time' : localTime(at, options));
  const { previous } = state;
  const head = !state.frozen
    ? 'Changes are not frozen.\n'
    : previous
      ? `Changes were already FROZEN since ${since(previous.since)} by ${previous.by}: ${previous.reason}\n${
          previous.reason === state.reason
            ? 'Reason unchanged.'
            : `Reason changed to: ${state.reason} (the freeze keeps its since time).`
        }\nWrite and destructive calls are denied; reads and dry runs continue.\n`
      : `Changes are FROZEN since ${since(state.since)} by ${state.by}: ${state.reason}\nWrite and destructive calls are denied; reads and dry runs continue.\n`;
  return `${head}${storeLine(state.store)}`;
}

/** Where the freeze is kept, and so which servers it applies to (none said for an older server). */
function storeLine(store: string | undefined): string {
  if (store === undefined) return '';
  return store === 'postgresql'
    ? 'Stored in the PostgreSQL store: it applies to every Sentinel server using that store, whichever --server was named.\n'
    : `Stored in ${store}: it applies to every Sentinel server on that data directory, whichever --server was named.\n`;
}
