/**
 * The watch-backed read cache (`sentinel serve --read-cache watch`, the default), the way client-go's
 * informers serve reads: one reflector (./reflector.ts) per (resource, namespace) for Deployments,
 * ReplicaSets, Pods and HorizontalPodAutoscalers, started by the first read of that namespace, answering later reads from
 * memory once it is synced. Until then — and whenever it reconnects or relists — reads go to the API
 * server as without the cache.
 *
 * A reflector whose watch has delivered nothing (no event, no bookmark) for `watchIdleMs` (default
 * 30 s) ends it and watches again from its last version (./reflector.ts): a silently dead watch
 * (half-open connection) answers reads for at most that long plus the reconnect, never until TCP
 * keepalive or the watch's 5–10 minute timeout. A quiet namespace re-watches that often (no LIST).
 *
 * Bounded: at most `maxNamespaces` namespaces are held (least recently read dropped first), and a
 * namespace not read for `idleMs` stops its watches and drops its objects.
 *
 * Read-your-writes: a write Sentinel itself makes (scale, restart, rollback, pod deletion) is noted
 * with the resourceVersion the API server answered it with; reads of that resource in that
 * namespace bypass the cache until the reflector has seen that version (or listed after the write,
 * or `writeBypassMs` passed). Seeing it means: the stored object carries exactly that version, or
 * — where both versions are decimal integers, as etcd's revisions and the simulator's are — the
 * reflector's resourceVersion is at least it. Kubernetes calls resourceVersions opaque and allows
 * comparing them only for list/watch semantics; the integer comparison is that assumption, and an
 * API server whose versions are not integers falls back to the exact match or the bypass's expiry.
 *
 * The approval gate, previews, remediation tools and reconciliation never read through this
 * (server/pipeline.ts gives the cached reader to `read` tools only).
 */
import { LabelSelectorSyntaxError, matchesLabels, parseLabelSelector } from './label-selector.ts';
import type { LabelRequirement } from './label-selector.ts';
import { markAlreadySafe } from './sanitize.ts';
import {
  startReflector,
  versionOf,
  type ListWatch,
  type Reflector,
  type ReflectorBackoff,
  type ReflectorCounts,
  type ReflectorStateChange,
} from './reflector.ts';
import type { JsonObject, KubeReader, KubeWriter, ListOptions } from './types.ts';
import { WRITER_OPERATIONS } from './operations.ts';

/** The resources the cache holds (plural resource names of the API). */
export const CACHED_RESOURCES = ['deployments', 'replicasets', 'pods', 'horizontalpodautoscalers'] as const;
export type CachedResource = (typeof CACHED_RESOURCES)[number];

/** `--read-cache`: `off` (every read asks the API server) or `watch` (this module). */
export type ReadCacheMode = 'off' | 'watch';

export interface ReadCacheOptions {
  /** Namespaces held at most; the least recently read is dropped first. Default 16. */
  maxNamespaces?: number;
  /** A namespace not read for this long (ms) stops its watches. Default 600 000 (10 minutes). */
  idleMs?: number;
  /** Longest (ms) reads bypass the cache for a write it has not seen. Default 60 000. */
  writeBypassMs?: number;
  /** Reflector backoff after failures; default 200 ms doubling to 30 s. */
  backoff?: ReflectorBackoff;
  /** `timeoutSeconds` of each watch; default 5–10 minutes, randomised (tests: short). */
  watchTimeoutSeconds?: number;
  /**
   * A watch silent (no event, no bookmark) this long (ms) is ended and resumed from its last
   * version; default 30 000 (tests: short). Must be > 0.
   */
  watchIdleMs?: number;
  /** Told every reflector failure (logs). */
  onError?: (error: unknown, where: ReflectorPlace) => void;
  /** Told each reflector's state changes (synced, lost, relist; reflector.ts `ReflectorStateChange`). */
  onStateChange?: (change: ReflectorStateChange, where: ReflectorPlace) => void;
}

