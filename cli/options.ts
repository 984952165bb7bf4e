/**
 * Command-line options and value parsers shared by several commands: `--data-dir`, `--server`,
 * the harness's `--harness`/`--harness-token`/`--timeout`, and the numeric parsers. Each turns a
 * bad value into commander's usage error (exit 2) naming the flag.
 */
import { InvalidArgumentError, Option, type Command } from 'commander';
import type { ServerEntry } from '../server/client.ts';
import {
  DEFAULT_SERVER_URL,
  localTime,
  resolveDataDir,
  SERVER_URL_ENV,
  serverBaseUrl,
  serverMcpUrl,
  type LocalTimeOptions,
} from '../server/light.ts';

/** The shared `--data-dir <dir>` option (resolved by server/data-dir.ts `resolveDataDir`). */
export function dataDirOption(): Option {
  return new Option('--data-dir <dir>', 'state directory (env SENTINEL_DATA_DIR; default ~/.sentinel)');
}

/**
 * `--server <url>` read from `SENTINEL_SERVER_URL`, defaulting to `sentinel serve`'s address, and
 * normalised to the `endpoint` the command needs (`base` or `mcp`) whichever form was given. A bad
 * URL is a usage error naming the flag or the variable.
 */
export function serverUrlOption(description: string, endpoint: 'base' | 'mcp'): Option {
  const normalise = endpoint === 'mcp' ? serverMcpUrl : serverBaseUrl;
  return new Option('--server <url>', description)
    .env(SERVER_URL_ENV)
    .default(normalise(DEFAULT_SERVER_URL))
    .argParser((value: string) => {
      try {
        return normalise(value);
      } catch (error) {
        throw new InvalidArgumentError((error as Error).message);
      }
    });
}

/**
 * The server a client command on `dataDir` talks to when no `--server`/SENTINEL_SERVER_URL is given:
 * the newest `sentinel serve` running on it (its discovery file, `<data-dir>/servers/<port>.json`),
 * else the newest investigation's in-process server; undefined when none runs.
 */
export async function discoveredServer(dataDir: string): Promise<ServerEntry | undefined> {
  const { runningServers } = await import('../server/client.ts');
  const running = runningServers(dataDir);
  return running.filter((entry) => entry.kind === 'serve').at(-1) ?? running.at(-1);
}

/**
 * Makes `command`'s defaulted `--server` the discovered server of its `--data-dir` (see
 * `discoveredServer`), normalised to `endpoint`, just before its action runs; a given `--server`
 * or SENTINEL_SERVER_URL wins. The token then comes from the same discovery file (clientToken).
 * When more than one server runs on the data directory, one stderr line names the one picked.
 */
export function useDiscoveredServer(command: Command, endpoint: 'base' | 'mcp'): Command {
  return command.hook('preAction', async (_self, action) => {
    if (action.getOptionValueSource('server') !== 'default') return;
    const dataDir = resolveDataDir(action.getOptionValue('dataDir') as string | undefined);
    const found = await discoveredServer(dataDir);
    if (!found) return;
    const url = endpoint === 'mcp' ? serverMcpUrl(found.url) : serverBaseUrl(found.url);
    action.setOptionValueWithSource('server', url, 'config');
    // Several servers on one data directory: say which one was picked (stderr, so --json stays clean).
    const { runningServers } = await import('../server/client.ts');
    const count = runningServers(dataDir).length;
    if (count > 1) process.stderr.write(`${usingServerLine(found, count)}\n`);
  });
}

/**
 * The line naming the discovered server a command uses: `Using the Sentinel server running at <url>
 * (pid <pid>, since <local time (UTC time, … ago)>[; <count> are running on this data directory]);
 * pass --server to choose another.` — `count` is how many servers run on the data directory (named
 * when > 1); the start time as `tokens list` shows times (`localTime`; `time` fixes clock and zone).
 * Shared by the client commands and `investigate`, so both say it in the same words.
 */
export function usingServerLine(
  found: Pick<ServerEntry, 'url' | 'pid' | 'started'>,
  count: number,
  time: LocalTimeOptions = {},
): string {
  const several = count > 1 ? `; ${count} are running on this data directory` : '';
  return `Using the Sentinel server running at ${found.url} (pid ${found.pid}, since ${localTime(found.started, time)}${several}); pass --server to choose another.`;
}

