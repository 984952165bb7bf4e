/**
 * Writes through `events.k8s.io/v1`: the served Event is converted to the stored core Event as the
 * API server converts (k8s.io/kubernetes/pkg/apis/events/v1 conversion: regarding ↔ involvedObject,
 * note ↔ message, deprecated* ↔ the core timestamps, count and source, reportingController ↔
 * reportingComponent; eventTime, series, action, related as they are), after the events.k8s.io/v1
 * create validation of k8s.io/kubernetes/pkg/apis/core/validation/events.go (eventTime, reporting
 * controller and instance, action and reason required; deprecated fields unset; series count >= 2
 * with lastObservedTime).
 */
import type { ResourceType } from '../resources.ts';
import type { CoreEvent, KubeObject } from '../types.ts';
import { invalid } from './status.ts';
import type { StatusCause } from './status.ts';

const required = (field: string): StatusCause => ({
  reason: 'FieldValueRequired',
  message: 'Required value',
  field,
});
const invalidCause = (field: string, why: string): StatusCause => ({
  reason: 'FieldValueInvalid',
  message: `Invalid value: "": ${why}`,
  field,
});

function seriesCauses(series: unknown): StatusCause[] {
  if (series === undefined || series === null) return [];
  const { count, lastObservedTime } = series as { count?: unknown; lastObservedTime?: unknown };
  const causes: StatusCause[] = [];
  if (typeof count !== 'number' || count < 2)
    causes.push(invalidCause('series.count', 'should be at least 2'));
  if (!lastObservedTime) causes.push(required('series.lastObservedTime'));
  return causes;
}

/**
 * Validates an events.k8s.io/v1 Event for create.
 * @throws ApiError 422 Invalid listing every broken field.
 */
export function validateEventsV1Create(type: ResourceType, event: KubeObject): void {
  const causes: StatusCause[] = [];
  if (!event['eventTime']) causes.push(required('eventTime'));
  if (!event['reportingController']) causes.push(required('reportingController'));
  if (!event['reportingInstance']) causes.push(required('reportingInstance'));
  else if (String(event['reportingInstance']).length > 128)
    causes.push(invalidCause('reportingInstance', 'can have at most 128 characters'));
  if (!event['action']) causes.push(required('action'));
  if (!event['reason']) causes.push(required('reason'));
  if (typeof event['note'] === 'string' && Buffer.byteLength(event['note']) > 1024)
    causes.push(invalidCause('note', 'can have at most 1024 characters'));
  if (event['type'] !== 'Normal' && event['type'] !== 'Warning')
    causes.push(invalidCause('type', `has invalid value: ${String(event['type'] ?? '')}`));
  for (const field of ['deprecatedFirstTimestamp', 'deprecatedLastTimestamp'] as const)
    if (event[field]) causes.push(invalidCause(field, 'needs to be unset'));
  if (event['deprecatedCount']) causes.push(invalidCause('deprecatedCount', 'needs to be unset'));
  const source = event['deprecatedSource'] as { component?: string; host?: string } | undefined;
  if (source?.component || source?.host) causes.push(invalidCause('deprecatedSource', 'needs to be unset'));
  causes.push(...seriesCauses(event['series']));
  if (causes.length > 0) throw invalid(type, event.metadata.name ?? '', causes);
}

/**
 * Validates an events.k8s.io/v1 Event for update or patch (the series rule; the rest of the
 * create rules held when it was created through this API).
 * @throws ApiError 422 Invalid.
 */
export function validateEventsV1Update(type: ResourceType, event: KubeObject): void {
  const causes = seriesCauses(event['series']);
  if (causes.length > 0) throw invalid(type, event.metadata.name ?? '', causes);
}

/** events.k8s.io/v1 Event → the stored core v1 Event (absent members stay absent). */
export function eventsV1ToCore(event: KubeObject): CoreEvent {
  const core: Record<string, unknown> = {
    apiVersion: 'v1',
    kind: 'Event',
    metadata: event.metadata,
    involvedObject: event['regarding'] ?? {},
    reason: event['reason'],
    message: event['note'],
    type: event['type'],
    source: event['deprecatedSource'] ?? {},
    firstTimestamp: event['deprecatedFirstTimestamp'],
    lastTimestamp: event['deprecatedLastTimestamp'],
    count: event['deprecatedCount'],
    eventTime: event['eventTime'] ?? null,
    series: event['series'],
    related: event['related'],
    action: event['action'],
    reportingComponent: event['reportingController'] ?? '',
    reportingInstance: event['reportingInstance'] ?? '',
  };
  for (const [key, value] of Object.entries(core))
    if (value === undefined || value === null) delete core[key];
  core['eventTime'] = event['eventTime'] ?? null;
  return core as unknown as CoreEvent;
}
