/**
 * `sentinel audit export | head`: once the reader of stdout (or stderr) goes away, writes fail with
 * EPIPE. Nothing more can be said to anyone, so the CLI ends quietly with status 0 — as `cat` or
 * `git log` piped into `head` do from the user's point of view — instead of an unhandled 'error'
 * event and a stack trace.
 */

/**
 * Makes an EPIPE on `stream` end the process quietly (`exit(0)`); any other error of the stream is
 * rethrown as before. Call once per stream, at start-up (bin/sentinel.js).
 */
export function exitQuietlyOnBrokenPipe(
  stream: NodeJS.WritableStream,
  exit: (code: number) => void = (code) => process.exit(code),
): void {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code === 'EPIPE') {
      exit(0);
      return;
    }
    throw error;
  });
}
