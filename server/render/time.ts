/**
 * Times for people reading a terminal: the reader's local zone first, the UTC value in parentheses
 * and how far from now, e.g. `2026-12-02 09:40 CET (08:40 UTC, in 29m)` — the same information the
 * approvals page shows (local time, UTC on hover, a countdown). Records and the API keep ISO UTC.
 */
import { humanDuration } from '../../tools/light.ts';

export interface LocalTimeOptions {
  /** The clock for "in …" / "… ago". Default: now. */
  now?: Date;
  /** IANA zone to show; default the process's (TZ, else the system zone). */
  timeZone?: string;
}

/** An ISO-8601 UTC timestamp as the API writes it (`Date#toISOString`). */
export const ISO_UTC = /\b\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d{1,9})?Z\b/g;

function parts(date: Date, timeZone: string | undefined): Record<string, string> {
  const format = new Intl.DateTimeFormat('en-US', {
    ...(timeZone !== undefined && { timeZone }),
    year: 'numeric',
    month: '2-digit',
    day: '2-digit',
    hour: '2-digit',
    minute: '2-digit',
    hourCycle: 'h23',
    timeZoneName: 'short',
  });
  return Object.fromEntries(format.formatToParts(date).map((part) => [part.type, part.value]));
}

/**
 * `iso` (an ISO-8601 instant) as `YYYY-MM-DD HH:MM <zone> (HH:MM UTC, in 29m)` in the local zone;
 * when the local zone is UTC, `YYYY-MM-DD HH:MM UTC (in 29m)`. Past instants say `… ago`. An
 * unparsable value is returned unchanged.
 */
export function localTime(iso: string, options: LocalTimeOptions = {}): string {
  const date = new Date(iso);
  if (Number.isNaN(date.getTime())) return iso;
  const now = options.now ?? new Date();
  const local = parts(date, options.timeZone);
  const utc = parts(date, 'UTC');
  const left = date.getTime() - now.getTime();
  const relative = left >= 0 ? `in ${humanDuration(left)}` : `${humanDuration(-left)} ago`;
  const shown = `${local.year}-${local.month}-${local.day} ${local.hour}:${local.minute} ${local.timeZoneName}`;
  const sameAsUtc = local.hour === utc.hour && local.minute === utc.minute && local.day === utc.day;
  return sameAsUtc && /^(UTC|GMT)$/.test(local.timeZoneName ?? '')
    ? `${shown} (${relative})`
    : `${shown} (${utc.hour}:${utc.minute} UTC, ${relative})`;
}

/** `text` with every ISO-8601 UTC timestamp in it shown as `localTime` (e.g. a grant's "until"). */
export function withLocalTimes(text: string, options: LocalTimeOptions = {}): string {
  return text.replace(ISO_UTC, (iso) => localTime(iso, options));
}
