/**
 * The API audit log, like kube-apiserver's `--audit-log-path` with the `Metadata` level: one JSON
 * line per request, written when the response completes (stage `ResponseComplete`; for a watch or a
 * followed log, when the stream ends or the client goes). Each line is an `audit.k8s.io/v1` Event
 * plus the simulator's measurements: `dryRun`, `requestBytes`, `responseBytes` (body bytes) and
 * `latencyMs` (wall time from the request's arrival to its last byte).
 *
 * Lines are appended with synchronous writes, so a test can count a client's requests from the file
 * as soon as the client has its answers.
 */
import { randomUUID } from 'node:crypto';
import { closeSync, openSync, writeSync } from 'node:fs';
import type { IncomingMessage, ServerResponse } from 'node:http';

/** What the request handler knows about a request when it completes. */
export interface AuditFacts {
  /** Kubernetes verb (`get`, `list`, `watch`, `create`, …) or, for non-resource paths, the lowercase HTTP method. */
  verb: string;
  /** Identity name, or undefined when the request was not authenticated. */
  user: string | undefined;
  objectRef?: {
    resource: string;
    namespace?: string;
    name?: string;
    apiGroup?: string;
    apiVersion: string;
    subresource?: string;
  };
  dryRun: boolean;
  requestBytes: number;
}

/** One line of the audit log. */
export interface AuditEvent {
  kind: 'Event';
  apiVersion: 'audit.k8s.io/v1';
  level: 'Metadata';
  auditID: string;
  stage: 'ResponseComplete';
  requestURI: string;
  verb: string;
  user: { username: string; groups: string[] };
  sourceIPs: string[];
  userAgent?: string;
  objectRef?: AuditFacts['objectRef'];
  responseStatus: { metadata: Record<string, never>; code: number };
  requestReceivedTimestamp: string;
  stageTimestamp: string;
  dryRun: boolean;
  requestBytes: number;
  responseBytes: number;
  latencyMs: number;
}

function microTime(ms: number): string {
  return new Date(ms).toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

export class AuditLog {
  #fd: number | undefined;

  /**
   * Opens (appends to) `path`.
   * @throws Error from the file system when the file cannot be opened.
   */
  constructor(path: string) {
    this.#fd = openSync(path, 'a', 0o600);
  }

  /**
   * Follows one request: counts the response body bytes and writes the line when the response
   * ends or the connection closes. `facts` is read then (the handler fills it while serving).
   */
  observe(request: IncomingMessage, response: ServerResponse, facts: () => AuditFacts): void {
    const received = Date.now();
    const started = performance.now();
    let responseBytes = 0;
    let written = false;
    const count = (chunk: unknown, encoding?: unknown) => {
      if (typeof chunk === 'string')
        responseBytes += Buffer.byteLength(
          chunk,
          typeof encoding === 'string' ? (encoding as BufferEncoding) : 'utf8',
        );
      else if (chunk instanceof Uint8Array) responseBytes += chunk.byteLength;
    };
    const write = () => {
      if (written) return;
      written = true;
      this.#write(request, response, facts(), received, performance.now() - started, responseBytes);
    };
    const originalWrite = response.write.bind(response) as (...args: unknown[]) => boolean;
    const originalEnd = response.end.bind(response) as (...args: unknown[]) => ServerResponse;
    response.write = ((chunk: unknown, ...rest: unknown[]) => {
      count(chunk, rest[0]);
      return originalWrite(chunk, ...rest);
    }) as ServerResponse['write'];
    response.end = ((...args: unknown[]) => {
      if (typeof args[0] !== 'function') count(args[0], args[1]);
      write();
      return originalEnd(...args);
    }) as ServerResponse['end'];
    response.once('close', write);
  }

  #write(
    request: IncomingMessage,
    response: ServerResponse,
    facts: AuditFacts,
    received: number,
    latencyMs: number,
    responseBytes: number,
  ): void {
    if (this.#fd === undefined) return;
    const event: AuditEvent = {
      kind: 'Event',
      apiVersion: 'audit.k8s.io/v1',
      level: 'Metadata',
      auditID: randomUUID(),
      stage: 'ResponseComplete',
      requestURI: request.url ?? '/',
      verb: facts.verb,
      user: facts.user
        ? { username: facts.user, groups: ['system:authenticated'] }
        : { username: 'system:anonymous', groups: ['system:unauthenticated'] },
      sourceIPs: [request.socket.remoteAddress ?? ''],
      ...(request.headers['user-agent'] && { userAgent: request.headers['user-agent'] }),
      ...(facts.objectRef && { objectRef: facts.objectRef }),
      responseStatus: { metadata: {}, code: response.statusCode },
      requestReceivedTimestamp: microTime(received),
      stageTimestamp: microTime(Date.now()),
      dryRun: facts.dryRun,
      requestBytes: facts.requestBytes,
      responseBytes,
      latencyMs: Math.round(latencyMs * 1000) / 1000,
    };
    writeSync(this.#fd, `${JSON.stringify(event)}\n`);
  }

  /** Closes the file; later requests are not logged. */
  close(): void {
    if (this.#fd === undefined) return;
    closeSync(this.#fd);
    this.#fd = undefined;
  }
}
