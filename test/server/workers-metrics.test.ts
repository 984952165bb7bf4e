/**
 * The primary's metrics relay (server/workers-metrics.ts) with stand-in workers: who is asked, what
 * the asker gets back, and what a worker that exits or stays silent does to a gathering. The real
 * processes are exercised in workers.test.ts.
 */
import type { Worker } from 'node:cluster';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { createMetricsRelay, type MetricsMessage } from '../../server/workers-metrics.ts';

/** A stand-in cluster worker recording what the primary sends it. */
function fakeWorker(name: string) {
  const sent: MetricsMessage[] = [];
  let connected = true;
  const worker = {
    name,
    isConnected: () => connected,
    send: (message: MetricsMessage) => void sent.push(message),
  } as unknown as Worker;
  return { worker, sent, disconnect: () => (connected = false) };
}

const gatherOf = (message: MetricsMessage | undefined) => {
  if (message?.sentinel !== 'metrics-collect') throw new Error(`not a collect: ${JSON.stringify(message)}`);
  return message.gather;
};

afterEach(() => vi.useRealTimers());

describe('the --workers metrics relay', () => {
  it('asks every listening worker, the asker too, and hands the asker all their answers', () => {
    const relay = createMetricsRelay();
    const [a, b, starting] = [fakeWorker('a'), fakeWorker('b'), fakeWorker('starting')];
    relay.listening(a.worker);
    relay.listening(b.worker);
    relay.receive(a.worker, { sentinel: 'metrics-request', id: 7 });
    // A worker that does not listen yet is not asked (it could not answer).
    expect(starting.sent).toEqual([]);
    const gather = gatherOf(a.sent[0]);
    expect(b.sent).toEqual([{ sentinel: 'metrics-collect', gather }]);
    relay.receive(b.worker, { sentinel: 'metrics-part', gather, metrics: ['b'] });
    expect(a.sent).toHaveLength(1);
    relay.receive(a.worker, { sentinel: 'metrics-part', gather, metrics: ['a'] });
    expect(a.sent[1]).toEqual({ sentinel: 'metrics-parts', id: 7, parts: [['b'], ['a']] });
    // A late or repeated answer changes nothing.
    relay.receive(b.worker, { sentinel: 'metrics-part', gather, metrics: ['b'] });
    expect(a.sent).toHaveLength(2);
  });

  it('stops waiting for a worker that exits, and drops the gathering of an asker that exits', () => {
    const relay = createMetricsRelay();
    const [a, b] = [fakeWorker('a'), fakeWorker('b')];
    relay.listening(a.worker);
    relay.listening(b.worker);
    relay.receive(a.worker, { sentinel: 'metrics-request', id: 1 });
    const gather = gatherOf(a.sent[0]);
    relay.receive(a.worker, { sentinel: 'metrics-part', gather, metrics: ['a'] });
    b.disconnect();
    relay.exited(b.worker);
    expect(a.sent[1]).toEqual({ sentinel: 'metrics-parts', id: 1, parts: [['a']] });

    relay.receive(a.worker, { sentinel: 'metrics-request', id: 2 });
    relay.exited(a.worker);
    expect(a.sent).toHaveLength(3); // the collect; no answer to a worker that is gone
  });

  it('answers the asker with an error when a worker stays silent past the timeout', () => {
    vi.useFakeTimers();
    const relay = createMetricsRelay(1_000);
    const [a, b] = [fakeWorker('a'), fakeWorker('b')];
    relay.listening(a.worker);
    relay.listening(b.worker);
    relay.receive(a.worker, { sentinel: 'metrics-request', id: 3 });
    relay.receive(a.worker, { sentinel: 'metrics-part', gather: gatherOf(a.sent[0]), metrics: [] });
    vi.advanceTimersByTime(1_000);
    expect(a.sent[1]).toEqual({ sentinel: 'metrics-parts', id: 3, error: '1 worker(s) did not answer' });
  });
});
