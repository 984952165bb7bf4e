/**
 * A reflector, as client-go's `cache.Reflector` runs one: keeps an in-memory copy of every object of
 * one resource in one namespace by LIST, then WATCH from the list's resourceVersion with
 * `allowWatchBookmarks=true`, applying each event in order. When the API server ends a watch
 * (`timeoutSeconds`) it watches again from the last resourceVersion seen (event or bookmark); when
 * the version has expired (410 Gone, as an `ERROR` event or an HTTP status) it lists again; when the
 * connection breaks or a list fails it waits with exponential backoff (p-retry) and tries again.
 *
 * A watch that delivers nothing (no event, no BOOKMARK) for `watchIdleMs` (default 30 s) is ended by
 * the reflector and resumed from its last resourceVersion, as if the server had ended it: a
 * half-open connection (the API server or a middlebox gone without FIN/RST, e.g. a partition) would
 * otherwise keep the copy "synced" but frozen until TCP keepalive (~11 min) or `timeoutSeconds`
 * (5–10 min). client-go bounds it the same way (its HTTP/2 health check pings after 30 s of silence
 * and drops the connection 15 s later). The API server sends bookmarks about once a minute but
 * promises no interval, so a quiet, healthy namespace just re-watches every `watchIdleMs`: one
 * WATCH request, no LIST. A silently dead watch is thus trusted for at most `watchIdleMs` plus the
 * reconnect.
 *
 * `synced` is true only while the copy is known current: listed, and a watch connected since that
 * has not been silent for `watchIdleMs`. While it reconnects, relists or backs off, readers go to
 * the API server (./read-cache.ts).
 *
 * Objects are stored as they were parsed, sanitized once (./sanitize.ts) and frozen, so that every
 * reader can share them and none can change what the next one reads.
 */
import pRetry, { AbortError } from 'p-retry';
import { isAlreadySafe, markAlreadySafe, sanitizeFromCluster } from './sanitize.ts';
import type { JsonObject } from './types.ts';

/** One watch event, as the API server streams it (`type` `ADDED|MODIFIED|DELETED|BOOKMARK|ERROR`). */
export interface WatchEvent {
  type: string;
  /** The object; for `BOOKMARK` only `metadata.resourceVersion`; for `ERROR` a `Status`. */
  object: JsonObject;
}

/** The list and watch calls of one resource in one namespace (client-go's `ListerWatcher`). */
export interface ListWatch {
  /** Every item of the collection (every page) and the list's `metadata.resourceVersion`. */
  list(signal: AbortSignal): Promise<{ items: JsonObject[]; resourceVersion: string }>;
  /**
   * Starts a watch after `resourceVersion` and resolves, once the API server accepted it, with its
   * events; they end when the server ends the stream. Rejects (or the events throw) on failure:
   * `WatchExpiredError` when the version is too old (HTTP 410).
   */
  watch(resourceVersion: string, signal: AbortSignal): Promise<AsyncIterable<WatchEvent>>;
}

/** The resourceVersion a watch asked for is no longer retained (410 Gone): list again. */
export class WatchExpiredError extends Error {
  constructor(message = 'resource version expired (410 Gone)') {
    super(message);
    this.name = 'WatchExpiredError';
  }
}

/** Backoff between failed attempts (p-retry). */
export interface ReflectorBackoff {
  /** First delay in ms (default 200); doubles each failure, randomised ×1–2. */
  minDelayMs: number;
  /** Longest delay in ms (default 30 000). */
  maxDelayMs: number;
}

/** A watch that ends sooner than this (ms) without an event counts as a failure (backoff). */
const MIN_QUIET_WATCH_MS = 1000;

/** Default `watchIdleMs`: client-go's HTTP/2 read-idle timeout before its health-check ping. */
export const DEFAULT_WATCH_IDLE_MS = 30_000;

export const DEFAULT_REFLECTOR_BACKOFF: ReflectorBackoff = { minDelayMs: 200, maxDelayMs: 30_000 };

/**
 * A change of a reflector's state worth one log line (never one per event): `synced` — listed and
 * watching, so reads may be answered from memory (at first, and again after a failure; not after
 * each routine re-watch); `lost` — a list or watch failed, reads go to the API server while it
 * backs off (once per outage, however many retries); `relist` — the watch's version expired (410
 * Gone), it lists again; `idle` — a watch delivered nothing for `idleMs`, so it was ended and
 * resumed (once per silent spell: the quiet re-watches after it tell nothing until an event or
 * bookmark arrives; a re-watch that fails tells `lost`).
 */
export type ReflectorStateChange =
  | { state: 'synced' }
  | { state: 'lost'; error: unknown }
  | { state: 'relist' }
  | { state: 'idle'; idleMs: number };

/** What a reflector did since it started, for metrics. */
export interface ReflectorCounts {
  /** Successful lists (the first one included). */
  lists: number;
  /** Lists again after an expired version (410 Gone). */
  relists: number;
  /** Watches the API server accepted (the first, each resumption after it ended one, each after a failure). */
  watches: number;
  /** Failed lists or watches it backed off from. */
  failures: number;
  /** Watches it ended itself after `watchIdleMs` without an event or bookmark (then resumed). */
  idleRestarts: number;
}

