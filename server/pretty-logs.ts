/**
 * Logs for a person at a terminal (`sentinel serve` with stdout a TTY): each pino line as one short
 * line — local time, level, message, the fields as compact JSON — by pino-pretty's `prettyFactory`
 * (loaded only then). Off a terminal the logs stay JSON, unchanged (server/logger.ts).
 *
 * Log values carry cluster and caller text. The JSON line pino writes is already sanitized, but
 * parsing it back restores an ESC escaped as `\u001b`; so every key and string value is sanitized
 * again (shown as `\x1b`) before pino-pretty formats it, and the only escape codes written are
 * pino-pretty's own colours.
 */
import type { DestinationStream } from 'pino';
import { SentinelError } from '../core/index.ts';
import { sanitizeText } from '../tools/index.ts';
import { fdDestination } from './logger.ts';

/** `json`: pino's JSON lines; `pretty`: short lines for a person at a terminal. */
export type LogFormat = 'json' | 'pretty';

/**
 * The log format for a log stream: SENTINEL_LOG_FORMAT (`json` or `pretty`) when set, else
 * `pretty` on a terminal and `json` otherwise. Throws `SentinelError('invalid_input')` naming the
 * variable for another value.
 */
export function logFormat(
  stream: Pick<Partial<NodeJS.WriteStream>, 'isTTY'>,
  env: NodeJS.ProcessEnv = process.env,
): LogFormat {
  const given = env.SENTINEL_LOG_FORMAT?.trim();
  if (given === 'json' || given === 'pretty') return given;
  if (given) {
    throw new SentinelError(
      'invalid_input',
      `SENTINEL_LOG_FORMAT '${given}' must be json or pretty (unset: pretty on a terminal, else json).`,
      { field: 'SENTINEL_LOG_FORMAT' },
    );
  }
  return stream.isTTY === true ? 'pretty' : 'json';
}

export interface PrettyLogOptions {
  /** Colour the level and message (the terminal's colour decision, agent/colors.ts). */
  colorize: boolean;
  /** File descriptor to write to (1 HTTP mode, 2 stdio mode); default 1. */
  fd?: 1 | 2;
  /** Write here instead of `fd` (tests). */
  destination?: { write(text: string): unknown };
  /** Called (once) when `fd`'s reader goes away (server/logger.ts `fdDestination`). */
  onClosed?: () => void;
}

/** `value` with every string (and key) sanitized for a terminal, recursively. */
function visible(value: unknown): unknown {
  if (typeof value === 'string') return sanitizeText(value, { multiline: true });
  if (Array.isArray(value)) return value.map(visible);
  if (value !== null && typeof value === 'object') {
    return Object.fromEntries(Object.entries(value).map(([key, item]) => [sanitizeText(key), visible(item)]));
  }
  return value;
}

/**
 * A pino destination that writes each JSON log line pretty-printed (see the module comment).
 * A line that is not JSON is written sanitized, as it came.
 */
export async function prettyLogDestination(options: PrettyLogOptions): Promise<DestinationStream> {
  const { prettyFactory } = await import('pino-pretty');
  const prettify = prettyFactory({
    colorize: options.colorize,
    translateTime: 'SYS:HH:MM:ss',
    ignore: 'pid,hostname,name',
    singleLine: true,
  });
  const out = options.destination ?? fdDestination(options.fd ?? 1, options.onClosed);
  return {
    write(line: string) {
      let record: unknown;
      try {
        record = JSON.parse(line);
      } catch {
        out.write(sanitizeText(line, { multiline: true }));
        return;
      }
      out.write(prettify(visible(record)));
    },
  };
}
