/**
 * The reflector's list/watch protocol against a scripted `ListWatch`: watch from the list's
 * resourceVersion, re-watch from the last version seen (event or bookmark) after a disconnect,
 * list again after 410 Gone (as an ERROR event or an HTTP status), synced only while watching; a
 * watch silent for `watchIdleMs` (half-open) ended by the client and resumed like one the server ended.
 */
import { afterEach, describe, expect, it, vi } from 'vitest';
import {
  startReflector,
  WatchExpiredError,
  type ListWatch,
  type Reflector,
  type WatchEvent,
} from '../../../tools/kube/reflector.ts';
import type { JsonObject } from '../../../tools/kube/types.ts';

const pod = (name: string, resourceVersion: string, extra: JsonObject = {}): JsonObject => ({
  metadata: { name, namespace: 'shop', resourceVersion },
  ...extra,
});

/** Polls `check` every 10 ms until it holds (generous wait). */
async function until(check: () => boolean, what: string): Promise<void> {
  const deadline = Date.now() + 20_000;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A watch that yields `events`, then either ends, throws `error`, or stays open until aborted. */
function stream(
  events: WatchEvent[],
  end: 'end' | 'open' | Error,
  signal: AbortSignal,
): AsyncIterable<WatchEvent> {
  return (async function* () {
    for (const event of events) yield event;
    if (end instanceof Error) throw end;
    if (end === 'open') {
      await new Promise((_resolve, reject) =>
        signal.addEventListener('abort', () => reject(new Error('aborted')), { once: true }),
      );
    }
  })();
}

interface Script {
  lists: { items: JsonObject[]; resourceVersion: string }[];
  /** Per watch call: its events and how it ends, or an error the call rejects with. */
  watches: ({ events: WatchEvent[]; end: 'end' | 'open' | Error } | Error)[];
}

function scripted(script: Script) {
  const calls: string[] = [];
  const listWatch: ListWatch = {
    async list() {
      calls.push('list');
      const next = script.lists.shift();
      if (!next) throw new Error('no more lists scripted');
      return next;
    },
    async watch(resourceVersion, signal) {
      calls.push(`watch ${resourceVersion}`);
      const next = script.watches.shift() ?? { events: [], end: 'open' as const };
      if (next instanceof Error) throw next;
      return stream(next.events, next.end, signal);
    },
  };
  return { listWatch, calls };
}

describe('startReflector', () => {
  let reflector: Reflector | undefined;
  afterEach(() => reflector?.stop());
  const fast = { minDelayMs: 1, maxDelayMs: 5 };

  it('lists, then watches from the list version and applies events in order', async () => {
    const { listWatch, calls } = scripted({
      lists: [{ items: [pod('b', '10'), pod('a', '9')], resourceVersion: '10' }],
      watches: [
        {
          events: [
            { type: 'ADDED', object: pod('c', '11') },
            { type: 'MODIFIED', object: pod('a', '12', { spec: { x: 1 } }) },
            { type: 'DELETED', object: pod('b', '13') },
          ],
          end: 'open',
        },
      ],
    });
    reflector = startReflector({ listWatch, backoff: fast });
    await reflector.whenSynced();
    await until(() => reflector!.resourceVersion === '13', 'the events');
    expect(calls).toEqual(['list', 'watch 10']);
    expect(reflector.items().map((item) => (item.metadata as { name: string }).name)).toEqual(['a', 'c']);
    expect(reflector.get('a')).toMatchObject({ spec: { x: 1 } });
    expect(reflector.synced).toBe(true);
  });

  it('re-watches from the last version seen (bookmark) after a disconnect, without listing again', async () => {
    const { listWatch, calls } = scripted({
      lists: [{ items: [pod('a', '5')], resourceVersion: '5' }],
      watches: [
        {
          events: [
            { type: 'MODIFIED', object: pod('a', '7') },
            { type: 'BOOKMARK', object: { metadata: { resourceVersion: '9' } } },
          ],
          end: new Error('socket hang up'),
        },
        new Error('ECONNREFUSED'),
      ],
    });
    const errors: unknown[] = [];
    reflector = startReflector({ listWatch, backoff: fast, onError: (error) => errors.push(error) });
    await until(() => calls.length >= 4, 'the re-watches');
    expect(calls.slice(0, 4)).toEqual(['list', 'watch 5', 'watch 9', 'watch 9']);
    expect(errors.map((error) => (error as Error).message)).toEqual(['socket hang up', 'ECONNREFUSED']);
    await reflector.whenSynced();
    expect(reflector.get('a')).toMatchObject({ metadata: { resourceVersion: '7' } });
  });

  it('lists again after 410 Gone, as an ERROR event or as the watch call failing', async () => {
    const { listWatch, calls } = scripted({
      lists: [
        { items: [pod('a', '5')], resourceVersion: '5' },
        { items: [pod('b', '50')], resourceVersion: '50' },
        { items: [pod('c', '60')], resourceVersion: '60' },
      ],
      watches: [
        { events: [{ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } }], end: 'end' },
        new WatchExpiredError(),
      ],
    });
    reflector = startReflector({ listWatch, backoff: fast });
    await until(() => calls.length >= 6, 'the relists');
    expect(calls.slice(0, 6)).toEqual(['list', 'watch 5', 'list', 'watch 50', 'list', 'watch 60']);
    await reflector.whenSynced();
    expect(reflector.items().map((item) => (item.metadata as { name: string }).name)).toEqual(['c']);
  });

  it('is not synced while it reconnects, and stops for good', async () => {
    let release: () => void = () => {};
    const held = new Promise<void>((resolve) => (release = resolve));
    const listWatch: ListWatch = {
      list: async () => ({ items: [pod('a', '1')], resourceVersion: '1' }),
      watch: async () => {
        await held;
        return stream([], 'open', new AbortController().signal);
      },
    };
    reflector = startReflector({ listWatch, backoff: fast });
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(reflector.synced).toBe(false); // listed, but no watch connected yet
    release();
    await reflector.whenSynced();
    expect(reflector.synced).toBe(true);
    reflector.stop();
    expect(reflector.synced).toBe(false);
    expect(reflector.items()).toEqual([]);
  });

  it('tells each state change once (synced, lost once per outage, synced again, relist), and counts', async () => {
    const { listWatch, calls } = scripted({
      lists: [
        { items: [pod('a', '5')], resourceVersion: '5' },
        { items: [pod('a', '20')], resourceVersion: '20' },
      ],
      watches: [
        // A routine end (timeout) after an event: re-watched, nothing to tell.
        { events: [{ type: 'MODIFIED', object: pod('a', '6') }], end: 'end' },
        { events: [], end: new Error('socket hang up') },
        new Error('ECONNREFUSED'),
        { events: [{ type: 'ERROR', object: { kind: 'Status', code: 410, reason: 'Expired' } }], end: 'end' },
      ],
    });
    const changes: string[] = [];
    reflector = startReflector({
      listWatch,
      backoff: fast,
      onStateChange: (change) =>
        changes.push(change.state === 'lost' ? `lost: ${(change.error as Error).message}` : change.state),
    });
    await until(() => calls.length >= 7, 'the relist and its watch');
    await reflector.whenSynced();
    expect(calls).toEqual(['list', 'watch 5', 'watch 6', 'watch 6', 'watch 6', 'list', 'watch 20']);
    expect(changes).toEqual(['synced', 'lost: socket hang up', 'synced', 'relist']);
    expect(reflector.counts).toEqual({ lists: 2, relists: 1, watches: 4, failures: 2, idleRestarts: 0 });
  });

  it('ends a watch silent for watchIdleMs (half-open: it ignores the abort too), unsynced until it resumes from its last version', async () => {
    let release: () => void = () => {};
    const gate = new Promise<void>((resolve) => (release = resolve));
    let wake: () => void = () => {};
    const late = new Promise<void>((resolve) => (wake = resolve));
    const calls: string[] = [];
    const listWatch: ListWatch = {
      list: async () => {
        calls.push('list');
        return { items: [pod('a', '5')], resourceVersion: '5' };
      },
      async watch(resourceVersion, signal) {
        calls.push(`watch ${resourceVersion}`);
        if (calls.length === 2) {
          // One event, then nothing (deaf to the abort) until, long after, a stale straggler.
          return (async function* () {
            yield { type: 'MODIFIED', object: pod('a', '6') };
            await late;
            yield { type: 'MODIFIED', object: pod('a', '7', { spec: { stale: true } }) };
            await new Promise(() => {});
          })();
        }
        // The reconnect: held until the test has seen the reflector unsynced, then the change
        // made while the old stream was dead.
        await gate;
        return stream([{ type: 'MODIFIED', object: pod('a', '8', { spec: { x: 2 } }) }], 'open', signal);
      },
    };
    const changes: string[] = [];
    reflector = startReflector({
      listWatch,
      backoff: fast,
      watchIdleMs: 200,
      onStateChange: (change) => changes.push(change.state),
    });
    await reflector.whenSynced();
    await until(() => calls.includes('watch 6'), 'the watch ended for its silence and resumed');
    expect(reflector.synced).toBe(false); // reads go to the API server meanwhile
    expect(reflector.counts).toMatchObject({ idleRestarts: 1, failures: 0 });
    release();
    await until(() => reflector!.get('a')?.spec !== undefined, 'the change made while it was dead');
    expect(reflector.synced).toBe(true);
    expect(reflector.get('a')).toMatchObject({ metadata: { resourceVersion: '8' }, spec: { x: 2 } });
    expect(calls.filter((call) => call === 'list')).toHaveLength(1); // resumed, not relisted
    expect(changes).toEqual(['synced', 'idle']); // the routine resumption is not told again
    // The abandoned stream's straggler never reaches the copy.
    wake();
    await new Promise((resolve) => setTimeout(resolve, 50));
    expect(reflector.get('a')).toMatchObject({ metadata: { resourceVersion: '8' }, spec: { x: 2 } });
  });

  it('keeps a watch that delivers within watchIdleMs, and tells one idle per silent spell', async () => {
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'performance'] });
    try {
      let push: (event: WatchEvent) => void = () => {};
      const calls: string[] = [];
      const listWatch: ListWatch = {
        list: async () => ({ items: [pod('a', '1')], resourceVersion: '1' }),
        async watch(resourceVersion) {
          calls.push(`watch ${resourceVersion}`);
          return (async function* () {
            while (true) yield await new Promise<WatchEvent>((resolve) => (push = resolve));
          })();
        },
      };
      const changes: string[] = [];
      reflector = startReflector({
        listWatch,
        backoff: fast,
        watchIdleMs: 1000,
        onStateChange: (change) => changes.push(change.state),
      });
      await reflector.whenSynced();
      for (const version of ['2', '3', '4']) {
        await vi.advanceTimersByTimeAsync(900);
        push({ type: 'BOOKMARK', object: { metadata: { resourceVersion: version } } });
        await vi.advanceTimersByTimeAsync(0);
      }
      expect(calls).toEqual(['watch 1']); // 2.7 s, never 1 s silent
      await vi.advanceTimersByTimeAsync(1000);
      expect(calls).toEqual(['watch 1', 'watch 4']);
      // Still quiet: it re-watches each second, telling nothing more.
      await vi.advanceTimersByTimeAsync(3000);
      expect(calls.length).toBeGreaterThanOrEqual(4);
      expect(reflector.counts.idleRestarts).toBe(calls.length - 1);
      expect(changes).toEqual(['synced', 'idle']);
      // An event ends the silent spell; the next silence is told again.
      push({ type: 'MODIFIED', object: pod('a', '9') });
      await vi.advanceTimersByTimeAsync(0);
      await vi.advanceTimersByTimeAsync(1000);
      expect(changes).toEqual(['synced', 'idle', 'idle']);
      expect(reflector.counts.failures).toBe(0);
    } finally {
      reflector?.stop();
      vi.useRealTimers();
    }
  });
});
