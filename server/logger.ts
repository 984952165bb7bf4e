/**
 * The server's pino logger: JSON, object first, level from SENTINEL_LOG_LEVEL (default `info`).
 * Authorization headers and anything named like a token are redacted wherever they appear.
 */
import pino, { type DestinationStream, type Logger, type LoggerOptions as PinoOptions } from 'pino';
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
  /** Called (once) when `fd`'s reader goes away (EPIPE): every later line is lost. */
  onClosed?: () => void;
}

/**
 * A synchronous pino destination on `fd`. pino drops every line after an EPIPE silently; `onClosed`
 * is told (once), so that a server whose logs go nowhere can stop instead of running unseen.
 */
export function fdDestination(fd: 1 | 2, onClosed?: () => void): DestinationStream {
  const destination = pino.destination({ fd, sync: true });
  if (onClosed) {
    let told = false;
    destination.on('error', (error: NodeJS.ErrnoException) => {
      if (error.code !== 'EPIPE' || told) return;
      told = true;
      onClosed();
    });
  }
  return destination;
}

/** The pino options of the server logger (level, redaction, sanitising hook), for `level`. */
export function serverLoggerOptions(level: string): PinoOptions {
  return {
    name: 'sentinel',
    level,
    redact: { paths: REDACTED_LOG_PATHS, censor: '[redacted]' },
    // Log lines carry cluster and caller text; no escape, bidi or invisible character reaches a
    // terminal tailing them (the JSON style keeps each line valid JSON with the same value).
    hooks: { streamWrite: (line) => sanitizeText(line, { multiline: true, style: 'json' }) },
  };
}

type Stringifier = (value: unknown, ...rest: unknown[]) => string | undefined;

/**
 * Skips pino's wildcard redactor for string, number and boolean values, which it returns as
 * `JSON.stringify(value)` unchanged (a primitive has no property to censor).
 *
 * Why: the `*.…` paths make pino pass every top-level value of every line through that redactor
 * (@pinojs/redact 0.4), which re-parses each path and allocates on each call — ~7× the cost of
 * the line itself. Objects (where a `*.token` can hide) and every other type still go through it,
 * so the lines are byte for byte the same (test/server/logger.test.ts compares them with plain pino's).
 * The stringifiers object is shared with child loggers, so they get it too.
 */
function skipRedactingPrimitives(logger: Logger): Logger {
  const stringifiers = (logger as unknown as Record<symbol, Record<symbol, Stringifier | undefined>>)[
    pino.symbols.stringifiersSym
  ];
  const wildcard = stringifiers?.[pino.symbols.wildcardFirstSym];
  if (!stringifiers || !wildcard) return logger;
  stringifiers[pino.symbols.wildcardFirstSym] = (value, ...rest) => {
    const type = typeof value;
    return type === 'string' || type === 'number' || type === 'boolean'
      ? JSON.stringify(value)
      : wildcard(value, ...rest);
  };
  return logger;
}

/** Creates the server logger (synchronous writes, so nothing is lost when the process exits). */
export function createLogger(options: LoggerOptions = {}): Logger {
  return skipRedactingPrimitives(
    pino(
      serverLoggerOptions(options.level ?? process.env.SENTINEL_LOG_LEVEL ?? 'info'),
      options.destination ?? fdDestination(options.fd ?? 1, options.onClosed),
    ),
  );
}
