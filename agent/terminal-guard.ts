/**
 * The CLI's last line of defence for what reaches a terminal: once installed on `process.stdout`
 * and `process.stderr` (by `main`, for every `sentinel` command), every string written is passed
 * through the one sanitizer (`sanitizeText`, tools/format/text.ts) in its JSON-safe style, so a
 * path that forgot to sanitize cluster text still cannot emit ESC, BEL, C1 controls, bidi controls
 * or invisible characters: they show as `\u001b`, `\u202e`, .... Newlines and tabs pass. The JSON
 * style means JSON output (`--json`, MCP over `serve --stdio`) stays valid JSON with the same value.
 *
 * The only writer allowed raw control sequences is the approval spinner, which writes its own
 * cursor and colour codes through `unguarded(stream)` (and sanitizes the text it shows).
 *
 * Sentinel's own colours (agent/colors.ts) reach a guarded stream as marks only this process can
 * write — `<key>[<SGR parameters>m`, `key` random per process and never shown — which the guard
 * turns into SGR colour codes after sanitizing. Cluster text cannot hold a mark (it cannot know the
 * key), so with colours on, an ESC from the cluster is still shown as `\u001b`, never obeyed; and a
 * mark can only select colours (SGR), never move the cursor or set a title.
 */
import { randomBytes } from 'node:crypto';
import { sanitizeText } from '../tools/light.ts';

type Write = NodeJS.WritableStream['write'];

/** The guard functions installed, so installing twice is a no-op. */
const guards = new WeakSet<Write>();
/** Each guarded stream's write before the guard. */
const originals = new WeakMap<NodeJS.WritableStream, Write>();

/** Per-process key of Sentinel's own colour marks (letters and digits: sanitizing leaves them). */
const MARK_KEY = `SGR${randomBytes(16).toString('hex')}`;
const MARKS = new RegExp(`${MARK_KEY}\\[([0-9;]{1,32})m`, 'g');

const sanitize = (text: string) =>
  sanitizeText(text, { multiline: true, style: 'json' }).replace(MARKS, '\u001b[$1m');

/** Whether `stream` has the guard installed. */
export function isGuarded(stream: NodeJS.WritableStream): boolean {
  return guards.has(stream.write);
}

/**
 * `sgr` (Select Graphic Rendition codes as `node:util` `styleText` writes them, `ESC[<n;…>m`, e.g.
 * `\u001b[31mtext\u001b[39m`) in the form that reaches `stream` as colour: marks when the stream is
 * guarded (the guard turns them back into the same codes), unchanged when it is not. Only SGR codes
 * are converted; anything else in `sgr` is left for the guard to escape.
 */
export function ownColours(stream: NodeJS.WritableStream, sgr: string): string {
  if (!isGuarded(stream)) return sgr;
  // eslint-disable-next-line no-control-regex -- converting SGR codes is the point
  return sgr.replace(/\u001b\[([0-9;]{1,32})m/g, `${MARK_KEY}[$1m`);
}

/**
 * Replaces `stream.write` by a guard that sanitizes every string chunk (and every byte chunk,
 * decoded as UTF-8) before the original write sees it. Idempotent.
 */
export function guardTerminalOutput(stream: NodeJS.WritableStream): void {
  if (guards.has(stream.write)) return;
  const write = stream.write;
  const guarded = function (this: unknown, chunk: unknown, ...rest: unknown[]): boolean {
    const [encoding] = rest;
    let safe: unknown = chunk;
    if (typeof chunk === 'string' && (typeof encoding !== 'string' || /^utf-?8$/i.test(encoding))) {
      safe = sanitize(chunk);
    } else if (chunk instanceof Uint8Array) {
      safe = sanitize(Buffer.from(chunk.buffer, chunk.byteOffset, chunk.byteLength).toString('utf8'));
      if (typeof encoding === 'string') rest[0] = 'utf8';
    }
    return (write as (...args: unknown[]) => boolean).call(stream, safe, ...rest);
  } as Write;
  guards.add(guarded);
  originals.set(stream, write);
  stream.write = guarded;
}

/**
 * A view of `stream` whose `write` bypasses the guard (everything else — `isTTY`, `columns`,
 * `cursorTo`, `clearLine` — is the stream's own). For the spinner's control codes only; `stream`
 * itself when it is not guarded.
 */
export function unguarded<T extends NodeJS.WritableStream>(stream: T): T {
  const write = originals.get(stream);
  if (!write || !guards.has(stream.write)) return stream;
  return Object.create(stream, {
    write: {
      value: (...args: unknown[]) => (write as (...a: unknown[]) => boolean).apply(stream, args),
      writable: true,
    },
  }) as T;
}
