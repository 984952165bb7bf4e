/**
 * Times in the approvals page's HTML: `<time>` elements, which the page's script shows in the
 * viewer's zone (./time.ts is the terminal's counterpart; kept apart so the CLI's light entries load
 * no HTML escaping).
 */
import escapeHtml from 'escape-html';
import { ISO_UTC } from './time.ts';

/**
 * A timestamp as HTML `<time>`: the ISO value as text and on hover; the approvals page's script
 * shows the viewer's local time in its place (the title keeps the UTC value). `iso` is escaped.
 */
export function timeHtml(iso: string): string {
  const value = escapeHtml(iso);
  return `<time datetime="${value}" title="${value} (UTC)">${value}</time>`;
}

/**
 * Already-escaped HTML text with every ISO-8601 UTC timestamp in it as `timeHtml` (e.g. a recorded
 * grant scope's "if retried before …"), the page's counterpart of `withLocalTimes`.
 */
export function withTimeElements(escapedHtml: string): string {
  return escapedHtml.replace(ISO_UTC, (iso) => timeHtml(iso));
}
