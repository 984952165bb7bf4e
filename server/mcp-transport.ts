/**
 * Sentinel's MCP Streamable HTTP transport for `POST /mcp`: the SDK's stateless JSON-response mode
 * (`StreamableHTTPServerTransport` with `sessionIdGenerator: undefined, enableJsonResponse: true`)
 * served on Node's `req`/`res` directly (issue 17). The SDK's transport converts every Node request
 * and response to a Web `Request`/`Response` through @hono/node-server and tests each message
 * against several zod schemas on the way in and out; this one reads the three headers it needs,
 * validates each message once with the SDK's own `JSONRPCMessageSchema` and writes the JSON answer
 * itself. The SDK's `Server`/`Protocol` still dispatch, one server and one transport per request.
 *
 * It answers exactly as the SDK transport does (mirrored from
 * `@modelcontextprotocol/sdk/server/webStandardStreamableHttp.js`, `handlePostRequest` and `send`;
 * test/server/mcp-transport.test.ts sends the same requests to both and compares): 406 unless
 * Accept lists both `application/json` and `text/event-stream`; 415 unless Content-Type is
 * `application/json`; 400 -32700 for a body that is not JSON or not JSON-RPC; 400 -32600 for a batch
 * over 100 messages or an `initialize` inside a batch; 400 -32000 for an unsupported
 * `MCP-Protocol-Version`; 202 with no body when the POST carries only notifications or responses;
 * otherwise 200 with the response (one) or the responses in request order (a batch).
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Transport } from '@modelcontextprotocol/sdk/shared/transport.js';
import type { AuthInfo } from '@modelcontextprotocol/sdk/server/auth/types.js';
import {
  InitializeRequestSchema,
  JSONRPCMessageSchema,
  SUPPORTED_PROTOCOL_VERSIONS,
  type JSONRPCMessage,
  type MessageExtraInfo,
  type RequestId,
  type RequestInfo,
} from '@modelcontextprotocol/sdk/types.js';
import { isJsonContentType } from '@modelcontextprotocol/sdk/shared/mediaType.js';
import {
  MAX_BATCH_SIZE,
  requestBodyTooLargeMessage,
  resolveMaxRequestBodySize,
} from '@modelcontextprotocol/sdk/server/requestBody.js';

/** A transport `POST /mcp` can hand one request to: this module's, or the SDK's (the differential test). */
export interface HttpMcpTransport extends Transport {
  /** Answers one POST; `parsedBody` is the body already parsed (express.json), if it was. */
  handleRequest(
    req: IncomingMessage & { auth?: AuthInfo },
    res: ServerResponse,
    parsedBody?: unknown,
  ): Promise<void>;
}

export interface NodeMcpTransportOptions {
  /** Bytes; a body read by the transport itself beyond it is 413. Default: the SDK's (4 MiB). */
  maxRequestBodySize?: number;
}

/** The headers the transport reads, as Web `Headers.get` gives them: every copy, joined with ", ". */
interface ReadHeaders {
  accept: string | null;
  contentType: string | null;
  protocolVersion: string | null;
}

function readHeaders(req: IncomingMessage): ReadHeaders {
  const found: ReadHeaders = { accept: null, contentType: null, protocolVersion: null };
  const raw = req.rawHeaders;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i]!.toLowerCase();
    const key =
      name === 'accept'
        ? 'accept'
        : name === 'content-type'
          ? 'contentType'
          : name === 'mcp-protocol-version'
            ? 'protocolVersion'
            : undefined;
    if (key === undefined) continue;
    const value = raw[i + 1]!;
    found[key] = found[key] === null ? value : `${found[key]}, ${value}`;
  }
  return found;
}

