/**
 * Asks the human at the terminal. Questions go to stderr so stdout stays the agent's answer.
 */
import { createInterface } from 'node:readline';
import { sanitizeText } from '../../tools/light.ts';

/** y/yes → true, n/no or nothing (the default) → false, in any case; undefined for anything else. */
function yesOrNo(answer: string): boolean | undefined {
  const word = answer.trim().toLowerCase();
  if (word === 'y' || word === 'yes') return true;
  if (word === '' || word === 'n' || word === 'no') return false;
  return undefined;
}

export interface ApprovalPrompter {
  /**
   * Asks a y/N question: true for y/yes, false for n/no or a bare Enter (any case); anything else
   * ("maybe", "ye") asks again. Undefined when input ended (said on the output: taken as no) or
   * `signal` withdrew the question (decided elsewhere).
   */
  confirm(question: string, options?: PromptOptions): Promise<boolean | undefined>;
  /** Asks a free-text question; undefined when input ended or was withdrawn, '' for a bare Enter. */
  ask(question: string, options?: PromptOptions): Promise<string | undefined>;
  close(): void;
  /**
   * Writes the question still waiting for an answer once more (after other lines pushed it out of
   * sight, e.g. the server lost and back); nothing when none waits.
   */
  repeat?(): void;
}

export interface PromptOptions {
  /**
   * Withdraws the question: it answers undefined at once, and a line typed after that (before the
   * next question is shown) is discarded, never taken as the answer to another question.
   */
  signal?: AbortSignal;
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
  /** A read of a withdrawn question still in flight: the line it gets was typed too late. */
  let stale: Promise<IteratorResult<string>> | undefined;
  /** The question shown and not yet answered or withdrawn. */
  let waiting: string | undefined;
  const read = (): Promise<IteratorResult<string>> => {
    if (!lines) {
      const rl = createInterface({ input, crlfDelay: Infinity, terminal: false });
      lines = rl[Symbol.asyncIterator]();
      close = () => rl.close();
    }
    return lines.next();
  };
  const ask = async (question: string, options: PromptOptions = {}): Promise<string | undefined> => {
    if (options.signal?.aborted) return undefined;
    if (stale) await Promise.race([stale, Promise.resolve()]); // settle a late line already typed
    output.write(question);
    const pending = stale ?? read();
    stale = undefined;
    const withdrawn = new Promise<'withdrawn'>((resolveWithdrawn) =>
      options.signal?.addEventListener('abort', () => resolveWithdrawn('withdrawn'), { once: true }),
    );
    waiting = question;
    const next = await Promise.race([pending, withdrawn]).finally(() => (waiting = undefined));
    if (next === 'withdrawn') {
      output.write('\n');
      // Whatever line the engineer types next answers nothing: drop it when it comes.
      const late = pending.then((result) => {
        if (stale === late) stale = undefined;
        return result;
      });
      stale = late;
      return undefined;
    }
    return next.done ? undefined : next.value;
  };
  return {
    ask,
    async confirm(question, options) {
      for (;;) {
        const answer = await ask(`${question} [y/N] `, options);
        if (answer === undefined) {
          // End of input is no answer: nothing is approved, and the reader is told why.
          if (!options?.signal?.aborted) output.write('\nNo answer (input ended): taken as no.\n');
          return undefined;
        }
        const yes = yesOrNo(answer);
        if (yes !== undefined) return yes;
        output.write(`Answer y or n (Enter for n); '${sanitizeText(answer.trim())}' is neither.\n`);
      }
    },
    close: () => close(),
    repeat: () => {
      if (waiting !== undefined) output.write(waiting);
    },
  };
}
