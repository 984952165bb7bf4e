/**
 * PEM private key blocks in text: what the regular expression
 * `/-----BEGIN ([A-Z0-9 ]*)PRIVATE KEY-----[\s\S]*?-----END \1PRIVATE KEY-----/g` matches, found in
 * O(n log n) instead of its O(n × markers): that expression scans from every `-----BEGIN … PRIVATE
 * KEY-----` to the end of the text when no matching END follows, so a log of 128 KB of BEGIN lines
 * took 0.4 s and 1 MB would take ~25 s of the server's one thread. Here every END marker is indexed
 * once, and each BEGIN looks up the first END of its label after it.
 */

const BEGIN = '-----BEGIN ';
const END = '-----END ';
const TAIL = 'PRIVATE KEY';
const DASHES = '-----';
/** One character of a label (`[A-Z0-9 ]`). */
const LABEL_CHAR = /[A-Z0-9 ]/;

/**
 * The label of a marker whose label starts at `at`: `L` where the text reads `L` + `PRIVATE
 * KEY-----` and `L` is made of `[A-Z0-9 ]` (`RSA `, `EC `, ``), with the index just past the
 * dashes; undefined when the text there is not such a marker. `L` is unique: the run of `[A-Z0-9 ]`
 * from `at` ends at the first `-`, so it must be `L` + `PRIVATE KEY` exactly.
 */
function labelAt(text: string, at: number): { label: string; end: number } | undefined {
  let runEnd = at;
  while (runEnd < text.length && LABEL_CHAR.test(text[runEnd]!)) runEnd += 1;
  if (!text.startsWith(DASHES, runEnd) || runEnd - at < TAIL.length) return undefined;
  if (text.slice(runEnd - TAIL.length, runEnd) !== TAIL) return undefined;
  return { label: text.slice(at, runEnd - TAIL.length), end: runEnd + DASHES.length };
}

/** The first index in ascending `positions` that is >= `from`, or -1. */
function firstAtOrAfter(positions: readonly number[], from: number): number {
  let low = 0;
  let high = positions.length;
  while (low < high) {
    const middle = (low + high) >>> 1;
    if (positions[middle]! < from) low = middle + 1;
    else high = middle;
  }
  return low < positions.length ? positions[low]! : -1;
}

/**
 * `text` with each private key block, leftmost first, from its BEGIN line to the first END line of
 * the same label after it, replaced by `replacement`; and how many were replaced. The same result
 * as `text.replace(` the expression above `, replacement)` (test/tools/private-key-blocks.test.ts
 * checks it on random texts).
 */
export function replacePrivateKeyBlocks(text: string, replacement: string): { value: string; count: number } {
  if (!text.includes(BEGIN)) return { value: text, count: 0 };
  // Every END marker's start, by label, ascending.
  const ends = new Map<string, number[]>();
  for (let at = text.indexOf(END); at >= 0; at = text.indexOf(END, at + 1)) {
    const marker = labelAt(text, at + END.length);
    if (!marker) continue;
    const list = ends.get(marker.label);
    if (list) list.push(at);
    else ends.set(marker.label, [at]);
  }
  let value = '';
  let copied = 0;
  let count = 0;
  for (let at = text.indexOf(BEGIN); at >= 0;) {
    const header = labelAt(text, at + BEGIN.length);
    const end = header ? firstAtOrAfter(ends.get(header.label) ?? [], header.end) : -1;
    if (!header || end < 0) {
      at = text.indexOf(BEGIN, at + 1);
      continue;
    }
    const blockEnd = end + END.length + header.label.length + TAIL.length + DASHES.length;
    value += text.slice(copied, at) + replacement;
    copied = blockEnd;
    count += 1;
    at = text.indexOf(BEGIN, blockEnd);
  }
  return { value: value + text.slice(copied), count };
}
