/**
 * The API views of stored objects that are not stored as served: `events.k8s.io/v1` Events (a
 * conversion of the stored core Events, as the real API server converts between the two), and the
 * `autoscaling/v1` Scale of a Deployment or ReplicaSet.
 */
import type { ResourceType } from '../resources.ts';
import type { CoreEvent, Deployment, KubeObject, ObjectReference } from '../types.ts';
import { hpaToV1 } from './hpa-conversion.ts';
import { formatLabelSelector } from './selectors.ts';

/** MicroTime (RFC 3339 with microseconds) of an RFC 3339 timestamp; null for none. */
function microTime(timestamp: string | undefined): string | null {
  if (!timestamp) return null;
  const time = new Date(timestamp);
  return Number.isNaN(time.getTime()) ? null : time.toISOString().replace(/\.(\d{3})Z$/, '.$1000Z');
}

/** An events.k8s.io/v1 Event as served. */
export interface EventsV1Event extends KubeObject {
  eventTime: string | null;
  series?: { count: number; lastObservedTime: string };
  reportingController: string;
  reportingInstance: string;
  action?: string;
  reason: string;
  regarding: ObjectReference;
  related?: ObjectReference;
  note: string;
  type: CoreEvent['type'];
  deprecatedSource: CoreEvent['source'];
  deprecatedFirstTimestamp: string | null;
  deprecatedLastTimestamp: string | null;
  deprecatedCount?: number;
}

/**
 * Core Event → events.k8s.io/v1 Event. A `series` written through events.k8s.io is served as
 * stored; a repeated core event (count > 1) gets a `series` (count, lastObservedTime) too. Missing
 * timestamps are `null`, as Go serializes a zero `metav1.Time` (never an error).
 */
export function toEventsV1(event: CoreEvent): EventsV1Event {
  const lastObserved = microTime(event.lastTimestamp);
  const series =
    event.series ??
    ((event.count ?? 0) > 1 && lastObserved
      ? { count: event.count!, lastObservedTime: lastObserved }
      : undefined);
  return {
    kind: 'Event',
    apiVersion: 'events.k8s.io/v1',
    metadata: event.metadata,
    eventTime: event.eventTime ?? microTime(event.firstTimestamp),
    ...(series && { series }),
    reportingController: event.reportingComponent ?? '',
    reportingInstance: event.reportingInstance ?? '',
    ...(event.action && { action: event.action }),
    reason: event.reason,
    regarding: event.involvedObject,
    ...(event.related && { related: event.related }),
    note: event.message,
    type: event.type,
    deprecatedSource: event.source ?? {},
    deprecatedFirstTimestamp: event.firstTimestamp ?? null,
    deprecatedLastTimestamp: event.lastTimestamp ?? null,
    ...(event.count !== undefined && { deprecatedCount: event.count }),
  };
}

/** The object as the API of `type` serves it. */
export function toApiView(type: ResourceType, object: KubeObject): KubeObject {
  if (type.group === 'events.k8s.io') return toEventsV1(object as CoreEvent);
  if (type.group === 'autoscaling' && type.version === 'v1') return hpaToV1(object);
  return object;
}

/** The `scale` subresource (autoscaling/v1 Scale) of a Deployment or ReplicaSet. */
export function toScale(object: KubeObject): KubeObject {
  const workload = object as Deployment;
  return {
    kind: 'Scale',
    apiVersion: 'autoscaling/v1',
    metadata: {
      name: workload.metadata.name,
      namespace: workload.metadata.namespace,
      uid: workload.metadata.uid,
      resourceVersion: workload.metadata.resourceVersion,
      creationTimestamp: workload.metadata.creationTimestamp,
    },
    spec: { replicas: workload.spec.replicas ?? 1 },
    status: {
      replicas: workload.status?.replicas ?? 0,
      selector: formatLabelSelector(workload.spec.selector).replace('<none>', ''),
    },
  };
}
