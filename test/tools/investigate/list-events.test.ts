import { describe, expect, it } from 'vitest';
import { listEvents, type ListEventsOutput } from '../../../tools/investigate/list-events.ts';
import { NOW, ago } from '../../helpers/fixtures.ts';
import { mockApi, useMockedCluster } from '../../helpers/kube.ts';
import { callTool } from '../../helpers/tools.ts';

const kube = useMockedCluster({ now: NOW });

const coreEvent = (
  uid: string,
  kind: string,
  name: string,
  type: string,
  reason: string,
  message: string,
  lastMinutesAgo: number,
  count = 1,
) => ({
  metadata: { uid, name: `${name}.${uid}`, namespace: 'shop', creationTimestamp: ago(lastMinutesAgo + 5) },
  involvedObject: { kind, name, namespace: 'shop' },
  type,
  reason,
  message,
  count,
  firstTimestamp: ago(lastMinutesAgo + 5),
  lastTimestamp: ago(lastMinutesAgo),
  source: { component: 'kubelet' },
});

function mockEvents(core: unknown[], v1: unknown[]) {
  mockApi()
    .get('/api/v1/namespaces/shop/events')
    .query({ limit: '500' })
    .reply(200, { items: core })
    .get('/apis/events.k8s.io/v1/namespaces/shop/events')
    .query({ limit: '500' })
    .reply(200, { items: v1 });
}

const events = [
  coreEvent(
    '1',
    'Pod',
    'web-1',
    'Warning',
    'Unhealthy',
    'Readiness probe failed: HTTP probe failed with statuscode: 503',
    2,
    12,
  ),
  coreEvent('2', 'Pod', 'web-1', 'Normal', 'Pulled', 'Successfully pulled image "shop/web:3"', 30),
  coreEvent(
    '3',
    'Deployment',
    'web',
    'Normal',
    'ScalingReplicaSet',
    'Scaled up replica set web-abc to 1',
    90,
  ),
  coreEvent('4', 'Pod', 'api-1', 'Warning', 'Failed', 'Error: secret "db" not found (password=hunter2)', 5),
];
// The same stored event as uid 1, seen through events.k8s.io, and one only visible there.
const v1Events = [
  {
    metadata: { uid: '1', name: 'web-1.1', namespace: 'shop', creationTimestamp: ago(7) },
    regarding: { kind: 'Pod', name: 'web-1' },
    type: 'Warning',
    reason: 'Unhealthy',
    note: 'Readiness probe failed: HTTP probe failed with statuscode: 503',
    eventTime: ago(7),
    series: { count: 12, lastObservedTime: ago(2) },
    reportingController: 'kubelet',
  },
  {
    metadata: { uid: '5', name: 'web-2.5', namespace: 'shop', creationTimestamp: ago(1) },
    regarding: { kind: 'Pod', name: 'web-2' },
    type: 'Warning',
    reason: 'FailedScheduling',
    note: '0/3 nodes are available: 3 Insufficient memory.',
    eventTime: ago(1),
    reportingController: 'default-scheduler',
  },
];

describe('list_events', () => {
  it('merges both APIs, de-duplicates, newest first, messages untrusted and redacted', async () => {
    mockEvents(events, v1Events);
    const output = await callTool(listEvents, { namespace: 'shop' }, kube.context());
    const s = output.structured as ListEventsOutput;
    expect(s.events.map((e) => [e.reason, e.object.name, e.count, e.api])).toEqual([
      ['FailedScheduling', 'web-2', 1, 'events.k8s.io'],
      ['Unhealthy', 'web-1', 12, 'both'],
      ['Failed', 'api-1', 1, 'core'],
      ['Pulled', 'web-1', 1, 'core'],
      ['ScalingReplicaSet', 'web', 1, 'core'],
    ]);
    expect(s).toMatchObject({ total: 5, omitted: 0, redactions: 1 });
    expect(s.events[1]).toMatchObject({ last_seen: ago(2), first_seen: ago(7) });
    expect(s.events[2]!.message).toBe('Error: secret "db" not found (password=[REDACTED])');

    const lines = output.text.split('\n');
    expect(lines[0]).toContain("5 event(s) in namespace 'shop', newest first.");
    expect(lines[1]).toMatch(/^----- BEGIN UNTRUSTED DATA [0-9a-f]{12}: events in namespace shop/);
    expect(lines[2]!.split(/\s{2,}/)).toEqual([
      'LAST SEEN',
      'TYPE',
      'REASON',
      'OBJECT',
      'COUNT',
      'FIRST SEEN',
      'MESSAGE',
    ]);
    expect(lines[4]!.split(/\s{2,}/)).toEqual([
      '2m',
      'Warning',
      'Unhealthy',
      'Pod/web-1',
      '12',
      '7m',
      'Readiness probe failed: HTTP probe failed with statuscode: 503',
    ]);
    expect(output.text).toContain('Redacted: 1 secret(s) removed from messages.');
    expect(output.text).not.toContain('hunter2');
  });

  it('filters by object, warnings and age', async () => {
    mockEvents(events, v1Events);
    const output = await callTool(
      listEvents,
      {
        namespace: 'shop',
        involved_kind: 'Pod',
        involved_name: 'web-1',
        warnings_only: true,
        since_minutes: 10,
      },
      kube.context(),
    );
    expect((output.structured as ListEventsOutput).events.map((e) => e.reason)).toEqual(['Unhealthy']);
    expect(output.text.split('\n')[0]).toContain('(kind Pod, name web-1, warnings only, last 10 min)');
  });

  it('since_minutes drops older events', async () => {
    mockEvents(events, []);
    const output = await callTool(listEvents, { namespace: 'shop', since_minutes: 20 }, kube.context());
    expect((output.structured as ListEventsOutput).events.map((e) => e.reason)).toEqual([
      'Unhealthy',
      'Failed',
    ]);
  });

  it('bounds the list at 50 with an "N more" line', async () => {
    const many = Array.from({ length: 70 }, (_, i) =>
      coreEvent(`m${i}`, 'Pod', `p-${i}`, 'Warning', 'BackOff', `back-off ${i}`, i),
    );
    mockEvents(many, []);
    const output = await callTool(listEvents, { namespace: 'shop' }, kube.context());
    expect(output.structured).toMatchObject({ total: 70, omitted: 20 });
    expect(output.text.split('\n').at(-1)).toBe(
      '… 20 more events not shown (narrow with involved_name, warnings_only or since_minutes).',
    );
  });

  it('says when there are none', async () => {
    mockEvents([], []);
    const output = await callTool(listEvents, { namespace: 'shop' }, kube.context());
    expect(output.text.split('\n')[1]).toBe('No events.');
  });

  it('rejects a kind that is not CamelCase', () => {
    expect(listEvents.input.safeParse({ namespace: 'shop', involved_kind: 'pod' }).success).toBe(false);
  });
});
