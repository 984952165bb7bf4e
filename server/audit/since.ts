/**
 * `--since` of `sentinel audit export`: a time or a duration back from now, as an ISO 8601 UTC time.
 */
import { SentinelError } from '../../core/index.ts';
import { durationMs, DurationSchema } from '../gate/approval-request.ts';

/**
 * The `--since` value as an ISO 8601 UTC time: a timestamp (`2025-01-31T02:00:00Z`, any offset) or a
 * duration back from `now` (`90m`, `2h`, `7d`, as `kubectl logs --since`). Throws
 * `SentinelError('invalid_input')` naming `--since`.
 */
export function parseSince(value: string, now: Date = new Date()): string {
  // `ms` reads a bare number as milliseconds: `--since 12` meant 12 minutes, hours or days, never 12 ms.
  if (/^\s*[\d.]+\s*$/.test(value)) {
    throw new SentinelError(
      'invalid_input',
      `--since '${value}' has no unit: give a duration back from now with its unit (${value.trim()}m, ${value.trim()}h, ${value.trim()}d) or an ISO 8601 time (2025-01-31T02:00:00Z).`,
      { field: '--since' },
    );
  }
  if (DurationSchema.safeParse(value).success)
    return new Date(now.getTime() - durationMs(value)).toISOString();
  const time = /^\d{4}-\d{2}-\d{2}/.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(time)) {
    throw new SentinelError(
      'invalid_input',
      `--since '${value}' is neither an ISO 8601 time (2025-01-31T02:00:00Z) nor a duration (90m, 2h, 7d).`,
      { field: '--since' },
    );
  }
  return new Date(time).toISOString();
}
