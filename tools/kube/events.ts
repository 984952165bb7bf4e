/**
 * Events from the core `v1` and `events.k8s.io/v1` APIs merged into one shape. Both APIs are views of
 * the same stored objects, so the same event usually appears in both lists: they are de-duplicated
 * by uid (or namespace/name), and repeated occurrences of the same thing (same type, reason, object
 * and message) are folded into one with their counts added — what `kubectl events` shows as one row.
 *
 * Timestamps follow `kubectl events`: last seen is `series.lastObservedTime`, else
 * `lastTimestamp` / `deprecatedLastTimestamp`, else `eventTime`, else the creation time; first seen is
 * `firstTimestamp` / `deprecatedFirstTimestamp`, else `eventTime`, else the creation time; count is
 * `series.count`, else `count` / `deprecatedCount`, else 1.
 */
import { timeOf } from './deployment-util.ts';
import type { CoreEvent, EventsEvent } from './types.ts';

/** One event, whichever API it came from. */
export interface ClusterEvent {
  type: string;
  reason: string;
  /** The object the event is about (`involvedObject` / `regarding`). */
  object: { kind: string; name: string; namespace: string | undefined };
  message: string;
  count: number;
  /** ms since epoch; 0 when no timestamp is set at all. */
  firstSeen: number;
  lastSeen: number;
  /** Reporting component, e.g. `kubelet`, `deployment-controller`. */
  source: string;
  /** Which list(s) it was found in. */
  api: 'core' | 'events.k8s.io' | 'both';
}

type Time = Date | string | undefined | null;

/** What each API names its own way: the object, message, count, first/last time and source. */
interface OwnFields {
  object: { kind?: string; name?: string; namespace?: string } | undefined;
  message: string | undefined;
  count: number | undefined;
  firstTimestamp: Time;
  lastTimestamp: Time;
  source: string;
  api: ClusterEvent['api'];
}

/**
 * An event of either API as a `ClusterEvent` keyed by uid (or namespace/name): the fields both
 * APIs share read from `e`, the rest from `own`, timestamps and count in `kubectl events`' order.
 */
function clusterEvent(e: CoreEvent | EventsEvent, own: OwnFields): ClusterEvent & { key: string } {
  const created = timeOf(e.metadata?.creationTimestamp);
  const eventTime = timeOf(e.eventTime);
  const last = timeOf(e.series?.lastObservedTime) || timeOf(own.lastTimestamp) || eventTime || created;
  return {
    key: e.metadata?.uid ?? `${e.metadata?.namespace}/${e.metadata?.name}`,
    type: e.type ?? 'Normal',
    reason: e.reason ?? '',
    object: { kind: own.object?.kind ?? '', name: own.object?.name ?? '', namespace: own.object?.namespace },
    message: own.message ?? '',
    count: e.series?.count ?? own.count ?? 1,
    firstSeen: timeOf(own.firstTimestamp) || eventTime || created || last,
    lastSeen: last,
    source: own.source,
    api: own.api,
  };
}

function fromCore(e: CoreEvent): ClusterEvent & { key: string } {
  return clusterEvent(e, {
    object: e.involvedObject,
    message: e.message,
    count: e.count,
    firstTimestamp: e.firstTimestamp,
    lastTimestamp: e.lastTimestamp,
    source: e.reportingComponent || e.source?.component || '',
    api: 'core',
  });
}

function fromEventsV1(e: EventsEvent): ClusterEvent & { key: string } {
  return clusterEvent(e, {
    object: e.regarding,
    message: e.note,
    count: e.deprecatedCount,
    firstTimestamp: e.deprecatedFirstTimestamp,
    lastTimestamp: e.deprecatedLastTimestamp,
    source: e.reportingController ?? e.deprecatedSource?.component ?? '',
    api: 'events.k8s.io',
  });
}

/**
 * Merges both lists: one entry per stored event (same uid in both lists counts once, keeping the
 * larger count and the wider time span), then one per distinct occurrence (type, reason, object,
 * message) with counts summed. Newest (last seen) first.
 */
export function mergeEvents(core: readonly CoreEvent[], eventsV1: readonly EventsEvent[]): ClusterEvent[] {
  const byUid = new Map<string, ClusterEvent>();
  for (const event of [...core.map(fromCore), ...eventsV1.map(fromEventsV1)]) {
    const { key, ...rest } = event;
    const seen = byUid.get(key);
    byUid.set(key, seen ? combine(seen, rest, seen.api === rest.api ? seen.api : 'both', Math.max) : rest);
  }
  const byOccurrence = new Map<string, ClusterEvent>();
  for (const event of byUid.values()) {
    const key = JSON.stringify([
      event.type,
      event.reason,
      event.object.kind,
      event.object.name,
      event.message,
    ]);
    const seen = byOccurrence.get(key);
    byOccurrence.set(
      key,
      seen ? combine(seen, event, seen.api === event.api ? seen.api : 'both', (a, b) => a + b) : event,
    );
  }
  return [...byOccurrence.values()].sort((a, b) => b.lastSeen - a.lastSeen);
}

function combine(
  a: ClusterEvent,
  b: ClusterEvent,
  api: ClusterEvent['api'],
  count: (a: number, b: number) => number,
): ClusterEvent {
  const firsts = [a.firstSeen, b.firstSeen].filter((t) => t > 0);
  return {
    ...a,
    source: a.source || b.source,
    count: count(a.count, b.count),
    firstSeen: firsts.length ? Math.min(...firsts) : 0,
    lastSeen: Math.max(a.lastSeen, b.lastSeen),
    api,
  };
}
