/**
 * `sentinel audit export | head`: once the reader of stdout (or stderr) goes away, writes fail with
 * EPIPE. Nothing more can be said to anyone. A command that only prints (an export, a list) then ends
 * quietly with status 0 — as `git log | head` does from the user's point of view — instead of an
 * unhandled 'error' event and a stack trace. A command with an outcome (`investigate`) registers
 * `whenOutputCloses`: it stops at its next safe point (never in the middle of an execution), leaves
 * its work resumable and exits 141 (128 + SIGPIPE), so a closed pipe never reads as "resolved".
 */

/** Exit status of a command stopped by a closed output: 128 + SIGPIPE (13), as a shell reports it. */
export const OUTPUT_CLOSED_EXIT_CODE = 141;

let closedHandler: (() => void) | undefined;
let closed = false;

/**
 * While registered, an EPIPE on stdout/stderr calls `handler` (once) instead of ending the process:
 * the command stops at a safe point and sets its own exit status. Returns the unregister function.
 */
export function whenOutputCloses(handler: () => void): () => void {
  let called = false;
  const once = () => {
    if (called) return;
    called = true;
    handler();
  };
  closedHandler = once;
  return () => {
    if (closedHandler === once) closedHandler = undefined;
  };
}

/** Whether stdout or stderr has failed with EPIPE in this process (further writes are lost). */
export function outputClosed(): boolean {
  return closed;
}

/**
 * Makes an EPIPE on `stream` end the process quietly (`exit(0)`, or the exit code already set), or, while a `whenOutputCloses`
 * handler is registered, call that handler once instead; any other error of the stream is rethrown.
 * Call once per stream, at start-up (bin/sentinel.js).
 */
export function exitQuietlyOnBrokenPipe(
  stream: NodeJS.WritableStream,
  exit: (code: number) => void = (code) => process.exit(code),
): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE' || (closed && error.code === 'ERR_STREAM_DESTROYED')) {
      closed = true;
      if (closedHandler) {
        closedHandler();
        return;
      }
      // A command that already knows its outcome (exit 1: unresolved) keeps it.
      exit(typeof process.exitCode === 'number' ? process.exitCode : 0);
      return;
    }
    throw error;
  });
}
