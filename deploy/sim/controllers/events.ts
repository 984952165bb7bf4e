/**
 * Event recording as client-go's `record.EventRecorder` does it for kubelet, scheduler and the
 * controllers: a core `v1` Event per (object, reason, message, source); a repeat increments `count`
 * and `lastTimestamp` instead of creating a new Event (the recorder's aggregation), and Events expire
 * one hour after their last occurrence (the API server's default `--event-ttl`).
 */
import type { SimClock } from '../clock.ts';
import type { ObjectStore } from '../store.ts';
import type { CoreEvent, KubeObject, ObjectReference } from '../types.ts';

/** Default `--event-ttl` of kube-apiserver. */
export const EVENT_TTL_MS = 60 * 60 * 1000;

export interface EventSource {
  /** Reporting component, e.g. `kubelet`, `deployment-controller`. */
  component: string;
  /** Node name for kubelet events. */
  host?: string;
}

export class EventRecorder {
  #clock: SimClock;
  #store: ObjectStore;
  #sequence = 0;
  #expiryTimers = new Set<number>();
  /** Aggregation key (object, reason, message, source) → event name, like the recorder's cache. */
  #byKey = new Map<string, string>();

  constructor(clock: SimClock, store: ObjectStore) {
    this.#clock = clock;
    this.#store = store;
  }

  /**
   * Records an event about `object` (optionally a container of a Pod, as `fieldPath`).
   * Mirrors `recorder.Eventf(object, type, reason, message)`.
   */
  record(
    object: KubeObject,
    type: 'Normal' | 'Warning',
    reason: string,
    message: string,
    source: EventSource,
    fieldPath?: string,
  ): void {
    const involvedObject: ObjectReference = {
      apiVersion: object.apiVersion ?? 'v1',
      kind: object.kind ?? 'Unknown',
      name: object.metadata.name,
      uid: object.metadata.uid ?? '',
      resourceVersion: object.metadata.resourceVersion ?? '',
      ...(object.metadata.namespace && { namespace: object.metadata.namespace }),
      ...(fieldPath && { fieldPath }),
    };
    const namespace = object.metadata.namespace ?? 'default';
    const now = this.#clock.timestamp();
    this.#scheduleExpiry();
    const aggregationKey = JSON.stringify([
      involvedObject.uid,
      fieldPath,
      reason,
      message,
      type,
      source.component,
      source.host,
    ]);
    const existingName = this.#byKey.get(aggregationKey);
    const existing = existingName && this.#store.get<CoreEvent>('events', namespace, existingName);
    if (existing) {
      existing.count = (existing.count ?? 1) + 1;
      existing.lastTimestamp = now;
      this.#store.update('events', existing, undefined, { handOver: true });
      return;
    }
    const event: CoreEvent = {
      apiVersion: 'v1',
      kind: 'Event',
      metadata: {
        // client-go names events `<object>.<hex UnixNano>`.
        name: `${object.metadata.name}.${(BigInt(this.#clock.now()) * 1_000_000n + BigInt(this.#sequence++ % 1_000_000)).toString(16)}`,
        namespace,
        creationTimestamp: now,
      },
      involvedObject,
      reason,
      message,
      source: { component: source.component, ...(source.host && { host: source.host }) },
      firstTimestamp: now,
      lastTimestamp: now,
      count: 1,
      type,
      eventTime: null,
      reportingComponent: source.component,
      reportingInstance: source.host ?? '',
    };
    this.#store.create('events', event, { handOver: true });
    this.#byKey.set(aggregationKey, event.metadata.name);
  }

  /**
   * Deletes events whose last occurrence is older than the TTL, like etcd's lease expiry: a timer
   * per simulated minute in which some event's TTL runs out.
   */
  #scheduleExpiry(): void {
    const at = Math.ceil((this.#clock.now() + EVENT_TTL_MS) / 60_000) * 60_000 + 1_000;
    if (this.#expiryTimers.has(at)) return;
    this.#expiryTimers.add(at);
    this.#clock.schedule(at, () => {
      this.#expiryTimers.delete(at);
      const cutoff = this.#clock.now() - EVENT_TTL_MS;
      for (const event of this.#store.peek<CoreEvent>('events')) {
        const last =
          event.lastTimestamp ??
          event.series?.lastObservedTime ??
          event.eventTime ??
          event.metadata.creationTimestamp;
        if (Date.parse(last ?? '') < cutoff) {
          this.#store.delete('events', event.metadata.namespace, event.metadata.name);
        }
      }
    });
  }
}
