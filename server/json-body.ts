/**
 * The JSON body parser of `POST /mcp`: `express.json` (body-parser 2) with a fast path for what MCP
 * clients send on every call (issue 17) — `Content-Type: application/json` exactly, a
 * `Content-Length` within the limit, no `Content-Encoding` or `Transfer-Encoding`. That path reads
 * the body and parses it as body-parser does (UTF-8 with a leading BOM dropped; an empty body is
 * `{}`; strict: the first non-whitespace character must be `{` or `[`; failures are errors of type
 * `entity.parse.failed`, status 400, for the app's error handler) without its per-request machinery
 * (type-is, content-type parsing, iconv, raw-body, on-finished). Every other request — charsets,
 * compressed or chunked bodies, bodies over the limit — goes to `express.json` itself.
 * test/server/json-body.test.ts sends the same requests through both and compares.
 */
import express, { type RequestHandler } from 'express';

export interface JsonBodyOptions {
  /** Bytes; the `limit` given to `express.json` (a body over it is 413 `entity.too.large`). */
  limit: number;
}

/** An error the app's error handler reads like body-parser's (`status`, `type`). */
function bodyError(status: number, type: string, message: string): Error {
  return Object.assign(new Error(message), { status, statusCode: status, type, expose: true });
}

// body-parser's FIRST_NON_WHITESPACE_REGEXP (JSON whitespace).
const FIRST_NON_WHITESPACE = /^[ \t\n\r]*([^ \t\n\r])/;

/** body-parser's strict JSON parse of a decoded body; throws its `entity.parse.failed` error. */
function parseStrict(text: string): unknown {
  if (text.length === 0) return {};
  if (text[0] !== '{' && text[0] !== '[') {
    const first = FIRST_NON_WHITESPACE.exec(text)?.[1];
    if (first !== '{' && first !== '[') {
      throw bodyError(400, 'entity.parse.failed', `Unexpected token in JSON: ${JSON.stringify(first ?? '')}`);
    }
  }
  try {
    return JSON.parse(text);
  } catch (error) {
    throw bodyError(400, 'entity.parse.failed', (error as Error).message);
  }
}

/** `express.json({ limit })` with the fast path described above. */
export function jsonBody(options: JsonBodyOptions): RequestHandler {
  const general = express.json({ limit: options.limit });
  return (req, res, next) => {
    const { headers } = req;
    const length = headers['content-length'];
    const fast =
      headers['content-type'] === 'application/json' &&
      headers['content-encoding'] === undefined &&
      headers['transfer-encoding'] === undefined &&
      length !== undefined &&
      /^\d{1,9}$/.test(length) &&
      Number(length) <= options.limit &&
      req.readable &&
      req.body === undefined;
    if (!fast) {
      general(req, res, next);
      return;
    }
    const chunks: Buffer[] = [];
    let settled = false;
    const settle = (error?: Error) => {
      if (settled) return;
      settled = true;
      req.off('data', onData);
      req.off('end', onEnd);
      req.off('error', onFailure);
      req.off('aborted', onAborted);
      req.off('close', onClose);
      if (error) {
        next(error);
        return;
      }
      let text = Buffer.concat(chunks).toString('utf8');
      if (text.charCodeAt(0) === 0xfeff) text = text.slice(1); // iconv-lite strips the BOM
      try {
        req.body = parseStrict(text);
      } catch (failure) {
        next(failure);
        return;
      }
      next();
    };
    const onData = (chunk: Buffer) => chunks.push(chunk);
    const onEnd = () => settle();
    const onFailure = (error: Error) => settle(Object.assign(error, { status: 400, type: 'request.error' }));
    const onAborted = () => settle(bodyError(400, 'request.aborted', 'request aborted'));
    // A client gone mid-body may end the request with neither 'aborted' nor 'error'.
    const onClose = () => {
      if (!req.complete) onAborted();
    };
    req.on('data', onData);
    req.on('end', onEnd);
    req.on('error', onFailure);
    req.on('aborted', onAborted);
    req.on('close', onClose);
  };
}