/** Which reflector: its resource and namespace. */
export interface ReflectorPlace {
  resource: CachedResource;
  namespace: string;
}

/** What the cache knows and holds, for tests and metrics. */
export interface ReadCacheStats {
  /** Namespaces held, least recently read first. */
  namespaces: string[];
  /** Reads answered from memory, and those that went to the API server (not synced, bypassed). */
  hits: number;
  misses: number;
  /** Reflectors running now, and how many of them are synced. */
  reflectors: number;
  synced: number;
  /**
   * Since the cache started, over every reflector (stopped ones included): lists again after an
   * expired version (410 Gone), watches the API server accepted, failed lists or watches, and
   * watches ended after `watchIdleMs` of silence (then resumed).
   */
  relists: number;
  watches: number;
  failures: number;
  idleRestarts: number;
}

export interface ReadCache {
  /**
   * The reflector of `resource` in `namespace` when its copy may answer a read now (synced, and
   * every write Sentinel made there seen); undefined otherwise. Marks the namespace read, starting
   * its reflector on first use.
   */
  fresh(resource: CachedResource, namespace: string): Reflector | undefined;
  /** Notes a write Sentinel made (see the module comment). */
  noteWrite(resource: CachedResource, namespace: string, name: string, resourceVersion: string): void;
  /** Resolves once `resource` in `namespace` is synced (starting it); for tests and warm-up. */
  whenSynced(resource: CachedResource, namespace: string): Promise<void>;
  stats(): ReadCacheStats;
  /** Stops every reflector and the idle sweep. */
  close(): void;
}

interface PendingWrite {
  name: string;
  resourceVersion: string;
  at: number;
}

interface HeldNamespace {
  lastRead: number;
  reflectors: Map<CachedResource, Reflector>;
}

