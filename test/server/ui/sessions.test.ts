import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { createSessionStore, type Session, type SessionStore } from '../../../server/ui/sessions.ts';
import {
  dataDirSessionTables,
  postgresSessionTables,
  SESSIONS_FILE,
  type SessionTables,
} from '../../../server/ui/session-tables.ts';
import { describeWithPostgres } from '../../helpers/postgres.ts';
import { tempDataDir } from '../../helpers/server.ts';

describe('session store', () => {
  it('ends every session of an identity at once, and only those, telling listeners', async () => {
    const sessions = createSessionStore();
    const ended: Session[] = [];
    const stop = sessions.onEnd((session) => ended.push(session));
    const alice1 = await sessions.create('alice', 'hash-a');
    const alice2 = await sessions.create('alice', 'hash-a');
    const bob = await sessions.create('bob', 'hash-b');
    expect(await sessions.endSessionsFor('alice')).toBe(2);
    expect(ended.map((session) => session.id).sort()).toEqual([alice1.id, alice2.id].sort());
    expect(await sessions.touch(alice1.id)).toBeUndefined();
    expect(await sessions.touch(alice2.id)).toBeUndefined();
    expect((await sessions.touch(bob.id))?.credential).toBe('hash-b');
    expect(await sessions.endSessionsFor('alice')).toBe(0);
    stop();
    await sessions.destroy(bob.id);
    expect(ended).toHaveLength(2);
    expect(await sessions.touch(bob.id)).toBeUndefined();
    await sessions.close();
  });

  it('tells listeners of a sign-out (destroy), once', async () => {
    const sessions = createSessionStore();
    const ended: string[] = [];
    sessions.onEnd((session) => ended.push(session.id));
    const session = await sessions.create('alice', 'hash-a');
    await sessions.destroy(session.id);
    await sessions.destroy(session.id);
    expect(ended).toEqual([session.id]);
    await sessions.close();
  });

  it('slides an idle session up to the absolute lifetime', async () => {
    let time = 0;
    const sessions = createSessionStore({ sessionTtlMs: 1000, maxSessionMs: 2500, now: () => time });
    const session = await sessions.create('alice', 'hash-a');
    time = 900;
    expect(await sessions.touch(session.id)).toBeDefined();
    time = 1800;
    expect(await sessions.touch(session.id)).toBeDefined();
    time = 2500;
    expect(await sessions.touch(session.id)).toBeUndefined();
    await sessions.close();
  });

  it('spends a ticket once and refuses an expired one', async () => {
    let time = 0;
    const sessions = createSessionStore({ ticketTtlMs: 1000, now: () => time });
    const ticket = sessions.issueTicket('local');
    expect(await sessions.redeemTicket(ticket)).toBe('local');
    expect(await sessions.redeemTicket(ticket)).toBeUndefined();
    const late = sessions.issueTicket('local');
    time = 1000;
    expect(await sessions.redeemTicket(late)).toBeUndefined();
    await sessions.close();
  });
});

/**
 * Two processes' stores over the same tables (replicas, or `--workers`): what one issues or starts,
 * the other honours; what one ends, the other no longer accepts.
 */
function sharedTablesContract(open: () => Promise<SessionTables>) {
  const stores: SessionStore[] = [];
  afterAll(async () => {
    for (const store of stores) await store.close();
  });
  const two = async () => {
    const a = createSessionStore({ tables: await open() });
    const b = createSessionStore({ tables: await open() });
    stores.push(a, b);
    return [a, b] as const;
  };

  it('redeems a login ticket issued by the other, once across both', async () => {
    const [a, b] = await two();
    const ticket = a.issueTicket('local');
    await a.ready();
    expect(await b.redeemTicket(ticket)).toBe('local');
    expect(await a.redeemTicket(ticket)).toBeUndefined();
    expect(await b.redeemTicket(ticket)).toBeUndefined();
  });

  it("accepts the other's session with its CSRF token, and ends it everywhere", async () => {
    const [a, b] = await two();
    const session = await a.create('alice', 'hash-a');
    const seen = await b.touch(session.id);
    expect(seen).toMatchObject({ id: session.id, identity: 'alice', credential: 'hash-a' });
    expect(b.checkCsrf(seen!, session.csrf)).toBe(true);
    expect(await b.endSessionsFor('alice')).toBe(1);
    expect(await a.touch(session.id)).toBeUndefined();
    const other = await b.create('bob', 'hash-b');
    await a.destroy(other.id);
    expect(await b.touch(other.id)).toBeUndefined();
  });
}

describe('session store shared through <data-dir>/sessions.sqlite', () => {
  const data = tempDataDir();
  afterAll(() => data.cleanup());
  sharedTablesContract(async () => dataDirSessionTables(data.dir));

  it('keeps only hashes of the secrets on disk', async () => {
    const sessions = createSessionStore({ tables: dataDirSessionTables(data.dir) });
    const ticket = sessions.issueTicket('local');
    const session = await sessions.create('alice', 'hash-a');
    await sessions.close();
    const file = readFileSync(join(data.dir, SESSIONS_FILE)).toString('latin1');
    expect(file).not.toContain(ticket);
    expect(file).not.toContain(session.id);
  });
});

describeWithPostgres('session store shared through PostgreSQL', (postgres) => {
  let url: string | undefined;
  sharedTablesContract(async () => postgresSessionTables((url ??= await postgres().newDatabase())));
});
