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

  it('a freeze on that found one in place says so: by whom, since when, the reason before and now', () => {
    const now = new Date('2026-12-02T09:10:00.000Z');
    const text = formatFreeze(
      { ...frozen, reason: 'again', previous: { reason: 'DB migration', by: 'root', since: frozen.since } },
      { now, timeZone: 'UTC' },
    );
    expect(text).toBe(
      'Changes were already FROZEN since 2026-12-02 08:40 UTC (30m ago) by root: DB migration\n' +
        'Reason changed to: again (the freeze keeps its since time).\n' +
        'Write and destructive calls are denied; reads and dry runs continue.\n',
    );
    const same = formatFreeze(
      { ...frozen, previous: { reason: 'DB migration', by: 'root', since: frozen.since } },
      { now, timeZone: 'UTC' },
    );
    expect(same).toContain('Reason unchanged.');
  });

  it('says where the freeze is stored, and that every server on that store is frozen', () => {
    const now = new Date('2026-12-02T09:10:00.000Z');
    expect(
      formatFreeze({ ...frozen, store: '/home/u/.sentinel/sentinel.db' }, { now, timeZone: 'UTC' }),
    ).toContain(
      'Stored in /home/u/.sentinel/sentinel.db: it applies to every Sentinel server on that data directory, whichever --server was named.\n',
    );
    expect(formatFreeze({ frozen: false, reason: null, by: null, since: null, store: 'postgresql' })).toBe(
      'Changes are not frozen.\nStored in the PostgreSQL store: it applies to every Sentinel server using that store, whichever --server was named.\n',
    );
  });

  it('says nothing of times when not frozen', () => {
    expect(formatFreeze({ frozen: false, reason: null, by: null, since: null })).toBe(
      'Changes are not frozen.\n',
    );
  });
});
