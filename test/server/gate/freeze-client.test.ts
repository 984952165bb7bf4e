/** The lines `sentinel freeze on|off|status` print (formatFreeze): times in the reader's zone, UTC alongside. */
import { describe, expect, it } from 'vitest';
import { formatFreeze } from '../../../server/gate/freeze-client.ts';

describe('formatFreeze', () => {
  const frozen = {
    frozen: true,
    since: '2026-12-02T08:40:00.000Z',
    by: 'root',
    reason: 'DB migration',
  } as const;

  it('says since when in local time with the UTC time and how long ago, as `tokens list` does', () => {
    const now = new Date('2026-12-02T09:10:00.000Z');
    expect(formatFreeze(frozen, { now, timeZone: 'Europe/Paris' })).toBe(
      'Changes are FROZEN since 2026-12-02 09:40 GMT+1 (08:40 UTC, 30m ago) by root: DB migration\n' +
        'Write and destructive calls are denied; reads and dry runs continue.\n',
    );
    expect(formatFreeze(frozen, { now, timeZone: 'UTC' })).toContain(
      'FROZEN since 2026-12-02 08:40 UTC (30m ago) by root',
    );
  });

  it('says nothing of times when not frozen', () => {
    expect(formatFreeze({ frozen: false, reason: null, by: null, since: null })).toBe(
      'Changes are not frozen.\n',
    );
  });
});
