/**
 * The server's pino logger: JSON, object first, level from SENTINEL_LOG_LEVEL (default `info`).
 * Authorization headers and anything named like a token are redacted wherever they appear.
 */
import pino, { type DestinationStream, type Logger } from 'pino';
import { sanitizeText } from '../tools/index.ts';

/** Paths pino censors in every log line. */
export const REDACTED_LOG_PATHS = [
  'authorization',
  'token',
  'headers.authorization',
  '*.authorization',
  '*.token',
  '*.headers.authorization',
  'req.headers.authorization',
  'req.headers.cookie',
];

export interface LoggerOptions {
  /** pino level; default SENTINEL_LOG_LEVEL or `info`. */
  level?: string;
  /** File descriptor to write to: 1 (stdout, HTTP mode) or 2 (stderr, stdio mode where stdout is the protocol). */
  fd?: 1 | 2;
  /** Write here instead of `fd` (tests capture logs this way). */
  destination?: DestinationStream;
}

/** Creates the server logger (synchronous writes, so nothing is lost when the process exits). */
export function createLogger(options: LoggerOptions = {}): Logger {
  return pino(
    {
      name: 'sentinel',
      level: options.level ?? process.env.SENTINEL_LOG_LEVEL ?? 'info',
      redact: { paths: REDACTED_LOG_PATHS, censor: '[redacted]' },
      // Log lines carry cluster and caller text; no escape, bidi or invisible character reaches a
      // terminal tailing them (the JSON style keeps each line valid JSON with the same value).
      hooks: { streamWrite: (line) => sanitizeText(line, { multiline: true, style: 'json' }) },
    },
    options.destination ?? pino.destination({ fd: options.fd ?? 1, sync: true }),
  );
}
