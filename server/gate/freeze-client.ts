/**
 * The client side of the change freeze: `GET|POST|DELETE /freeze` on a running server with an
 * admin's token, and the lines `sentinel freeze on|off|status` print.
 */
import { SentinelError } from '../../core/index.ts';
import { clientToken } from '../client-token.ts';
import { localTokenFile, resolveDataDir } from '../data-dir.ts';
import { serverBaseUrl } from '../server-url.ts';
import { ensureServerAnswers, serverUnreachable } from '../unreachable.ts';
import { ApiErrorSchema, FreezeStateSchema, type FreezeState } from './approval-request.ts';

/**
 * `--token`, SENTINEL_TOKEN, else the `local` token the server generated in the data dir. With none,
 * says first that no server answers, when none does (exit 3); else that a token is missing (exit 2).
 */
async function tokenFor(options: { token?: string; dataDir?: string; server: string }): Promise<string> {
  const dataDir = resolveDataDir(options.dataDir);
  const found = clientToken(options.token, dataDir, options.server);
  if (found) return found.token;
  await ensureServerAnswers(serverBaseUrl(options.server), options.dataDir);
  const file = localTokenFile(dataDir);
  throw new SentinelError(
    'invalid_input',
    `No token: give --token or SENTINEL_TOKEN (an admin's), or run the server so ${file} exists.`,
    { field: '--token' },
  );
}

/**
 * `GET|POST|DELETE /freeze` on a running server. Throws `SentinelError` with the server's message
 * (403 for a non-admin token) or `unavailable` when the server cannot be reached.
 */
export async function requestFreeze(
  options: { server: string; token?: string; dataDir?: string },
  change: { frozen: true; reason: string } | { frozen: false } | undefined,
): Promise<FreezeState> {
  const base = serverBaseUrl(options.server);
  // Before the request: a missing token is its own error, not an unreachable server.
  const token = await tokenFor(options);
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
      throw new SentinelError(
        'unauthorized',
        `The Sentinel server at ${serverBaseUrl(options.server)} does not accept this token (HTTP 401): pass an admin's token with --token or SENTINEL_TOKEN, or run where that server keeps its local.token (--data-dir).`,
        { field: '--token' },
      );
    }
    const message = apiError.success ? apiError.data.error.message : `HTTP ${response.status}`;
    throw new SentinelError(response.status === 403 ? 'forbidden' : 'unavailable', message);
  }
  return FreezeStateSchema.parse(body);
}

/** The freeze state as the lines `sentinel freeze` prints. */
export function formatFreeze(state: FreezeState): string {
  return state.frozen
    ? `Changes are FROZEN since ${state.since} by ${state.by}: ${state.reason}\nWrite and destructive calls are denied; reads and dry runs continue.\n`
    : 'Changes are not frozen.\n';
}