/** See the module comment; `listWatchOf` builds the list and watch calls of one resource and namespace. */
export function createReadCache(
  listWatchOf: (resource: CachedResource, namespace: string) => ListWatch,
  options: ReadCacheOptions = {},
): ReadCache {
  const maxNamespaces = options.maxNamespaces ?? 16;
  const idleMs = options.idleMs ?? 600_000;
  const writeBypassMs = options.writeBypassMs ?? 60_000;
  // Map order is the LRU order: a read moves its namespace to the end.
  const held = new Map<string, HeldNamespace>();
  const pending = new Map<string, PendingWrite[]>();
  let hits = 0;
  let misses = 0;
  // The counts of stopped reflectors, so that the totals never go back.
  const retired: Omit<ReflectorCounts, 'lists'> = { relists: 0, watches: 0, failures: 0, idleRestarts: 0 };
  const TOTALS = ['relists', 'watches', 'failures', 'idleRestarts'] as const;
  if (
    options.watchIdleMs !== undefined &&
    !(Number.isFinite(options.watchIdleMs) && options.watchIdleMs > 0)
  ) {
    throw new RangeError(`watchIdleMs must be a positive number of milliseconds, got ${options.watchIdleMs}`);
  }

  const drop = (namespace: string) => {
    for (const reflector of held.get(namespace)?.reflectors.values() ?? []) {
      reflector.stop();
      for (const key of TOTALS) retired[key] += reflector.counts[key];
    }
    held.delete(namespace);
  };

  const sweep = setInterval(
    () => {
      const now = performance.now();
      for (const [namespace, entry] of held) if (now - entry.lastRead >= idleMs) drop(namespace);
    },
    Math.max(1000, Math.min(idleMs / 2, 60_000)),
  );
  sweep.unref();

  const reflectorOf = (resource: CachedResource, namespace: string): Reflector => {
    let entry = held.get(namespace);
    if (entry) held.delete(namespace);
    entry ??= { lastRead: 0, reflectors: new Map() };
    entry.lastRead = performance.now();
    held.set(namespace, entry);
    for (const [oldest] of held) {
      if (held.size <= maxNamespaces) break;
      drop(oldest);
    }
    let reflector = entry.reflectors.get(resource);
    if (!reflector) {
      reflector = startReflector({
        listWatch: listWatchOf(resource, namespace),
        ...(options.backoff && { backoff: options.backoff }),
        ...(options.watchIdleMs !== undefined && { watchIdleMs: options.watchIdleMs }),
        ...(options.onError && { onError: (error) => options.onError!(error, { resource, namespace }) }),
        ...(options.onStateChange && {
          onStateChange: (change) => options.onStateChange!(change, { resource, namespace }),
        }),
      });
      entry.reflectors.set(resource, reflector);
    }
    return reflector;
  };

  /** Whether `reflector` reflects `write` (see the module comment). */
  const seen = (reflector: Reflector, write: PendingWrite): boolean =>
    reflector.listedAt > write.at ||
    (write.resourceVersion !== '' && versionOf(reflector.get(write.name)) === write.resourceVersion) ||
    atLeast(reflector.resourceVersion, write.resourceVersion);

  return {
    fresh(resource, namespace) {
      const reflector = reflectorOf(resource, namespace);
      const key = `${resource}/${namespace}`;
      const writes = pending.get(key);
      if (writes) {
        const now = performance.now();
        const unseen = writes.filter((write) => now - write.at < writeBypassMs && !seen(reflector, write));
        if (unseen.length) pending.set(key, unseen);
        else pending.delete(key);
        if (unseen.length) {
          misses++;
          return undefined;
        }
      }
      if (!reflector.synced) {
        misses++;
        return undefined;
      }
      hits++;
      return reflector;
    },
    noteWrite(resource, namespace, name, resourceVersion) {
      const key = `${resource}/${namespace}`;
      const writes = pending.get(key) ?? [];
      writes.push({ name, resourceVersion, at: performance.now() });
      pending.set(key, writes);
    },
    whenSynced: (resource, namespace) => reflectorOf(resource, namespace).whenSynced(),
    stats() {
      const totals = { ...retired, reflectors: 0, synced: 0 };
      for (const entry of held.values()) {
        for (const reflector of entry.reflectors.values()) {
          totals.reflectors++;
          if (reflector.synced) totals.synced++;
          for (const key of TOTALS) totals[key] += reflector.counts[key];
        }
      }
      return { namespaces: [...held.keys()], hits, misses, ...totals };
    },
    close() {
      clearInterval(sweep);
      for (const namespace of [...held.keys()]) drop(namespace);
      pending.clear();
    },
  };
}

/** Whether resourceVersion `a` is at or after `b`, when both are decimal integers (else false). */
export function atLeast(a: string, b: string): boolean {
  if (!/^\d+$/.test(a) || !/^\d+$/.test(b)) return false;
  return BigInt(a) >= BigInt(b);
}

/** Parsed label selectors, by text (bounded: the selectors of a cluster's workloads repeat). */
const selectors = new Map<string, LabelRequirement[]>();
const MAX_SELECTORS = 512;

/** The requirements of `selector`, or undefined when it does not parse (the API server answers that). */
function requirementsOf(selector: string): LabelRequirement[] | undefined {
  let parsed = selectors.get(selector);
  if (parsed) return parsed;
  try {
    parsed = parseLabelSelector(selector);
  } catch (error) {
    if (error instanceof LabelSelectorSyntaxError) return undefined;
    throw error;
  }
  if (selectors.size >= MAX_SELECTORS) selectors.clear();
  selectors.set(selector, parsed);
  return parsed;
}

/**
 * `live` with the reads of Deployments, ReplicaSets, Pods and HorizontalPodAutoscalers answered from `cache` when it is fresh
 * (`ReadCache.fresh`) and the options are ones the cache can answer (a label selector; a field
 * selector or an unparsable label selector goes to the API server). An object the cache does not
 * hold goes to the API server too (so "not found" is the API server's, and an object created a
 * moment ago is found). Results are the cache's shared, frozen objects in a new array, in the
 * API's order (by name), marked as needing no sanitizing (they were sanitized when stored).
 */