export interface ReflectorOptions {
  listWatch: ListWatch;
  backoff?: ReflectorBackoff;
  /**
   * A watch that delivers nothing (no event, no bookmark) for this long (ms) is ended and resumed
   * from the last resourceVersion; default 30 000 (`DEFAULT_WATCH_IDLE_MS`). Must be > 0.
   */
  watchIdleMs?: number;
  /** Told every failure the reflector backs off from (logs); default none. */
  onError?: (error: unknown) => void;
  /** Told each `ReflectorStateChange` (logs); default none. */
  onStateChange?: (change: ReflectorStateChange) => void;
}

/** The copy a reflector keeps; see the module comment. */
export interface Reflector {
  /** Listed, and a watch connected since and not silent for `watchIdleMs`: reads may be answered from the copy. */
  readonly synced: boolean;
  /** The last resourceVersion the copy reflects (list, event or bookmark); '' before the first list. */
  readonly resourceVersion: string;
  /** `performance.now()` when the last successful list was sent; -Infinity before one. */
  readonly listedAt: number;
  /** What it did since it started (a live object: read, do not change). */
  readonly counts: Readonly<ReflectorCounts>;
  /** Every object, sorted by name (as a list answers); the array is shared: do not change it. */
  items(): readonly JsonObject[];
  /** One object by name. */
  get(name: string): JsonObject | undefined;
  /** Resolves when `synced` becomes true (or at once if it is). */
  whenSynced(): Promise<void>;
  /** Stops watching; the copy is dropped. */
  stop(): void;
}

/** Starts a reflector (the first list is sent at once). */
export function startReflector(options: ReflectorOptions): Reflector {
  const { listWatch, onError, onStateChange } = options;
  const backoff = options.backoff ?? DEFAULT_REFLECTOR_BACKOFF;
  const watchIdleMs = options.watchIdleMs ?? DEFAULT_WATCH_IDLE_MS;
  if (!(Number.isFinite(watchIdleMs) && watchIdleMs > 0)) {
    throw new RangeError(`watchIdleMs must be a positive number of milliseconds, got ${watchIdleMs}`);
  }
  const stopping = new AbortController();
  const objects = new Map<string, JsonObject>();
  let sorted: JsonObject[] | undefined;
  let resourceVersion = '';
  let listedAt = Number.NEGATIVE_INFINITY;
  let listed = false;
  let watching = false;
  let needsList = true;
  let waiters: (() => void)[] = [];
  const counts: ReflectorCounts = { lists: 0, relists: 0, watches: 0, failures: 0, idleRestarts: 0 };
  // The state last told `onStateChange`: a routine re-watch after a timeout tells nothing, nor
  // does one after a silent watch (`idle` stays told until an event shows the stream alive).
  let told: 'starting' | 'synced' | 'lost' | 'idle' = 'starting';

  const synced = () => listed && watching && !stopping.signal.aborted;
  const settle = () => {
    if (!synced()) return;
    for (const resolve of waiters) resolve();
    waiters = [];
    if (told !== 'synced' && told !== 'idle') {
      told = 'synced';
      onStateChange?.({ state: 'synced' });
    }
  };
  const failed = (error: unknown) => {
    counts.failures++;
    onError?.(error);
    if (told === 'lost') return;
    told = 'lost';
    onStateChange?.({ state: 'lost', error });
  };

  const list = async () => {
    const started = performance.now();
    const answer = await listWatch.list(stopping.signal);
    objects.clear();
    for (const item of answer.items) objects.set(nameOf(item), shareable(item));
    sorted = undefined;
    resourceVersion = answer.resourceVersion;
    listedAt = started;
    listed = true;
    needsList = false;
    counts.lists++;
  };

  const apply = (event: WatchEvent) => {
    const version = versionOf(event.object);
    switch (event.type) {
      case 'ADDED':
      case 'MODIFIED':
        objects.set(nameOf(event.object), shareable(event.object));
        sorted = undefined;
        break;
      case 'DELETED':
        objects.delete(nameOf(event.object));
        sorted = undefined;
        break;
      case 'BOOKMARK':
        break;
      case 'ERROR': {
        const code = (event.object as { code?: unknown }).code;
        if (code === 410) throw new WatchExpiredError(String(event.object.message ?? ''));
        throw new Error(`watch error event: ${String(event.object.message ?? code)}`);
      }
      default:
        throw new Error(`unknown watch event type '${event.type}'`);
    }
    if (version) resourceVersion = version;
  };

  /** One list (if needed) and one watch, until the server ends the watch. Throws to back off. */
  const cycle = async () => {
    try {
      if (needsList) await list();
      const ending = new AbortController();
      const events = await listWatch.watch(
        resourceVersion,
        AbortSignal.any([stopping.signal, ending.signal]),
      );
      counts.watches++;
      const opened = performance.now();
      let seen = 0;
      watching = true;
      settle();
      const ended = await readUntilSilent(events, watchIdleMs, stopping.signal, (event) => {
        apply(event);
        seen++;
        if (told === 'idle') told = 'synced'; // alive again: the next silence is a new spell
      });
      if (ended === 'silent') {
        // Half-open or just quiet: end it (the abort closes the connection) and resume from the
        // last version, as after a server's timeout.
        watching = false;
        ending.abort();
        counts.idleRestarts++;
        if (told !== 'idle') {
          told = 'idle';
          onStateChange?.({ state: 'idle', idleMs: watchIdleMs });
        }
        return;
      }
      // A server that ends every watch at once must not be asked again in a tight loop.
      if (seen === 0 && performance.now() - opened < MIN_QUIET_WATCH_MS) {
        throw new Error('the API server ended the watch at once');
      }
    } catch (error) {
      if (stopping.signal.aborted) throw new AbortError('stopped');
      // An expired version is no failure: list again at once.
      if (error instanceof WatchExpiredError) {
        needsList = true;
        counts.relists++;
        onStateChange?.({ state: 'relist' });
        return;
      }
      throw error instanceof Error ? error : new Error(String(error));
    } finally {
      watching = false;
    }
  };

  void (async () => {
    while (!stopping.signal.aborted) {
      try {
        await pRetry(cycle, {
          retries: Number.POSITIVE_INFINITY,
          minTimeout: backoff.minDelayMs,
          maxTimeout: backoff.maxDelayMs,
          factor: 2,
          randomize: true,
          signal: stopping.signal,
          // Every failure (a TypeError from a broken stream too) backs off and tries again.
          shouldRetry: () => true,
          onFailedAttempt: ({ error }) => failed(error),
        });
      } catch {
        // Stopped (the signal aborted the wait); the loop ends.
      }
    }
  })();

  return {
    get synced() {
      return synced();
    },
    get resourceVersion() {
      return resourceVersion;
    },
    get listedAt() {
      return listedAt;
    },
    counts,
    items() {
      sorted ??= [...objects.values()].sort((a, b) => compareNames(nameOf(a), nameOf(b)));
      return sorted;
    },
    get: (name) => objects.get(name),
    whenSynced: () =>
      synced() ? Promise.resolve() : new Promise<void>((resolve) => void waiters.push(resolve)),
    stop() {
      stopping.abort();
      objects.clear();
      sorted = undefined;
      for (const resolve of waiters) resolve();
      waiters = [];
    },
  };
}

