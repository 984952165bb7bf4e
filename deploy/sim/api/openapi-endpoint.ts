/**
 * Serves the OpenAPI documents (`openapi.ts`) with the API server's caching and content negotiation:
 * JSON only (a protobuf-only `Accept`, kubectl's for v2, gets 406 Not Acceptable); a v3 group version
 * requested with its current `hash` is `Cache-Control: public, immutable`.
 */
import type { IncomingMessage, ServerResponse } from 'node:http';
import type { Route } from './routes.ts';
import { isCurrentHash, openApiV2, openApiV3, openApiV3Root } from './openapi.ts';
import { ApiError, pathNotFound } from './status.ts';

let v2Text: string | undefined;
const v3Texts = new Map<string, string>();

/** Whether `accept` admits a JSON answer (absent, `*\/*`, `application/*` or `application/json`). */
function acceptsJson(accept: string | undefined): boolean {
  if (!accept) return true;
  return accept.split(',').some((part) => {
    const media = part.split(';')[0]!.trim().toLowerCase();
    return media === '*/*' || media === 'application/*' || media === 'application/json';
  });
}

/**
 * Answers an `openapi` route. @throws ApiError 404 for an unknown group version, 406 when the client
 * accepts only protobuf.
 */
export function serveOpenApi(
  request: IncomingMessage,
  response: ServerResponse,
  route: Extract<Route, { kind: 'openapi' }>,
  params: URLSearchParams,
): void {
  if (!acceptsJson(request.headers.accept)) {
    throw new ApiError(
      406,
      'NotAcceptable',
      `only the following media types are accepted: application/json (the simulator does not serve protobuf)`,
    );
  }
  let text: string;
  let cache = 'no-cache, private';
  if (route.version === 'v2') text = v2Text ??= JSON.stringify(openApiV2());
  else if (route.document === '') text = JSON.stringify(openApiV3Root());
  else {
    const cached = v3Texts.get(route.document);
    if (cached) text = cached;
    else {
      const document = openApiV3(route.document);
      if (!document) throw pathNotFound();
      text = JSON.stringify(document);
      v3Texts.set(route.document, text);
    }
    if (isCurrentHash(route.document, params.get('hash'))) cache = 'public, immutable';
  }
  response.writeHead(200, {
    'Content-Type': 'application/json',
    'Content-Length': Buffer.byteLength(text),
    'Cache-Control': cache,
  });
  response.end(text);
}
