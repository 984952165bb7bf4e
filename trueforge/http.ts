/**
 * The HTTP layer under the TrueForge client: base URL and bearer token, JSON bodies validated with
 * zod, every non-2xx answer turned into a `SentinelError` quoting the harness, and timeouts — a
 * deadline for JSON calls and an idle limit (longest silence between events) for event streams.
 */
import type { z } from 'zod';
import { SentinelError } from '../core/index.ts';
import {
  firstIssue,
  harnessHttpError,
  harnessTransportError,
  parseJsonOrUndefined,
  type StatusHints,
} from './errors.ts';

export interface HarnessConnectionOptions {
  /** Harness base URL, e.g. `http://127.0.0.1:8000`; a trailing `/api/v1` is accepted. */
  url: string;
  /** Bearer token (SENTINEL_HARNESS_TOKEN); a local harness needs none. */
  token?: string | undefined;
  /** Deadline for a JSON request, in milliseconds. Default 30 000. */
  timeoutMs?: number | undefined;
  /** Longest silence tolerated on an event stream, in milliseconds. Default 300 000 (a model can think long). */
  streamIdleTimeoutMs?: number | undefined;
  /** fetch implementation; defaults to the global one. */
  fetch?: typeof fetch | undefined;
}

export type Query = Record<string, string | number | undefined>;

export interface RequestOptions<S extends z.ZodType> {
  query?: Query;
  body?: unknown;
  /** Schema of the JSON body of a 2xx answer. */
  schema: S;
  /** Extra advice per status for this operation (e.g. 404 → "run `sentinel harness register`"). */
  hints?: StatusHints;
}

/** An open event stream: its body, a hook to call whenever something arrives, and a way to close it. */
export interface OpenStream {
  body: ReadableStream<Uint8Array>;
  /** Restarts the idle timer; call on every received message or comment. */
  touch(): void;
  /** Closes the connection and stops the timer. */
  close(): void;
  /**
   * The error to report when reading fails: `timeout` when the idle timer fired, else `unavailable`
   * with `details.streamDropped` (the turn may still be running; re-subscribe).
   */
  readError(error: unknown): SentinelError;
}

/** Low-level access to `<url>/api/v1/...`. */
export class HarnessHttp {
  readonly baseUrl: URL;
  private readonly token: string | undefined;
  private readonly timeoutMs: number;
  private readonly streamIdleTimeoutMs: number;
  private readonly fetchImpl: typeof fetch;

  /** Throws `SentinelError('invalid_input')` naming `--harness` when the URL is not http(s). */
  constructor(options: HarnessConnectionOptions) {
    this.baseUrl = apiBase(options.url);
    this.token = options.token || undefined;
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.streamIdleTimeoutMs = options.streamIdleTimeoutMs ?? 300_000;
    this.fetchImpl = options.fetch ?? fetch;
  }

  /** Sends a JSON request and returns the validated body. Throws `SentinelError` on any failure. */
  async request<S extends z.ZodType>(
    method: string,
    path: string,
    options: RequestOptions<S>,
  ): Promise<z.infer<S>> {
    const url = this.url(path, options.query);
    const response = await this.send(method, url, options.body, 'application/json', {
      signal: AbortSignal.timeout(this.timeoutMs),
      timeoutMs: this.timeoutMs,
    });
    let text: string;
    try {
      text = await response.text();
    } catch (error) {
      throw harnessTransportError({ method, url: url.href }, error, this.timeoutMs);
    }
    if (!response.ok)
      throw harnessHttpError({ method, path: url.pathname }, response.status, text, options.hints);
    return parseBody(options.schema, text, { method, path: url.pathname });
  }

