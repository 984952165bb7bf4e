import { describe, expect, it, vi } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { trackInFlight } from '../../server/in-flight.ts';
import type { ToolCall } from '../../server/pipeline.ts';

const call = {} as ToolCall;
const result: CallToolResult = { content: [] };

describe('calls in flight', () => {
  it('settles once every call returned, and at once when none runs', async () => {
    const tracker = trackInFlight();
    expect(await tracker.settled()).toBe(true);
    let finish!: () => void;
    const running = tracker.middleware(
      call,
      () => new Promise((resolve) => (finish = () => resolve(result))),
    );
    expect(tracker.size).toBe(1);
    let settled = false;
    const waiting = tracker.settled().then((done) => (settled = done));
    await Promise.resolve();
    expect(settled).toBe(false);
    finish();
    expect(await running).toBe(result);
    await waiting;
    expect(settled).toBe(true);
    expect(tracker.size).toBe(0);
  });

  it('gives up after the grace period and says so', async () => {
    vi.useFakeTimers();
    try {
      const tracker = trackInFlight();
      void tracker.middleware(call, () => new Promise<never>(() => {}));
      const warn = vi.fn();
      const waiting = tracker.settled({ timeoutMs: 1000, logger: { warn } as never });
      await vi.advanceTimersByTimeAsync(1000);
      expect(await waiting).toBe(false);
      expect(warn).toHaveBeenCalledWith({ calls: 1 }, 'shutting down with tool calls still running');
    } finally {
      vi.useRealTimers();
    }
  });
});
