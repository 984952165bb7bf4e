/**
 * The terminal-escape payloads of issue 13 and the check every output must pass: no ESC (0x1b),
 * BEL (0x07), C1 control (0x80–0x9f), bidi control or invisible format character.
 */
import { expect } from 'vitest';

/** An image tag that sets the window title and then hides everything after it (`ESC[8m`). */
export const IMAGE_PAYLOAD = 'checkout:2.4.0\u001b]0;pwned\u0007\u001b[8m';
/** How `IMAGE_PAYLOAD` reads once sanitized. */
export const IMAGE_VISIBLE = 'checkout:2.4.0\\x1b]0;pwned\\x07\\x1b[8m';
/** Clears the screen. */
export const CLEAR_PAYLOAD = '\u001b[2J';
export const CLEAR_VISIBLE = '\\x1b[2J';
/** Right-to-left override. */
export const BIDI_PAYLOAD = '\u202enur-yrd';
export const BIDI_VISIBLE = '\\u202enur-yrd';

/** ESC, BEL, C1, bidi embeddings/overrides/isolates/marks, zero-width and other Cf characters. */
// eslint-disable-next-line no-control-regex -- finding control characters is the point
export const FORBIDDEN = /[\u0000-\u0008\u000b-\u001f\u007f-\u009f\p{Cf}\u2028\u2029]/u;

/** Fails naming `where` and the first forbidden code point (with some context) when `text` has one. */
export function expectClean(text: string, where: string): void {
  const match = FORBIDDEN.exec(text);
  if (!match) return;
  const at = match.index;
  const context = JSON.stringify(text.slice(Math.max(0, at - 40), at + 40));
  expect.fail(`${where}: U+${match[0].codePointAt(0)!.toString(16).padStart(4, '0')} at ${at}: ${context}`);
}
