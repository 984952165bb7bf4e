import { describe, expect, it } from 'vitest';
import { mergeEvents } from '../../../tools/kube/events.ts';
import type { CoreEvent, EventsEvent } from '../../../tools/kube/types.ts';

const T = (minute: number) => new Date(Date.UTC(2024, 4, 1, 11, minute));
const ms = (minute: number) => T(minute).getTime();

function core(uid: string, fields: Partial<CoreEvent>): CoreEvent {
  return {
    metadata: { uid, name: `e-${uid}`, namespace: 'shop', creationTimestamp: T(1) },
    involvedObject: { kind: 'Pod', name: `pod-${uid}` },
    type: 'Warning',
    reason: 'BackOff',
    message: `message ${uid}`,
    ...fields,
  } as CoreEvent;
}

function v1(uid: string, fields: Partial<EventsEvent>): EventsEvent {
  return {
    metadata: { uid, name: `e-${uid}`, namespace: 'shop', creationTimestamp: T(1) },
    regarding: { kind: 'Pod', name: `pod-${uid}` },
    type: 'Warning',
    reason: 'BackOff',
    note: `message ${uid}`,
    ...fields,
  } as EventsEvent;
}

const only = (events: ReturnType<typeof mergeEvents>) => {
  expect(events).toHaveLength(1);
  return events[0]!;
};

describe('mergeEvents: timestamps, whichever is set (kubectl events)', () => {
  it('core: series wins over lastTimestamp and count', () => {
    const e = only(
      mergeEvents(
        [
          core('a', {
            series: { count: 9, lastObservedTime: T(50) },
            count: 3,
            firstTimestamp: T(10),
            lastTimestamp: T(40),
          }),
        ],
        [],
      ),
    );
    expect(e).toMatchObject({ count: 9, firstSeen: ms(10), lastSeen: ms(50), api: 'core' });
  });
  it('core: no series → lastTimestamp, firstTimestamp and count', () => {
    const e = only(mergeEvents([core('a', { count: 3, firstTimestamp: T(10), lastTimestamp: T(40) })], []));
    expect(e).toMatchObject({ count: 3, firstSeen: ms(10), lastSeen: ms(40) });
  });
  it('core: no series, no lastTimestamp/firstTimestamp → eventTime, count 1', () => {
    const e = only(mergeEvents([core('a', { eventTime: T(30) })], []));
    expect(e).toMatchObject({ count: 1, firstSeen: ms(30), lastSeen: ms(30) });
  });
  it('core: no timestamps at all → creation time', () => {
    const e = only(mergeEvents([core('a', {})], []));
    expect(e).toMatchObject({ count: 1, firstSeen: ms(1), lastSeen: ms(1) });
  });
  it('core: lastTimestamp without firstTimestamp → first seen falls back to the creation time', () => {
    const e = only(mergeEvents([core('a', { lastTimestamp: T(40) })], []));
    expect(e).toMatchObject({ firstSeen: ms(1), lastSeen: ms(40) });
  });
  it('events.k8s.io: series → lastObservedTime and series.count', () => {
    const e = only(
      mergeEvents([], [v1('b', { eventTime: T(20), series: { count: 4, lastObservedTime: T(45) } })]),
    );
    expect(e).toMatchObject({
      count: 4,
      firstSeen: ms(20),
      lastSeen: ms(45),
      api: 'events.k8s.io',
      message: 'message b',
    });
  });
  it('events.k8s.io: deprecated timestamps and count when there is no series', () => {
    const e = only(
      mergeEvents(
        [],
        [
          v1('b', {
            deprecatedCount: 6,
            deprecatedFirstTimestamp: T(5),
            deprecatedLastTimestamp: T(35),
            eventTime: undefined as never,
          }),
        ],
      ),
    );
    expect(e).toMatchObject({ count: 6, firstSeen: ms(5), lastSeen: ms(35) });
  });
  it('events.k8s.io: only eventTime', () => {
    const e = only(mergeEvents([], [v1('b', { eventTime: T(25) })]));
    expect(e).toMatchObject({ count: 1, firstSeen: ms(25), lastSeen: ms(25) });
  });
  it('events.k8s.io: no timestamps at all → creation time', () => {
    const e = only(mergeEvents([], [v1('b', {})]));
    expect(e).toMatchObject({ firstSeen: ms(1), lastSeen: ms(1) });
  });
});

describe('mergeEvents: de-duplication and order', () => {
  it('the same stored event from both APIs counts once', () => {
    const e = only(
      mergeEvents(
        [core('x', { count: 5, firstTimestamp: T(10), lastTimestamp: T(40), message: 'probe failed' })],
        [
          v1('x', {
            deprecatedCount: 5,
            deprecatedFirstTimestamp: T(10),
            deprecatedLastTimestamp: T(40),
            note: 'probe failed',
            regarding: { kind: 'Pod', name: 'pod-x' },
          }),
        ],
      ),
    );
    expect(e).toMatchObject({ count: 5, api: 'both', firstSeen: ms(10), lastSeen: ms(40) });
  });

  it('distinct events about the same thing with the same message fold into one, counts added', () => {
    const same = {
      involvedObject: { kind: 'Pod', name: 'web-1' },
      reason: 'Unhealthy',
      message: 'Readiness probe failed: 503',
    };
    const e = only(
      mergeEvents(
        [
          core('1', { ...same, count: 2, firstTimestamp: T(5), lastTimestamp: T(20) }),
          core('2', { ...same, count: 3, firstTimestamp: T(21), lastTimestamp: T(30) }),
        ],
        [],
      ),
    );
    expect(e).toMatchObject({ count: 5, firstSeen: ms(5), lastSeen: ms(30) });
  });

  it('newest first', () => {
    const events = mergeEvents(
      [core('old', { lastTimestamp: T(10) }), core('new', { lastTimestamp: T(50) })],
      [v1('mid', { eventTime: T(30) })],
    );
    expect(events.map((e) => e.message)).toEqual(['message new', 'message mid', 'message old']);
  });
});