/**
 * Reads `events` into `apply` until they end or `signal` aborts ('ended'), or none arrives for
 * `idleMs` ('silent'). Throws what the stream or `apply` throws. Per watch, not per event: one
 * timer (re-armed only when it fires early; an event just notes its time) and one race of the
 * whole read against it. On silence the read is abandoned (`apply` is never called again) and not
 * awaited: a half-open stream may never answer; the caller's abort closes its connection.
 */
async function readUntilSilent(
  events: AsyncIterable<WatchEvent>,
  idleMs: number,
  signal: AbortSignal,
  apply: (event: WatchEvent) => void,
): Promise<'ended' | 'silent'> {
  let last = performance.now();
  let abandoned = false;
  const reading = (async () => {
    for await (const event of events) {
      if (abandoned) break;
      last = performance.now();
      apply(event);
    }
    return 'ended' as const;
  })();
  let timer: ReturnType<typeof setTimeout> | undefined;
  let onAbort = () => {};
  const quiet = new Promise<'silent' | 'ended'>((resolve) => {
    const check = () => {
      const left = last + idleMs - performance.now();
      if (left <= 0) resolve('silent');
      else timer = setTimeout(check, left);
    };
    timer = setTimeout(check, idleMs);
    onAbort = () => resolve('ended');
    if (signal.aborted) onAbort();
    else signal.addEventListener('abort', onAbort, { once: true });
  });
  try {
    const result = await Promise.race([reading, quiet]);
    if (result === 'silent' || signal.aborted) {
      abandoned = true;
      reading.catch(() => {}); // its rejection, once the abort lands, is expected
    }
    return result;
  } finally {
    clearTimeout(timer);
    signal.removeEventListener('abort', onAbort);
  }
}

/** etcd key order, as a list answers: by code unit, not locale. */
function compareNames(a: string, b: string): number {
  return a < b ? -1 : a > b ? 1 : 0;
}

function nameOf(object: JsonObject): string {
  return String((object.metadata as { name?: unknown } | undefined)?.name ?? '');
}

/** `metadata.resourceVersion` of an object, '' when it has none. */
export function versionOf(object: JsonObject | undefined): string {
  const version = (object?.metadata as { resourceVersion?: unknown } | undefined)?.resourceVersion;
  return typeof version === 'string' ? version : '';
}

/** The object sanitized (once, in place, unless its text showed no need) and deep-frozen. */
function shareable(object: JsonObject): JsonObject {
  if (!isAlreadySafe(object)) sanitizeFromCluster(object);
  markAlreadySafe([object]);
  return deepFreeze(object);
}

function deepFreeze<T>(value: T): T {
  if (typeof value !== 'object' || value === null || Object.isFrozen(value)) return value;
  for (const item of Object.values(value)) deepFreeze(item);
  return Object.freeze(value);
}
