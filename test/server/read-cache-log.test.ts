/**
 * The read cache's log lines (server/read-cache-log.ts): one per reflector state change, with its
 * resource and namespace — synced (info), lost (warn, with the error), relist (info), a silent watch
 * ended and resumed (info, with its idle time) — and each
 * failed retry at debug only.
 */
import { Writable } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { createLogger } from '../../server/logger.ts';
import { readCacheLog } from '../../server/read-cache-log.ts';

describe('read cache log', () => {
  it('logs each state change once, at its level, naming the reflector', () => {
    const lines: Record<string, unknown>[] = [];
    const destination = new Writable({
      write(chunk, _encoding, done) {
        lines.push(JSON.parse(String(chunk)) as Record<string, unknown>);
        done();
      },
    });
    const log = readCacheLog(createLogger({ destination, level: 'info' }));
    const where = { resource: 'pods' as const, namespace: 'shop' };
    log.onStateChange({ state: 'synced' }, where);
    log.onStateChange({ state: 'lost', error: new Error('watch forbidden') }, where);
    log.onError(new Error('watch forbidden'), where); // debug: not at level info
    log.onStateChange({ state: 'relist' }, where);
    log.onStateChange({ state: 'idle', idleMs: 30_000 }, where);

    expect(lines.map((line) => [line.level, line.resource, line.namespace])).toEqual([
      [30, 'pods', 'shop'],
      [40, 'pods', 'shop'],
      [30, 'pods', 'shop'],
      [30, 'pods', 'shop'],
    ]);
    expect(lines[0]!.msg).toMatch(/synced/);
    expect(lines[1]!.msg).toMatch(/lost its watch: reads go to the API server/);
    expect(lines[1]!.err).toMatchObject({ message: 'watch forbidden' });
    expect(lines[2]!.msg).toMatch(/410 Gone/);
    expect(lines[3]!.msg).toMatch(/watch silent .*ended it.*reads go to the API server until it resumes/);
    expect(lines[3]!.idleMs).toBe(30_000);
  });
});
