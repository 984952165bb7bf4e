import { describe, expect, it } from 'vitest';
import { localTime, withLocalTimes } from '../../../server/render/time.ts';

const now = new Date('2026-12-02T06:10:00.000Z');

describe('localTime', () => {
  it('shows the local zone first, then UTC and how far from now', () => {
    expect(localTime('2026-12-02T06:40:00.000Z', { now, timeZone: 'Europe/Berlin' })).toBe(
      '2026-12-02 07:40 GMT+1 (06:40 UTC, in 30m)',
    );
    expect(localTime('2026-12-02T06:40:00.000Z', { now, timeZone: 'America/New_York' })).toBe(
      '2026-12-02 01:40 EST (06:40 UTC, in 30m)',
    );
  });

  it('says UTC once when the local zone is UTC, and "ago" for a past instant', () => {
    expect(localTime('2026-12-02T06:00:00Z', { now, timeZone: 'UTC' })).toBe(
      '2026-12-02 06:00 UTC (10m ago)',
    );
  });

  it('leaves what is not a time alone, and rewrites every ISO instant in a text', () => {
    expect(localTime('soon', { now })).toBe('soon');
    expect(
      withLocalTimes('once, if retried before 2026-12-02T06:40:00.000Z', { now, timeZone: 'Asia/Kolkata' }),
    ).toBe('once, if retried before 2026-12-02 12:10 GMT+5:30 (06:40 UTC, in 30m)');
  });
});
