/**
 * `?watch=true`: a chunked stream of `{"type":"ADDED|MODIFIED|DELETED|ERROR","object":{...}}` lines,
 * as the real API server sends it. Without a resourceVersion (or "0") the stream starts with ADDED
 * for every current object; with one it replays the changes after it (410 Gone as an ERROR event when
 * that version is older than the retained history). An object that starts or stops matching the
 * selectors arrives as ADDED / DELETED, like the watch cache does. With `allowWatchBookmarks=true`
 * a `BOOKMARK` event (the object's kind and apiVersion, and `metadata.resourceVersion` only) is sent
 * every minute and just before the server ends the stream at its timeout, as kube-apiserver does.
 */
import type { ServerResponse } from 'node:http';
import type { ResourceType } from '../resources.ts';
import type { ObjectStore, StoreChange, WatchEventType } from '../store.ts';
import type { KubeObject } from '../types.ts';
import { expired } from './status.ts';

export interface WatchRequest {
  type: ResourceType;
  namespace: string | undefined;
  resourceVersion: string | undefined;
  /** Seconds until the server ends the stream (default 30 minutes). */
  timeoutSeconds: number | undefined;
  /** Whether an object (in the API's shape) passes the label and field selectors. */
  matches: (object: KubeObject) => boolean;
  /** Converts an object (API shape) into what the stream carries (object or Table). */
  render: (object: KubeObject) => unknown;
  /** Stored object → API shape. */
  view: (object: KubeObject) => KubeObject;
  /** `allowWatchBookmarks=true`: send BOOKMARK events. */
  bookmarks?: boolean;
}

const DEFAULT_TIMEOUT_SECONDS = 1800;
/** How often (ms) a watch that allows bookmarks gets one. */
const BOOKMARK_INTERVAL_MS = 60_000;

/**
 * The silencers of the watch streams open now: calling one makes its stream half-open, as a
 * network partition leaves it — no more events or bookmarks, and never ended by the server (only
 * the client's disconnect or the simulator's close end it). For tests of clients' idle detection.
 */
export type WatchSilencers = Set<() => void>;

/** Watch streams counted as they open and end (the simulator's `traffic`). */
export interface WatchTally {
  /** Streams served so far (a 410 that ends one at once included). */
  watches: number;
  /** Streams open now. */
  openWatches: number;
}

/**
 * Serves a watch on `response` until timeout, client disconnect or `closeSignal`, counted in
 * `tally` while it is open; while open its silencer is in `silencers`.
 */
export function serveWatch(
  store: ObjectStore,
  request: WatchRequest,
  response: ServerResponse,
  closeSignal: AbortSignal,
  tally?: WatchTally,
  silencers?: WatchSilencers,
): void {
  if (tally) tally.watches += 1;
  const { type, namespace } = request;
  response.writeHead(200, { 'Content-Type': 'application/json', 'Cache-Control': 'no-cache, private' });
  response.flushHeaders();
  let silent = false;
  const send = (eventType: WatchEventType | 'ERROR' | 'BOOKMARK', object: unknown) => {
    if (!silent && !response.writableEnded)
      response.write(`${JSON.stringify({ type: eventType, object })}\n`);
  };
  const inScope = (object: KubeObject) => namespace === undefined || object.metadata.namespace === namespace;
  const deliver = (change: StoreChange) => {
    if (change.storage !== type.storage) return;
    const now = inScope(change.object) && request.matches(request.view(change.object));
    const before =
      change.previous !== undefined &&
      inScope(change.previous) &&
      request.matches(request.view(change.previous));
    const object = request.render(request.view(change.object));
    if (change.type === 'ADDED' && now) send('ADDED', object);
    else if (change.type === 'DELETED' && before) send('DELETED', object);
    else if (change.type === 'MODIFIED') {
      if (now && before) send('MODIFIED', object);
      else if (now) send('ADDED', object);
      else if (before) send('DELETED', object);
    }
  };

  const rv = request.resourceVersion;
  if (rv === undefined || rv === '' || rv === '0') {
    for (const object of store.list(type.storage, namespace)) {
      const view = request.view(object);
      if (request.matches(view)) send('ADDED', request.render(view));
    }
  } else {
    const from = Number.parseInt(rv, 10);
    if (!Number.isFinite(from) || from < store.oldestRetained) {
      send('ERROR', expired(`too old resource version: ${rv} (${store.revision})`).toStatus());
      response.end();
      return;
    }
    for (const change of store.changesSince(from)) deliver(change);
  }
  const unsubscribe = store.subscribe(deliver);
  if (tally) tally.openWatches += 1;
  const bookmark = () => {
    if (!request.bookmarks) return;
    send('BOOKMARK', {
      kind: type.kind,
      apiVersion: type.group ? `${type.group}/${type.version}` : type.version,
      metadata: { resourceVersion: String(store.revision) },
    });
  };
  const bookmarks = request.bookmarks ? setInterval(bookmark, BOOKMARK_INTERVAL_MS) : undefined;
  const timer = setTimeout(
    () => {
      bookmark();
      finish();
    },
    (request.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS) * 1000,
  );
  const silence = () => {
    silent = true;
    unsubscribe();
    clearTimeout(timer);
    clearInterval(bookmarks);
  };
  silencers?.add(silence);
  let finished = false;
  function finish() {
    if (finished) return;
    finished = true;
    silencers?.delete(silence);
    if (tally) tally.openWatches -= 1;
    unsubscribe();
    clearTimeout(timer);
    clearInterval(bookmarks);
    closeSignal.removeEventListener('abort', finish);
    if (!response.writableEnded) response.end();
  }
  response.on('close', finish);
  closeSignal.addEventListener('abort', finish);
}