/** What handlers see as `extra.requestInfo` (the SDK's shape), built only if a handler reads it. */
function requestInfoOf(req: IncomingMessage): RequestInfo {
  let headers: RequestInfo['headers'] | undefined;
  let url: URL | undefined;
  return {
    get headers() {
      if (!headers) {
        // Web Headers iterate sorted by name, copies joined with ", " (set-cookie: the last).
        const joined = new Map<string, string>();
        const raw = req.rawHeaders;
        for (let i = 0; i < raw.length; i += 2) {
          const name = raw[i]!.toLowerCase();
          const previous = joined.get(name);
          joined.set(
            name,
            previous === undefined || name === 'set-cookie' ? raw[i + 1]! : `${previous}, ${raw[i + 1]!}`,
          );
        }
        headers = Object.fromEntries([...joined].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
      }
      return headers;
    },
    get url() {
      const encrypted = (req.socket as { encrypted?: boolean }).encrypted === true;
      url ??= new URL(
        `${encrypted ? 'https' : 'http'}://${req.headers.host ?? 'localhost'}${req.url ?? '/'}`,
      );
      return url;
    },
  };
}

/** The body of a request nothing has read yet, as text; `undefined` when it exceeds `maxBytes`. */
async function readBody(req: IncomingMessage, maxBytes: number): Promise<string | undefined> {
  if (Number(req.headers['content-length']) > maxBytes) return undefined;
  const chunks: Buffer[] = [];
  let received = 0;
  for await (const chunk of req as AsyncIterable<Buffer>) {
    received += chunk.byteLength;
    if (received > maxBytes) return undefined;
    chunks.push(chunk);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/** Status and JSON body; set (not `writeHead`) so that Node adds Content-Length. */
function writeJson(res: ServerResponse, status: number, body: string): void {
  res.statusCode = status;
  res.setHeader('Content-Type', 'application/json');
  res.end(body);
}

// Messages here passed JSONRPCMessageSchema, whose four members are strict objects told apart by
// their keys; these tests give the same answers as the SDK's zod `isJSONRPC*` on such messages.
const isRequest = (message: JSONRPCMessage): message is JSONRPCMessage & { id: RequestId; method: string } =>
  'method' in message && 'id' in message;
const isResponse = (message: JSONRPCMessage): message is JSONRPCMessage & { id: RequestId } =>
  ('result' in message || 'error' in message) && (message as { id?: unknown }).id !== undefined;
const isInitialize = (message: JSONRPCMessage): boolean =>
  (message as { method?: unknown }).method === 'initialize' &&
  InitializeRequestSchema.safeParse(message).success;

/**
 * One stateless MCP exchange on Node's `req`/`res`: create one per request, `connect` a `Server` to
 * it, then `handleRequest`. Reusing it for a second request throws (as the SDK's does). Closing it
 * (`close`) before the answer is written aborts the handlers still running (the `Protocol` aborts
 * their signals); after the answer nothing is left to release.
 */
export class NodeMcpTransport implements HttpMcpTransport {
  onclose?: () => void;
  onerror?: (error: Error) => void;
  onmessage?: (message: JSONRPCMessage, extra?: MessageExtraInfo) => void;
  /** Stateless: never a session. */
  readonly sessionId = undefined;

  readonly #maxRequestBodySize: number;
  #started = false;
  #handled = false;
  #closed = false;
  /** Ids of the requests of this POST, in order, and the responses received so far. */
  readonly #pending = new Map<RequestId, JSONRPCMessage | undefined>();
  #answer: ((body: string) => void) | undefined;

  constructor(options: NodeMcpTransportOptions = {}) {
    this.#maxRequestBodySize = resolveMaxRequestBodySize(options.maxRequestBodySize);
  }

  async start(): Promise<void> {
    if (this.#started) throw new Error('Transport already started');
    this.#started = true;
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.#pending.clear();
    this.#answer = undefined;
    this.onclose?.();
  }

  /** Like the SDK's: a refusal is reported to `onerror`, then answered as a JSON-RPC error with id null. */
  #refuse(res: ServerResponse, status: number, code: number, message: string): void {
    this.onerror?.(new Error(message));
    writeJson(res, status, JSON.stringify({ jsonrpc: '2.0', error: { code, message }, id: null }));
  }

  async handleRequest(
    req: IncomingMessage & { auth?: AuthInfo },
    res: ServerResponse,
    parsedBody?: unknown,
  ): Promise<void> {
    if (this.#closed) {
      this.#refuse(res, 404, -32001, 'Session not found');
      return;
    }
    if (this.#handled) {
      throw new Error(
        'Stateless transport cannot be reused across requests. Create a new transport per request.',
      );
    }
    this.#handled = true;
    const headers = readHeaders(req);
    if (!headers.accept?.includes('application/json') || !headers.accept.includes('text/event-stream')) {
      this.#refuse(
        res,
        406,
        -32000,
        'Not Acceptable: Client must accept both application/json and text/event-stream',
      );
      return;
    }
    if (!isJsonContentType(headers.contentType)) {
      this.#refuse(res, 415, -32000, 'Unsupported Media Type: Content-Type must be application/json');
      return;
    }
    let raw: unknown = parsedBody;
    if (raw === undefined) {
      let text: string | undefined;
      try {
        text = await readBody(req, this.#maxRequestBodySize);
        if (text !== undefined) raw = JSON.parse(text);
      } catch {
        this.#refuse(res, 400, -32700, 'Parse error: Invalid JSON');
        return;
      }
      if (text === undefined) {
        this.#refuse(res, 413, -32000, requestBodyTooLargeMessage(this.#maxRequestBodySize));
        return;
      }
    }
    if (Array.isArray(raw) && raw.length > MAX_BATCH_SIZE) {
      this.#refuse(res, 400, -32600, `Invalid Request: Batch must not exceed ${MAX_BATCH_SIZE} messages`);
      return;
    }
    let messages: JSONRPCMessage[];
    try {
      messages = Array.isArray(raw)
        ? raw.map((message) => JSONRPCMessageSchema.parse(message))
        : [JSONRPCMessageSchema.parse(raw)];
    } catch {
      this.#refuse(res, 400, -32700, 'Parse error: Invalid JSON-RPC message');
      return;
    }
    if (this.#closed) {
      this.#refuse(res, 404, -32001, 'Session not found');
      return;
    }
    const initializing = messages.some(isInitialize);
    if (initializing && messages.length > 1) {
      this.#refuse(res, 400, -32600, 'Invalid Request: Only one initialization request is allowed');
      return;
    }
    if (!initializing && headers.protocolVersion !== null) {
      const version = headers.protocolVersion;
      if (!SUPPORTED_PROTOCOL_VERSIONS.includes(version)) {
        const supported = SUPPORTED_PROTOCOL_VERSIONS.join(', ');
        this.#refuse(
          res,
          400,
          -32000,
          `Bad Request: Unsupported protocol version: ${version} (supported versions: ${supported})`,
        );
        return;
      }
    }
    const extra: MessageExtraInfo = {
      requestInfo: requestInfoOf(req),
      ...(req.auth !== undefined && { authInfo: req.auth }),
    };
    if (!messages.some(isRequest)) {
      for (const message of messages) this.onmessage?.(message, extra);
      res.statusCode = 202;
      res.end();
      return;
    }
    await new Promise<void>((resolve) => {
      this.#answer = (body) => {
        writeJson(res, 200, body);
        resolve();
      };
      // Answered when every request has its response; a client gone before that closes us.
      res.once('close', resolve);
      for (const message of messages) if (isRequest(message)) this.#pending.set(message.id, undefined);
      for (const message of messages) this.onmessage?.(message, extra);
    });
  }

  /**
   * Takes the `Protocol`'s outgoing messages. Responses are collected until every request of the POST
   * has one, then written as one JSON body. In JSON-response mode there is no stream, so requests and
   * notifications to the client are dropped, as the SDK's transport drops them.
   */
  async send(message: JSONRPCMessage): Promise<void> {
    if (!isResponse(message)) return;
    const { id } = message;
    if (!this.#pending.has(id) || !this.#answer) {
      throw new Error(`No connection established for request ID: ${String(id)}`);
    }
    this.#pending.set(id, message);
    for (const response of this.#pending.values()) if (response === undefined) return;
    const responses = [...this.#pending.values()];
    const answer = this.#answer;
    this.#pending.clear();
    this.#answer = undefined;
    answer(JSON.stringify(responses.length === 1 ? responses[0] : responses));
  }
}
