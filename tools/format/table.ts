/**
 * Fixed-column text tables for the model, in the style of `kubectl get`: an upper-case header,
 * columns padded to their widest cell and separated by three spaces, and an explicit "N more" line
 * when the list was cut.
 */
import { oneLine } from './text.ts';

/** Default number of rows a tool lists before saying "N more". */
export const DEFAULT_MAX_ROWS = 50;
/** Widest a cell may be before it is cut with `…`. */
const MAX_CELL = 80;

/** The first `limit` items and how many were left out. */
export function bound<T>(items: readonly T[], limit: number): { shown: T[]; omitted: number } {
  return { shown: items.slice(0, limit), omitted: Math.max(0, items.length - limit) };
}

/** The line that says what a bounded list left out, e.g. `… 12 more pods not shown (narrow with label_selector).` */
export function moreLine(omitted: number, noun: string, hint?: string): string {
  return `… ${omitted} more ${noun} not shown${hint ? ` (${hint})` : ''}.`;
}

export interface TableOptions {
  /** Rows shown before the "N more" line; default 50. */
  maxRows?: number;
  /** Plural noun for the "N more" line and the empty case, e.g. `pods`. */
  noun: string;
  /** How to see the rest, e.g. `narrow with label_selector`. */
  hint?: string;
  /** Widest a cell may be before it is cut with `…`; default 80. */
  maxCell?: number;
}

/**
 * Renders rows under `columns` as fixed-width text. Cells are cleaned to one line and cut at
 * `maxCell` (default 80) characters; at most `maxRows` rows are shown, then `… N more <noun> not shown.` An empty list
 * renders as `No <noun>.`
 */
export function formatTable(
  columns: readonly string[],
  rows: readonly (readonly string[])[],
  options: TableOptions,
): string {
  if (rows.length === 0) return `No ${options.noun}.`;
  const { shown, omitted } = bound(rows, options.maxRows ?? DEFAULT_MAX_ROWS);
  const maxCell = options.maxCell ?? MAX_CELL;
  const last = columns.length - 1;
  const cells = [columns.map((c) => c.toUpperCase())];
  for (const row of shown) cells.push(columns.map((_, i) => oneLine(row[i], maxCell) || '-'));
  const widths = cells[0]!.map((cell) => cell.length);
  for (const row of cells) for (let i = 0; i < last; i++) widths[i] = Math.max(widths[i]!, row[i]!.length);
  // Every column but the last padded to its widest cell; the last is not padded.
  const lines = cells.map((row) => {
    let line = '';
    for (let i = 0; i < last; i++) line += `${row[i]!.padEnd(widths[i]!)}   `;
    return `${line}${row[last] ?? ''}`.trimEnd();
  });
  if (omitted > 0) lines.push(moreLine(omitted, options.noun, options.hint));
  return lines.join('\n');
}
