import { describe, expect, it } from 'vitest';
import { PassThrough } from 'node:stream';
import { terminalPrompter } from '../../../agent/harness/prompter.ts';

/** A prompter reading `typed` (one answer a line), and what it wrote. */
function prompterFor(typed: string, end = true) {
  const input = new PassThrough();
  if (end) input.end(typed);
  else input.write(typed);
  let written = '';
  const output = new PassThrough();
  output.on('data', (chunk: Buffer) => (written += chunk.toString()));
  const prompter = terminalPrompter(input, output);
  return { prompter, input, written: () => written };
}

describe('terminalPrompter confirm (y/N)', () => {
  it('takes y, yes, n, no in any case, and a bare Enter as the default No', async () => {
    const { prompter } = prompterFor('Y\nyes\n n \nNO\n\n');
    const answers = [];
    for (let i = 0; i < 5; i++) answers.push(await prompter.confirm('Allow?'));
    expect(answers).toEqual([true, true, false, false, false]);
    prompter.close();
  });

  it('asks again after an unclear answer ("maybe", "ye"), never taking it as No silently', async () => {
    const { prompter, written } = prompterFor('maybe\nye\ny\n');
    expect(await prompter.confirm('Allow?')).toBe(true);
    expect(written()).toBe(
      "Allow? [y/N] Answer y or n (Enter for n); 'maybe' is neither.\nAllow? [y/N] " +
        "Answer y or n (Enter for n); 'ye' is neither.\nAllow? [y/N] ",
    );
    prompter.close();
  });

  it('shows an unclear answer with its control characters escaped, never raw', async () => {
    const { prompter, written } = prompterFor('\u001b[2Jx\nn\n');
    expect(await prompter.confirm('Allow?')).toBe(false);
    expect(written()).toContain("'\\x1b[2Jx' is neither");
    expect(written()).not.toContain('\u001b');
    prompter.close();
  });

  it('at end of input answers undefined and says it was taken as no', async () => {
    const { prompter, written } = prompterFor('maybe\n');
    expect(await prompter.confirm('Allow?')).toBeUndefined();
    expect(written()).toMatch(/Allow\? \[y\/N\] \nNo answer \(input ended\): taken as no\.\n$/);
    prompter.close();
  });
});
