import { describe, expect, it } from 'vitest';
import { createSessionStore, type Session } from '../../../server/ui/sessions.ts';

describe('session store', () => {
  it('ends every session of an identity at once, and only those, telling listeners', () => {
    const sessions = createSessionStore();
    const ended: Session[] = [];
    const stop = sessions.onEnd((session) => ended.push(session));
    const alice1 = sessions.create('alice', 'hash-a');
    const alice2 = sessions.create('alice', 'hash-a');
    const bob = sessions.create('bob', 'hash-b');
    expect(sessions.endSessionsFor('alice')).toBe(2);
    expect(ended.map((session) => session.id).sort()).toEqual([alice1.id, alice2.id].sort());
    expect(sessions.touch(alice1.id)).toBeUndefined();
    expect(sessions.touch(alice2.id)).toBeUndefined();
    expect(sessions.touch(bob.id)?.credential).toBe('hash-b');
    expect(sessions.endSessionsFor('alice')).toBe(0);
    stop();
    sessions.destroy(bob.id);
    expect(ended).toHaveLength(2);
    expect(sessions.touch(bob.id)).toBeUndefined();
  });

  it('tells listeners of a sign-out (destroy), once', () => {
    const sessions = createSessionStore();
    const ended: string[] = [];
    sessions.onEnd((session) => ended.push(session.id));
    const session = sessions.create('alice', 'hash-a');
    sessions.destroy(session.id);
    sessions.destroy(session.id);
    expect(ended).toEqual([session.id]);
  });

  it('slides an idle session up to the absolute lifetime', () => {
    let time = 0;
    const sessions = createSessionStore({ sessionTtlMs: 1000, maxSessionMs: 2500, now: () => time });
    const session = sessions.create('alice', 'hash-a');
    time = 900;
    expect(sessions.touch(session.id)).toBeDefined();
    time = 1800;
    expect(sessions.touch(session.id)).toBeDefined();
    time = 2500;
    expect(sessions.touch(session.id)).toBeUndefined();
  });
});
