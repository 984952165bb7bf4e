/**
 * Cleaning text that came from the cluster before it is shown: terminal escape sequences, control
 * characters and invisible Unicode (zero-width, bidirectional overrides, tag characters) are
 * removed so nothing can hide or reorder what a person or a model reads.
 */

// ANSI CSI / OSC escape sequences (colours, cursor movement, window titles).
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const ANSI_ESCAPES = /\u001b\[[0-?]*[ -/]*[@-~]|\u001b\][^\u0007\u001b]*(?:\u0007|\u001b\\)|\u001b[@-Z\\-_]/g;
// C0 controls except tab and newline, DEL, C1 controls.
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f]/g;
// Zero-width and invisible formatting characters, bidi embeddings/overrides/isolates, BOM,
// soft hyphen, and Unicode tag characters (used to smuggle hidden text).
const INVISIBLE =
  /[\u00ad\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff\ufff9-\ufffb]|[\u{e0000}-\u{e007f}]/gu;

/** Removes escape sequences, control characters (keeping `\n` and `\t`; `\r\n` becomes `\n`) and invisible characters. */
export function stripControlCharacters(text: string): string {
  return text.replace(/\r\n/g, '\n').replace(ANSI_ESCAPES, '').replace(CONTROL, '').replace(INVISIBLE, '');
}

/** One line of cluster text for a table cell: cleaned, whitespace collapsed, cut to `max` characters with `…`. */
export function oneLine(text: string | undefined, max = 80): string {
  if (!text) return '';
  const line = stripControlCharacters(text).replace(/\s+/g, ' ').trim();
  return line.length > max ? `${line.slice(0, max - 1)}…` : line;
}

/** UTF-8 length of a string in bytes. */
export function byteLength(text: string): number {
  return Buffer.byteLength(text, 'utf8');
}