export function cachingReader(live: KubeReader, cache: ReadCache): KubeReader {
  const one = <T>(resource: CachedResource, namespace: string, name: string, read: () => Promise<T>) => {
    const found = cache.fresh(resource, namespace)?.get(name);
    return found ? Promise.resolve(found as T) : read();
  };
  const many = <T>(
    resource: CachedResource,
    namespace: string,
    options: ListOptions | undefined,
    read: () => Promise<T[]>,
  ): Promise<T[]> => {
    if (options?.fieldSelector) return read();
    const requirements = options?.labelSelector ? requirementsOf(options.labelSelector) : [];
    if (!requirements) return read();
    const reflector = cache.fresh(resource, namespace);
    if (!reflector) return read();
    const items = reflector.items();
    const matching = requirements.length
      ? items.filter((item) => matchesLabels(labelsOf(item), requirements))
      : [...items];
    markAlreadySafe([], matching);
    return Promise.resolve(matching as T[]);
  };
  return {
    ...live,
    cluster: live.cluster,
    getDeployment: (namespace, name) =>
      one('deployments', namespace, name, () => live.getDeployment(namespace, name)),
    getDeploymentAsSent: (namespace, name) =>
      one('deployments', namespace, name, () => live.getDeploymentAsSent(namespace, name)),
    listDeployments: (namespace, o) =>
      many('deployments', namespace, o, () => live.listDeployments(namespace, o)),
    listReplicaSets: (namespace, o) =>
      many('replicasets', namespace, o, () => live.listReplicaSets(namespace, o)),
    listReplicaSetsAsSent: (namespace, o) =>
      many('replicasets', namespace, o, () => live.listReplicaSetsAsSent(namespace, o)),
    getPod: (namespace, name) => one('pods', namespace, name, () => live.getPod(namespace, name)),
    listPods: (namespace, o) => many('pods', namespace, o, () => live.listPods(namespace, o)),
    listHorizontalPodAutoscalers: (namespace, o) =>
      many('horizontalpodautoscalers', namespace, o, () => live.listHorizontalPodAutoscalers(namespace, o)),
  };
}

function labelsOf(object: JsonObject): Record<string, string> | undefined {
  return (object.metadata as { labels?: Record<string, string> } | undefined)?.labels;
}

/** The cached resource a writer method changes (its operation's resource before any `/scale`). */
function resourceOf(method: keyof KubeWriter): CachedResource | undefined {
  const resource = WRITER_OPERATIONS[method].resource.split('/')[0];
  return CACHED_RESOURCES.find((cached) => cached === resource);
}

/**
 * `writer` noting each successful write of a cached resource in `cache` (read-your-writes): the
 * object's namespace and name are the method's first two arguments, its new resourceVersion the
 * answer's `metadata.resourceVersion` (a `Scale` carries its Deployment's). A write that failed may
 * still have applied (a timeout), so it is noted without a version: bypassed until a relist or
 * `writeBypassMs`.
 */
export function noteWritesIn(writer: KubeWriter, cache: ReadCache): KubeWriter {
  const noting: Record<string, unknown> = {};
  for (const method of Object.keys(writer) as (keyof KubeWriter)[]) {
    const resource = resourceOf(method);
    const call = writer[method] as (...args: unknown[]) => Promise<unknown>;
    noting[method] = resource
      ? async (...args: unknown[]) => {
          const note = (version: string) =>
            cache.noteWrite(resource, String(args[0]), String(args[1]), version);
          try {
            const answer = await call(...args);
            note(versionOf(answer as JsonObject));
            return answer;
          } catch (error) {
            // It may have applied (a timeout): bypassed until a relist or the bypass's end.
            note('');
            throw error;
          }
        }
      : call;
  }
  return noting as unknown as KubeWriter;
}