/** `--harness <url>` (SENTINEL_HARNESS_URL): the TrueForge harness base URL. */
export function harnessUrlOption(): Option {
  return new Option('--harness <url>', 'TrueForge harness URL, e.g. http://127.0.0.1:8000').env(
    'SENTINEL_HARNESS_URL',
  );
}

/** `--harness-token <token>` (SENTINEL_HARNESS_TOKEN): the harness login token, when it needs one. */
export function harnessTokenOption(): Option {
  return new Option('--harness-token <token>', 'TrueForge harness bearer token').env(
    'SENTINEL_HARNESS_TOKEN',
  );
}

/** `--server <url>` (SENTINEL_SERVER_URL) as the harness commands take it: the MCP URL. */
export function mcpServerUrlOption(description: string): Option {
  return serverUrlOption(description, 'mcp');
}

/** `--timeout <seconds>`: deadline of each harness request (default 30). */
export function timeoutOption(): Option {
  return new Option('--timeout <seconds>', 'deadline of each harness request, in seconds')
    .default(30)
    .argParser(parseSeconds);
}

/** Parses a positive number of seconds (at most one hour). */
export function parseSeconds(value: string): number {
  const seconds = Number(value);
  if (!Number.isFinite(seconds) || seconds <= 0 || seconds > 3600) {
    throw new InvalidArgumentError('must be a number of seconds greater than 0 and at most 3600.');
  }
  return seconds;
}

/**
 * Commander parser of every duration option (`--window`, `--upstream-max-age`; `90s`, `15m`, `2h`):
 * a bare number is refused, since `ms` would read `30` as 30 milliseconds; commander names the
 * option (exit 2). The value is returned as given; the full duration syntax is checked where it is
 * used (DurationSchema, the identity store).
 */
export function parseDuration(value: string): string {
  if (/^\s*[\d.]+\s*$/.test(value)) {
    const n = value.trim();
    throw new InvalidArgumentError(`a bare number has no unit: give a unit, e.g. ${n}s or ${n}m.`);
  }
  return value;
}

/** Parses a TCP port: an integer from 0 (pick a free one) to 65535. */
export function parsePort(value: string): number {
  if (!/^\d+$/.test(value) || Number(value) > 65535)
    throw new InvalidArgumentError('must be an integer from 0 to 65535.');
  return Number(value);
}

/** Parses `--time-scale`: a number > 0, at most `MAX_TIME_SCALE` (used by `sentinel sim`, `demo` and `eval`). */
export function parseTimeScale(value: string): number {
  const number = Number(value);
  if (value.trim() === '' || !Number.isFinite(number) || number <= 0 || number > MAX_TIME_SCALE) {
    throw new InvalidArgumentError(
      `must be a number > 0 and at most ${MAX_TIME_SCALE} (1 = real time, 60 = a simulated minute per second, ${MAX_TIME_SCALE} = an hour).`,
    );
  }
  return number;
}

/**
 * Fastest simulated clock: an hour per real second. A million simulated seconds per second kept
 * the simulator's controllers catching up for ever, a core spinning and SIGTERM never handled.
 */
const MAX_TIME_SCALE = 3600;

/**
 * `--reason <text>` that must say something (a space is nothing): the text every caller is told.
 * Throws commander's `InvalidArgumentError` (exit 2) for a blank one.
 */
export function parseReason(value: string): string {
  if (value.trim() === '') throw new InvalidArgumentError('must not be empty: every caller is told why.');
  return value;
}

/**
 * `--read-cache <mode>` of `sentinel eval` and `demo`: their in-process server's, checked (in the
 * action, by `parseReadCacheMode`) by the same rule as `sentinel serve --read-cache`.
 */
export function readCacheOption(): Option {
  return new Option(
    '--read-cache <mode>',
    "the in-process server's read cache, as `serve --read-cache`: 'watch' (default) or 'off'",
  );
}

/** `--tokens-file <file>`: the identities file (default `<data-dir>/tokens.yaml`). */
export function tokensFileOption(): Option {
  return new Option('--tokens-file <file>', 'identities file (default <data-dir>/tokens.yaml)');
}

/** Commander's collector for a repeatable option: each occurrence appends to the list. */
export const collect = (value: string, previous: string[] = []): string[] => [...previous, value];
