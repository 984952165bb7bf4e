/**
 * The MCP stdio transport `sentinel serve --stdio` uses: the SDK's line framing (`ReadBuffer`,
 * `serializeMessage`) with two things its `StdioServerTransport` lacks.
 * - A line that is not JSON is answered with JSON-RPC 2.0's parse error (-32700, id null), one that
 *   is JSON but no JSON-RPC message with invalid request (-32600, id null: the spec's rule when the
 *   id cannot be detected), and logged; serving goes on (JSON-RPC 2.0 §5.1). The SDK only calls `onerror`: no answer at all.
 * - It knows which requests still await their response, so the end of stdin can drain them
 *   (`drained`) — answer them on stdout — before the server closes (`printf '…' | sentinel serve
 *   --stdio` gets its answer).
 */
import process from 'node:process';
import type { Readable, Writable } from 'node:stream';
import type { Logger } from 'pino';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import { ReadBuffer, serializeMessage } from '@modelcontextprotocol/sdk/shared/stdio.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';

/** JSON-RPC 2.0 error codes (§5.1). */
const PARSE_ERROR = -32700;
const INVALID_REQUEST = -32600;

type Id = string | number;

/** A message's id when it is a request (has `method` and `id`), else undefined. */
const requestId = (message: JSONRPCMessage): Id | undefined =>
  'method' in message && 'id' in message ? message.id : undefined;

/** A response's id (has `id` and `result` or `error`), else undefined. */
const responseId = (message: JSONRPCMessage): Id | undefined =>
  'id' in message && ('result' in message || 'error' in message) && !('method' in message)
    ? (message.id as Id)
    : undefined;

/** See the module comment. `input`/`output` default to this process's stdin/stdout. */
export class AnsweringStdioTransport implements Transport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage) => void;
  /** Requests read and not yet answered, by id (a count: a client may reuse an id). */
  readonly #open = new Map<Id, number>();
  #waiters: (() => void)[] = [];
  /** The SDK's framing: one JSON-RPC message per line, at most 10 MB buffered. */
  readonly #buffer = new ReadBuffer();
  #closed = false;

  private readonly logger: Logger;
  private readonly input: Readable;
  private readonly output: Writable;

  constructor(logger: Logger, input: Readable = process.stdin, output: Writable = process.stdout) {
    this.logger = logger;
    this.input = input;
    this.output = output;
  }

  readonly #onData = (chunk: Buffer) => {
    try {
      this.#buffer.append(chunk);
    } catch (error) {
      // Longer than the SDK's limit (10 MB, the buffer is cleared): answered, and serving goes on.
      this.logger.warn(
        { err: { message: (error as Error).message } },
        'stdio: a line over the size limit was dropped',
      );
      void this.#answerError(null, INVALID_REQUEST, `Invalid Request: ${(error as Error).message}`);
      return;
    }
    for (;;) {
      let message: JSONRPCMessage | null;
      try {
        message = this.#buffer.readMessage();
      } catch (error) {
        // The line is consumed: JSON.parse failed (SyntaxError) or the JSON-RPC schema did (zod).
        const notJson = error instanceof SyntaxError;
        this.logger.warn(
          { err: { message: (error as Error).message.slice(0, 300) } },
          notJson
            ? 'stdio: a line is not JSON (parse error answered)'
            : 'stdio: a line is not a JSON-RPC 2.0 message (invalid request answered)',
        );
        void (notJson
          ? this.#answerError(null, PARSE_ERROR, 'Parse error: the line is not JSON')
          : this.#answerError(null, INVALID_REQUEST, 'Invalid Request: not a JSON-RPC 2.0 message'));
        continue;
      }
      if (message === null) break;
      const id = requestId(message);
      if (id !== undefined) this.#open.set(id, (this.#open.get(id) ?? 0) + 1);
      this.onmessage?.(message);
    }
  };

  readonly #onError = (error: Error) => this.onerror?.(error);

  #answerError(id: Id | null, code: number, message: string): Promise<void> {
    return this.#write(`${JSON.stringify({ jsonrpc: '2.0', id, error: { code, message } })}\n`);
  }

  #write(text: string): Promise<void> {
    return new Promise((resolveWrite) => {
      if (this.output.write(text)) resolveWrite();
      else this.output.once('drain', resolveWrite);
    });
  }

  async start(): Promise<void> {
    this.input.on('data', this.#onData);
    this.input.on('error', this.#onError);
  }

  async send(message: JSONRPCMessage): Promise<void> {
    await this.#write(serializeMessage(message));
    const id = responseId(message);
    const count = id === undefined ? undefined : this.#open.get(id);
    if (id === undefined || count === undefined) return;
    if (count > 1) this.#open.set(id, count - 1);
    else this.#open.delete(id);
    if (this.#open.size === 0) for (const wake of this.#waiters.splice(0)) wake();
  }

  /** Requests read and not answered yet. */
  get unanswered(): number {
    return this.#open.size;
  }

  /**
   * Resolves `true` once every request read has been answered, or `false` after `timeoutMs`
   * milliseconds with some still unanswered.
   */
  drained(timeoutMs: number): Promise<boolean> {
    if (this.#open.size === 0) return Promise.resolve(true);
    return new Promise((resolveDrained) => {
      const timer = setTimeout(() => resolveDrained(false), timeoutMs);
      this.#waiters.push(() => {
        clearTimeout(timer);
        resolveDrained(true);
      });
    });
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.input.off('data', this.#onData);
    this.input.off('error', this.#onError);
    if (this.input.listenerCount('data') === 0) this.input.pause();
    this.#buffer.clear();
    this.onclose?.();
  }
}
