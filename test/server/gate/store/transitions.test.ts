import { describe, expect, it } from 'vitest';
import { APPROVAL_STATUSES } from '../../../../server/gate/approval-request.ts';
import {
  finishEvent,
  guardHolds,
  IllegalTransitionError,
  nextStatus,
  REQUEST_EVENTS,
  statusesFor,
  targetOf,
  transitionFor,
  TRANSITIONS,
} from '../../../../server/gate/store/transitions.ts';

/** The lifecycle written out independently of the table (approval-request.ts, DESIGN.md). */
const LEGAL: Record<string, string> = {
  'pending approve': 'approved',
  'pending deny': 'denied',
  'pending withdraw': 'withdrawn',
  'pending expire': 'expired',
  'pending supersede': 'superseded',
  'pending cancel': 'cancelled',
  'approved expire': 'expired',
  'approved cancel': 'cancelled',
  'approved revoke': 'cancelled',
  'approved cancel_grant': 'cancelled',
  'approved begin': 'executing',
  'executing succeed': 'executed',
  'executing fail': 'failed',
  'executing go_stale': 'stale',
};

const T = new Date('2025-01-31T02:10:00.000Z');
const later = (minutes: number) => new Date(T.getTime() + minutes * 60_000).toISOString();
const live = { expires_at: later(30), grant: { expires_at: later(30) } as never, executions: [] };

describe('approval request transition table', () => {
  it('lists exactly the legal transitions: every other status × event is refused', () => {
    for (const status of APPROVAL_STATUSES) {
      for (const event of REQUEST_EVENTS) {
        const expected = LEGAL[`${status} ${event}`];
        expect(transitionFor(status, event)?.to, `${status} × ${event}`).toBe(expected);
        if (expected === undefined) {
          expect(nextStatus({ status, ...live }, event, T)).toBeUndefined();
          expect(() => targetOf(status, event)).toThrow(IllegalTransitionError);
        } else {
          expect(targetOf(status, event)).toBe(expected);
        }
      }
    }
    expect(TRANSITIONS).toHaveLength(Object.keys(LEGAL).length);
  });

  it('has no transition out of a final status', () => {
    const final = [
      'denied',
      'expired',
      'withdrawn',
      'executed',
      'failed',
      'stale',
      'cancelled',
      'superseded',
    ];
    for (const status of final) expect(TRANSITIONS.filter((t) => t.from === status)).toEqual([]);
  });

  it('refuses a transition whose guard does not hold', () => {
    const pending = { status: 'pending' as const, ...live };
    expect(nextStatus(pending, 'approve', T)).toBe('approved');
    expect(nextStatus({ ...pending, expires_at: T.toISOString() }, 'approve', T)).toBeUndefined();
    expect(nextStatus(pending, 'expire', T)).toBeUndefined();
    expect(nextStatus({ ...pending, expires_at: T.toISOString() }, 'expire', T)).toBe('expired');
    const approved = { status: 'approved' as const, ...live };
    expect(nextStatus(approved, 'begin', T)).toBe('executing');
    expect(nextStatus({ ...approved, grant: { expires_at: T.toISOString() } as never }, 'begin', T)).toBe(
      undefined,
    );
    expect(nextStatus(approved, 'expire', T)).toBeUndefined();
    expect(nextStatus({ ...approved, grant: { expires_at: T.toISOString() } as never }, 'expire', T)).toBe(
      'expired',
    );
    expect(nextStatus(approved, 'revoke', T)).toBe('cancelled');
    expect(nextStatus({ ...approved, executions: [{}] }, 'revoke', T)).toBeUndefined();
    expect(nextStatus({ ...approved, executions: [{}] }, 'cancel_grant', T)).toBe('cancelled');
    expect(guardHolds('grant_unexpired', { ...live, grant: null }, T)).toBe(false);
  });

  it('names the statuses each event leaves, and the event a finished execution means', () => {
    expect(statusesFor('cancel')).toEqual(['pending', 'approved']);
    expect(statusesFor('expire')).toEqual(['pending', 'approved']);
    expect(statusesFor('begin')).toEqual(['approved']);
    expect(finishEvent('succeeded')).toBe('succeed');
    expect(finishEvent('stale')).toBe('go_stale');
    expect(finishEvent('failed')).toBe('fail');
    expect(finishEvent('interrupted')).toBe('fail');
  });
});
