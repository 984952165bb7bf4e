/**
 * The one sanitizer of text that came from the cluster (or from anyone else Sentinel does not
 * control) before a person or a model reads it. Every code point that can hide, reorder or rewrite
 * what is shown is replaced by a visible escape, so a reader sees that something was there instead
 * of having it act on their terminal or page:
 *
 * - C0 controls (except `\t` and `\n` in multi-line text; `\r\n` becomes `\n`), DEL and C1 controls
 *   → `\x1b`, `\x07`, `\x9b`: an ESC/CSI/OSC sequence such as `ESC]0;pwned BEL ESC[8m` becomes the
 *   inert text `\x1b]0;pwned\x07\x1b[8m`;
 * - format characters (Unicode category Cf: bidi embeddings, overrides and isolates U+202A–202E,
 *   U+2066–2069, marks U+200E/200F/061C, zero-width U+200B–200D, U+2060–2064, BOM U+FEFF, soft
 *   hyphen, tag characters U+E0000–E007F, ...), line/paragraph separators U+2028/2029, lone
 *   surrogates, and blank fillers that render as nothing (U+034F, U+115F, U+1160, U+17B4, U+17B5,
 *   U+3164, U+FFA0) → `\u202e`, `\u200b`, `\u{e0041}`.
 *
 * Backslashes are left as they are, so the escapes are not reversible; they are for reading, and
 * anything written back to the cluster is built from the unsanitized object (tools/kube/sanitize.ts).
 */

// C0 (incl. \t \n \r), DEL, C1, Cf, lone surrogates, U+2028/2029, invisible fillers.
// (The combining fillers U+034F, U+17B4, U+17B5 are alternatives, not class members, so no character
// class holds a combining mark.)
const UNSAFE = /\r\n|\u034f|\u17b4|\u17b5|[\p{Cc}\p{Cf}\p{Cs}\p{Zl}\p{Zp}\u115f\u1160\u3164\uffa0]/gu;

/** Text made only of U+0020–U+007E. */
const PRINTABLE_ASCII = /^[\x20-\x7e]*$/;

export interface SanitizeOptions {
  /** Keep `\n` and `\t` (log lines, messages, annotation values); default false: they are escaped too. */
  multiline?: boolean;
  /**
   * `text` (default): `\x1b` for code points up to U+00FF, `\u202e` up to U+FFFF, `\u{e0041}` above.
   * `json`: always `\uXXXX` (astral code points as a surrogate pair), so sanitizing serialized JSON
   * leaves it valid JSON with the same value (the terminal guard, which also sees MCP stdio).
   */
  style?: 'text' | 'json';
}

const hex = (n: number, width: number) => n.toString(16).padStart(width, '0');

/** The visible escape of one code point. */
function escapeCodePoint(cp: number, style: 'text' | 'json'): string {
  if (style === 'json') {
    if (cp <= 0xffff) return `\\u${hex(cp, 4)}`;
    const offset = cp - 0x10000;
    return `\\u${hex(0xd800 + (offset >> 10), 4)}\\u${hex(0xdc00 + (offset & 0x3ff), 4)}`;
  }
  if (cp <= 0xff) return `\\x${hex(cp, 2)}`;
  if (cp <= 0xffff) return `\\u${hex(cp, 4)}`;
  return `\\u{${cp.toString(16)}}`;
}

/**
 * `text` with every control, format and invisible code point replaced by a visible escape (see the
 * module comment). With `multiline`, `\n` and `\t` are kept and `\r\n` becomes `\n`; otherwise they
 * are escaped (`\n`, `\t`, `\r` as `\x0a`, `\x09`, `\x0d`). Idempotent: its output contains none of
 * the replaced code points. Never throws.
 */
export function sanitizeText(text: string, options: SanitizeOptions = {}): string {
  // Printable ASCII holds none of UNSAFE's code points (controls are below U+0020 and U+007F; Cf,
  // surrogates and separators are above U+007F): most of what the cluster sends, returned at once.
  if (PRINTABLE_ASCII.test(text)) return text;
  const { multiline = false, style = 'text' } = options;
  return text.replace(UNSAFE, (match) => {
    if (match === '\r\n')
      return multiline ? '\n' : `${escapeCodePoint(0x0d, style)}${escapeCodePoint(0x0a, style)}`;
    if (multiline && (match === '\n' || match === '\t')) return match;
    return escapeCodePoint(match.codePointAt(0)!, style);
  });
}

/** Whether `text` holds none of the code points `sanitizeText` replaces (`\n` and `\t` allowed). */
export function isSanitized(text: string): boolean {
  for (const match of text.matchAll(UNSAFE)) {
    if (match[0] !== '\n' && match[0] !== '\t') return false;
  }
  return true;
}

/**
 * Printable ASCII words separated by single spaces: already one clean line (sanitizing, collapsing
 * whitespace and trimming change nothing), as most table cells are — tested once instead.
 */
const ONE_LINE = /^[\x21-\x7e]+(?: [\x21-\x7e]+)*$/;

/**
 * One line of untrusted text for a table cell or a sentence: sanitized, whitespace collapsed, cut
 * to `max` characters with `…` (never inside a surrogate pair).
 */
export function oneLine(text: string | undefined, max = 80): string {
  if (!text) return '';
  const line = ONE_LINE.test(text)
    ? text
    : sanitizeText(text, { multiline: true }).replace(/\s+/g, ' ').trim();
  if (line.length <= max) return line;
  let end = max - 1;
  const last = line.charCodeAt(end - 1);
  if (last >= 0xd800 && last <= 0xdbff) end -= 1;
  return `${line.slice(0, end)}…`;
}

/** UTF-8 length of a string in bytes. */
export function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
