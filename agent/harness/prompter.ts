/**
 * Asks the human at the terminal. Questions go to stderr so stdout stays the agent's answer.
 */
import { createInterface } from 'node:readline';

export interface ApprovalPrompter {
  /** Asks a y/N question: true for y/yes, false for anything else, undefined when input ended. */
  confirm(question: string): Promise<boolean | undefined>;
  /** Asks a free-text question; undefined when input ended, '' when the human just pressed Enter. */
  ask(question: string): Promise<string | undefined>;
  close(): void;
}

/**
 * A prompter reading answers line by line from `input` (stdin by default) with node:readline. Lines
 * are buffered by readline's async iterator, so answers piped in ahead of the questions are not
 * lost. End of input (Ctrl-D, a closed pipe) answers undefined.
 */
export function terminalPrompter(
  input: NodeJS.ReadableStream = process.stdin,
  output: NodeJS.WritableStream = process.stderr,
): ApprovalPrompter {
  let lines: AsyncIterator<string> | undefined;
  let close = () => {};
  const ask = async (question: string): Promise<string | undefined> => {
    if (!lines) {
      const rl = createInterface({ input, crlfDelay: Infinity, terminal: false });
      lines = rl[Symbol.asyncIterator]();
      close = () => rl.close();
    }
    output.write(question);
    const next = await lines.next();
    return next.done ? undefined : next.value;
  };
  return {
    ask,
    async confirm(question) {
      const answer = await ask(`${question} [y/N] `);
      return answer === undefined ? undefined : /^\s*y(es)?\s*$/i.test(answer);
    },
    close: () => close(),
  };
}
