/**
 * Sentinel's colours and symbols on a terminal. Whether a stream gets them (`colorsEnabled`):
 *
 * 1. `--no-color` (the global flag: `disableColors()`) turns them off, whatever else is set;
 * 2. `FORCE_COLOR` turns them on even off a terminal, except `0` or `false` which turn them off
 *    (as Node's own `FORCE_COLOR`; it wins over `NO_COLOR`, as in Node);
 * 3. `NO_COLOR` with any non-empty value turns them off (https://no-color.org);
 * 4. otherwise on when the stream is a terminal (`isTTY`) and `TERM` is not `dumb`.
 *
 * The codes are node:util `styleText`'s; the text inside is sanitized first, and on a guarded stream
 * they travel as the guard's own marks (agent/terminal-guard.ts `ownColours`), so only Sentinel's
 * styling can colour: an ESC in cluster text is still shown, never obeyed. Colour is never the only
 * cue: statuses keep their words, symbols come with text.
 */
import { styleText } from 'node:util';
import { sanitizeText } from '../tools/light.ts';
import { ownColours } from './terminal-guard.ts';

/** The styles Sentinel uses (a subset of `util.inspect.colors`). */
export type Style = 'bold' | 'dim' | 'red' | 'green' | 'yellow' | 'blue' | 'magenta' | 'cyan' | 'gray';

let disabledByFlag = false;

/**
 * `--no-color`: `true` (the default) turns colours and symbols off on every stream for the rest of
 * the process; `false` undoes it (each `sentinel` command decides anew; tests run many in one process).
 */
export function disableColors(disabled = true): void {
  disabledByFlag = disabled;
}

/** Same as `disableColors(false)`. */
export function resetColors(): void {
  disabledByFlag = false;
}

/** Whether `stream` gets colours (rules in the module comment). */
export function colorsEnabled(
  stream: Pick<Partial<NodeJS.WriteStream>, 'isTTY'>,
  env: NodeJS.ProcessEnv = process.env,
): boolean {
  if (disabledByFlag) return false;
  const force = env.FORCE_COLOR;
  if (force !== undefined && force !== '') return force !== '0' && force.toLowerCase() !== 'false';
  if (env.NO_COLOR) return false;
  return stream.isTTY === true && env.TERM !== 'dumb';
}

/** The status of an approval request (or an execution), coloured by what it means for the reader. */
const STATUS_STYLES: Record<string, Style> = {
  pending: 'yellow',
  approved: 'cyan',
  executing: 'cyan',
  executed: 'green',
  denied: 'red',
  failed: 'red',
  stale: 'magenta',
  expired: 'gray',
  withdrawn: 'gray',
  cancelled: 'gray',
  superseded: 'gray',
};

/** Colour functions for one stream; every one returns its text unchanged when colours are off. */
export interface Palette {
  readonly enabled: boolean;
  /** `text` (sanitized) in `style`. */
  paint(style: Style | readonly Style[], text: string): string;
  /** `text` (default the status itself) in the colour of approval status `status`. */
  status(status: string, text?: string): string;
  /** `✔ text` in green (plain `text` without colours). */
  ok(text: string): string;
  /** `✘ text` in red (plain `text` without colours). */
  bad(text: string): string;
  /** `⚠ text` in yellow (plain `text` without colours). */
  warn(text: string): string;
}

/** The palette for `stream` (decided now, by `colorsEnabled`). */
export function palette(stream: NodeJS.WritableStream, env: NodeJS.ProcessEnv = process.env): Palette {
  const enabled = colorsEnabled(stream as Partial<NodeJS.WriteStream>, env);
  const paint = (style: Style | readonly Style[], text: string): string => {
    if (!enabled) return text;
    const safe = sanitizeText(text, { multiline: true, style: 'json' }); // as the guard shows it
    return ownColours(stream, styleText(style as Style | Style[], safe, { validateStream: false }));
  };
  return {
    enabled,
    paint,
    status: (status, text = status) => (STATUS_STYLES[status] ? paint(STATUS_STYLES[status], text) : text),
    ok: (text) => (enabled ? paint('green', `✔ ${text}`) : text),
    bad: (text) => (enabled ? paint('red', `✘ ${text}`) : text),
    warn: (text) => (enabled ? paint('yellow', `⚠ ${text}`) : text),
  };
}

/** No colours, no added symbols: what a pipe gets (a default for renderers). */
export const plainPalette: Palette = {
  enabled: false,
  paint: (_style, text) => text,
  status: (status, text = status) => text,
  ok: (text) => text,
  bad: (text) => text,
  warn: (text) => text,
};
