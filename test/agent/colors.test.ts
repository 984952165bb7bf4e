/* eslint-disable no-control-regex -- matching terminal escape codes is the point */
/**
 * Sentinel's colours (agent/colors.ts): on a terminal, off a pipe, NO_COLOR / FORCE_COLOR /
 * --no-color; and with colours on, only Sentinel's own styling reaches the terminal as escape codes
 * — cluster text with ESC in it still cannot colour, hide or move anything.
 */
import fc from 'fast-check';
import { Writable } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { colorsEnabled, disableColors, palette, resetColors } from '../../agent/colors.ts';
import { guardTerminalOutput } from '../../agent/terminal-guard.ts';
import { CLEAR_PAYLOAD, IMAGE_PAYLOAD } from '../helpers/escapes.ts';
import { hostileText } from '../helpers/poison.ts';

function sink(isTTY: boolean): Writable & { text: () => string; isTTY: boolean } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return Object.assign(stream, { text: () => text, isTTY });
}

/** Every ESC in `text` starts an SGR colour code (`ESC[<digits;>m`): nothing else is obeyed. */
const onlyColourCodes = (text: string) => text.replace(/\u001b\[[0-9;]*m/g, '');

const tty = { isTTY: true };
const pipe = { isTTY: false };

describe('colorsEnabled', () => {
  afterEach(() => resetColors());

  it('is on at a terminal, off on a pipe or a dumb terminal', () => {
    expect(colorsEnabled(tty, {})).toBe(true);
    expect(colorsEnabled(pipe, {})).toBe(false);
    expect(colorsEnabled(tty, { TERM: 'dumb' })).toBe(false);
  });

  it('NO_COLOR with any non-empty value turns it off; an empty NO_COLOR does not', () => {
    expect(colorsEnabled(tty, { NO_COLOR: '1' })).toBe(false);
    expect(colorsEnabled(tty, { NO_COLOR: 'yes please' })).toBe(false);
    expect(colorsEnabled(tty, { NO_COLOR: '' })).toBe(true);
  });

  it('FORCE_COLOR turns it on off a terminal; FORCE_COLOR=0 (or false) turns it off', () => {
    expect(colorsEnabled(pipe, { FORCE_COLOR: '1' })).toBe(true);
    expect(colorsEnabled(pipe, { FORCE_COLOR: '3' })).toBe(true);
    expect(colorsEnabled(tty, { FORCE_COLOR: '0' })).toBe(false);
    expect(colorsEnabled(tty, { FORCE_COLOR: 'false' })).toBe(false);
    expect(colorsEnabled(pipe, { FORCE_COLOR: '' })).toBe(false);
  });

  it('--no-color wins over everything', () => {
    disableColors();
    expect(colorsEnabled(tty, {})).toBe(false);
    expect(colorsEnabled(pipe, { FORCE_COLOR: '1' })).toBe(false);
  });
});

describe('palette', () => {
  it('paints on a terminal and leaves the text alone off it (no symbols either)', () => {
    expect(palette(sink(true), {}).status('denied')).toBe('\u001b[31mdenied\u001b[39m');
    expect(palette(sink(true), {}).ok('Resolved')).toBe('\u001b[32m✔ Resolved\u001b[39m');
    const plain = palette(sink(false), {});
    expect([plain.status('denied'), plain.ok('Resolved'), plain.bad('x'), plain.warn('w')]).toEqual([
      'denied',
      'Resolved',
      'x',
      'w',
    ]);
  });

  it('on a guarded terminal, Sentinel’s colours pass and a hostile ESC in the painted text shows', () => {
    const out = sink(true);
    guardTerminalOutput(out);
    const p = palette(out, {});
    out.write(`${p.paint('red', `image ${IMAGE_PAYLOAD}`)} ${p.status('pending')}\n`);
    expect(out.text()).toBe(
      '\u001b[31mimage checkout:2.4.0\\u001b]0;pwned\\u0007\\u001b[8m\u001b[39m \u001b[33mpending\u001b[39m\n',
    );
  });

  it(`with colours on, cluster text next to the colours cannot colour or move the cursor (300 runs)`, () => {
    fc.assert(
      fc.property(fc.array(hostileText(30), { maxLength: 6 }), (parts) => {
        const out = sink(true);
        guardTerminalOutput(out);
        const p = palette(out, {});
        // Painted and unpainted cluster text, and the raw codes a hostile string could carry.
        out.write(
          parts
            .map((part, i) => (i % 2 ? p.status('denied', part) : `${part}\u001b[31m${CLEAR_PAYLOAD}`))
            .join(' '),
        );
        const text = out.text();
        expect(onlyColourCodes(text)).not.toMatch(/\u001b/);
        // Each colour code present is one Sentinel wrote: red for `denied`, and its reset.
        for (const code of text.match(/\u001b\[[0-9;]*m/g) ?? [])
          expect(['\u001b[31m', '\u001b[39m']).toContain(code);
        expect(text.match(/\u001b\[31m/g)?.length ?? 0).toBe(Math.floor(parts.length / 2));
      }),
      { numRuns: 300 },
    );
  });

  it('a guarded stream that is not a terminal gets plain text, as before', () => {
    const out = sink(false);
    guardTerminalOutput(out);
    out.write(`${palette(out, {}).status('executed')} \u001b[32mfake\n`);
    expect(out.text()).toBe('executed \\u001b[32mfake\n');
  });
});
