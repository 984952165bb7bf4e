/**
 * The CLI's last-line guard (agent/terminal-guard.ts): whatever a command writes to stdout or
 * stderr, no ESC, BEL, C1, bidi or invisible character reaches the terminal; JSON output stays JSON
 * with the same value; the spinner's own control codes pass through `unguarded`.
 */
import fc from 'fast-check';
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { guardTerminalOutput, unguarded } from '../../agent/terminal-guard.ts';
import { runCli } from '../helpers/cli.ts';
import { CLEAR_PAYLOAD, IMAGE_PAYLOAD, expectClean } from '../helpers/escapes.ts';
import { hostileText } from '../helpers/poison.ts';

/** Runs of each property. */
const NUM_RUNS = 300;

function sink(): Writable & { text: () => string } {
  let text = '';
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString('utf8');
      done();
    },
  });
  return Object.assign(stream, { text: () => text });
}

describe('terminal guard', () => {
  it(`lets no control, bidi or invisible character through, whatever is written (${NUM_RUNS} runs)`, () => {
    fc.assert(
      fc.property(fc.array(fc.tuple(hostileText(30), fc.boolean()), { maxLength: 8 }), (writes) => {
        const out = sink();
        guardTerminalOutput(out);
        for (const [text, asBytes] of writes) out.write(asBytes ? Buffer.from(text, 'utf8') : text);
        expectClean(out.text(), 'guarded output');
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it(`keeps JSON output valid JSON with the same value (${NUM_RUNS} runs)`, () => {
    fc.assert(
      fc.property(fc.dictionary(hostileText(6), hostileText(30)), (value) => {
        const out = sink();
        guardTerminalOutput(out);
        out.write(`${JSON.stringify(value, null, 2)}\n`);
        expectClean(out.text(), 'guarded JSON');
        expect(JSON.parse(out.text())).toEqual(JSON.parse(JSON.stringify(value)));
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it('shows what was hidden, keeps newlines and tabs, and is installed once', () => {
    const out = sink();
    guardTerminalOutput(out);
    guardTerminalOutput(out);
    out.write(`image ${IMAGE_PAYLOAD}\n\tnext ${CLEAR_PAYLOAD}\u202e\n`);
    expect(out.text()).toBe(
      'image checkout:2.4.0\\u001b]0;pwned\\u0007\\u001b[8m\n\tnext \\u001b[2J\\u202e\n',
    );
  });

  it('lets the spinner write its own control codes through unguarded(stream) only', () => {
    const out = sink();
    guardTerminalOutput(out);
    unguarded(out).write('\u001b[?25l');
    out.write('\u001b[?25h');
    expect(out.text()).toBe('\u001b[?25l\\u001b[?25h');
    const plain = sink();
    expect(unguarded(plain)).toBe(plain);
  });

  it('is on for every sentinel command: an error echoing a hostile argument reaches stderr escaped', async () => {
    const { code, stderr } = await runCli([
      'demo',
      '--scenario',
      `x${CLEAR_PAYLOAD}${IMAGE_PAYLOAD}`,
      '--yes',
    ]);
    expect(code).toBe(2);
    expectClean(stderr, 'stderr');
    expect(stderr).toContain('x\\u001b[2J');
  });
});