  /**
   * Opens a Server-Sent Events stream (`Accept: text/event-stream`). The connection must answer
   * within the JSON deadline; after that it may stay silent up to the idle limit between events.
   */
  async openStream(
    method: string,
    path: string,
    options: Omit<RequestOptions<z.ZodType>, 'schema'>,
  ): Promise<OpenStream> {
    const url = this.url(path, options.query);
    const controller = new AbortController();
    let idleFired = false;
    let timer = setTimeout(() => controller.abort(), this.timeoutMs);
    const restart = (ms: number, onFire: () => void) => {
      clearTimeout(timer);
      timer = setTimeout(onFire, ms);
    };
    const response = await this.send(method, url, options.body, 'text/event-stream', {
      signal: controller.signal,
      timeoutMs: this.timeoutMs,
    }).catch((error: unknown) => {
      clearTimeout(timer);
      throw error;
    });
    if (!response.ok) {
      const text = await response.text().catch(() => '');
      clearTimeout(timer);
      throw harnessHttpError({ method, path: url.pathname }, response.status, text, options.hints);
    }
    const contentType = response.headers.get('content-type') ?? '';
    if (!response.body || !contentType.includes('text/event-stream')) {
      clearTimeout(timer);
      controller.abort();
      throw new SentinelError(
        'unavailable',
        `TrueForge harness answered ${method} ${url.pathname} with '${contentType || 'no body'}' instead of an event stream.`,
      );
    }
    const onIdle = () => {
      idleFired = true;
      controller.abort();
    };
    const touch = () => restart(this.streamIdleTimeoutMs, onIdle);
    touch();
    return {
      body: response.body,
      touch,
      close: () => {
        clearTimeout(timer);
        controller.abort();
      },
      readError: (error) =>
        idleFired
          ? new SentinelError(
              'timeout',
              `TrueForge harness sent nothing on ${url.pathname} for ${this.streamIdleTimeoutMs / 1000} s; the turn may still be running (resume with --resume-session).`,
              { cause: error },
            )
          : new SentinelError(
              'unavailable',
              `TrueForge harness dropped the event stream of ${url.pathname} (${error instanceof Error ? error.message : String(error)}).`,
              { cause: error, details: { streamDropped: true } },
            ),
    };
  }

  private url(path: string, query: Query = {}): URL {
    const url = new URL(path.replace(/^\//, ''), this.baseUrl);
    for (const [key, value] of Object.entries(query)) {
      if (value !== undefined) url.searchParams.set(key, String(value));
    }
    return url;
  }

  private async send(
    method: string,
    url: URL,
    body: unknown,
    accept: string,
    { signal, timeoutMs }: { signal: AbortSignal; timeoutMs: number },
  ): Promise<Response> {
    const headers: Record<string, string> = { accept };
    if (body !== undefined) headers['content-type'] = 'application/json';
    if (this.token) headers.authorization = `Bearer ${this.token}`;
    try {
      return await this.fetchImpl(url, {
        method,
        headers,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal,
      });
    } catch (error) {
      throw harnessTransportError({ method, url: url.href }, error, timeoutMs);
    }
  }
}

/** `<url>/api/v1/` as a directory URL, so relative paths resolve under it. */
export function apiBase(url: string): URL {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SentinelError(
      'invalid_input',
      `--harness '${url}' is not a URL; expected e.g. http://127.0.0.1:8000.`,
      {
        field: 'harness',
      },
    );
  }
  if (parsed.protocol !== 'http:' && parsed.protocol !== 'https:') {
    throw new SentinelError('invalid_input', `--harness '${url}' must be an http or https URL.`, {
      field: 'harness',
    });
  }
  const path = parsed.pathname.replace(/\/+$/, '').replace(/\/api\/v1$/, '');
  parsed.pathname = `${path}/api/v1/`;
  parsed.search = '';
  parsed.hash = '';
  return parsed;
}

function parseBody<S extends z.ZodType>(
  schema: S,
  text: string,
  request: { method: string; path: string },
): z.infer<S> {
  const json = parseJsonOrUndefined(text);
  if (json === undefined) {
    throw new SentinelError(
      'unavailable',
      `TrueForge harness answered ${request.method} ${request.path} with a body that is not JSON; is --harness the harness URL?`,
    );
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    const { field, message } = firstIssue(parsed.error, 'body');
    throw new SentinelError(
      'unavailable',
      `TrueForge harness answered ${request.method} ${request.path} with an unexpected shape (${field}: ${message}); this harness version may not match openapi.json.`,
      { cause: parsed.error },
    );
  }
  return parsed.data;
}
