/**
 * Ages and durations as kubectl prints them (k8s.io/apimachinery/pkg/util/duration.HumanDuration):
 * `45s`, `3m20s`, `42m`, `5h12m`, `3d4h`, `400d`, `2y30d`.
 */

/** kubectl's `HumanDuration` of `ms` milliseconds. */
export function humanDuration(ms: number): string {
  const seconds = Math.floor(ms / 1000);
  if (seconds < -1) return '<invalid>';
  if (seconds < 0) return '0s';
  if (seconds < 120) return `${seconds}s`;
  const minutes = Math.floor(seconds / 60);
  if (minutes < 10) return seconds % 60 === 0 ? `${minutes}m` : `${minutes}m${seconds % 60}s`;
  if (minutes < 180) return `${minutes}m`;
  const hours = Math.floor(minutes / 60);
  if (hours < 8) return minutes % 60 === 0 ? `${hours}h` : `${hours}h${minutes % 60}m`;
  if (hours < 48) return `${hours}h`;
  if (hours < 24 * 8)
    return hours % 24 === 0 ? `${Math.floor(hours / 24)}d` : `${Math.floor(hours / 24)}d${hours % 24}h`;
  const days = Math.floor(hours / 24);
  if (hours < 24 * 365 * 2) return `${days}d`;
  const years = Math.floor(days / 365);
  if (hours < 24 * 365 * 8) return days % 365 === 0 ? `${years}y` : `${years}y${days % 365}d`;
  return `${years}y`;
}

/** Age of a Kubernetes timestamp relative to `now` (ms since epoch), or `<unknown>` when unset. */
export function age(timestamp: Date | string | undefined, now: number = Date.now()): string {
  if (timestamp === undefined) return '<unknown>';
  const time = timestamp instanceof Date ? timestamp.getTime() : Date.parse(timestamp);
  return Number.isNaN(time) ? '<unknown>' : humanDuration(now - time);
}
