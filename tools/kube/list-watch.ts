/**
 * The `ListWatch` of one resource in one namespace over Sentinel's request layer (./transport.ts),
 * as client-go's `cache.NewListWatchFromClient` builds it: LIST every page (`limit`/`continue`), and
 * WATCH with `watch=1&allowWatchBookmarks=true&resourceVersion=<rv>&timeoutSeconds=<t>`, reading the
 * answer as newline-delimited JSON events.
 */
import { ApiException } from '@kubernetes/client-node';
import type { KubeOperation } from './operations.ts';
import { apiPath } from './paths.ts';
import { WatchExpiredError, type ListWatch, type WatchEvent } from './reflector.ts';
import { isAlreadySafe, markAlreadySafe, parseFromCluster } from './sanitize.ts';
import { streamLines } from './stream-lines.ts';
import type { KubeTransport } from './transport.ts';
import type { JsonObject } from './types.ts';

export interface ListWatchOptions {
  transport: KubeTransport;
  operation: KubeOperation;
  namespace: string;
  /** Timeout of each list page in ms. */
  requestTimeoutMs: number;
  /** Page size of the list (`limit`). */
  pageSize: number;
  /**
   * `timeoutSeconds` of each watch; default 5–10 minutes, randomised like client-go's reflector
   * (so the watches of many reflectors do not all end together).
   */
  watchTimeoutSeconds?: () => number;
}

const defaultWatchTimeout = () => Math.round(300 * (1 + Math.random()));

/** See the module comment. A list answered with 410 throws `WatchExpiredError` too (relist). */
export function createListWatch(options: ListWatchOptions): ListWatch {
  const { transport, operation, namespace, requestTimeoutMs, pageSize } = options;
  const path = apiPath(operation, namespace);
  const watchTimeout = options.watchTimeoutSeconds ?? defaultWatchTimeout;
  return {
    async list(signal) {
      const items: JsonObject[] = [];
      let next: string | undefined;
      let resourceVersion = '';
      do {
        const text = await transport.send({
          method: 'GET',
          path,
          query: { limit: pageSize, continue: next },
          signal: AbortSignal.any([signal, AbortSignal.timeout(requestTimeoutMs)]),
        });
        const page = parseFromCluster(text) as { items?: unknown; metadata?: Record<string, unknown> };
        if (!Array.isArray(page?.items)) throw new Error(`list ${operation.resource} answered without items`);
        // Each item is shared on its own (./reflector.ts): it needs no sanitizing when its page did not.
        if (isAlreadySafe(page)) markAlreadySafe(page.items);
        for (const item of page.items as JsonObject[]) items.push(item);
        const meta = page.metadata ?? {};
        if (typeof meta.resourceVersion === 'string') resourceVersion = meta.resourceVersion;
        next = typeof meta.continue === 'string' && meta.continue ? meta.continue : undefined;
      } while (next);
      return { items, resourceVersion };
    },
    async watch(resourceVersion, signal) {
      try {
        const body = await transport.stream({
          method: 'GET',
          path,
          query: {
            watch: 1,
            allowWatchBookmarks: true,
            resourceVersion,
            timeoutSeconds: watchTimeout(),
          },
          signal,
        });
        return events(body);
      } catch (error) {
        if (error instanceof ApiException && error.code === 410) throw new WatchExpiredError();
        throw error;
      }
    },
  };
}

/** The newline-delimited JSON events of a watch answer, each parsed as it completes. */
async function* events(body: AsyncIterable<Buffer>): AsyncGenerator<WatchEvent> {
  for await (const line of streamLines(body)) yield toEvent(line);
}

function toEvent(line: string): WatchEvent {
  const event = parseFromCluster(line) as Partial<WatchEvent> | null;
  if (typeof event?.type !== 'string' || typeof event.object !== 'object' || event.object === null) {
    throw new Error('a watch event is not {"type", "object"}');
  }
  // The object is shared on its own: it needs no sanitizing when the event's text did not.
  if (isAlreadySafe(event)) markAlreadySafe([event.object]);
  return event as WatchEvent;
}
