/**
 * `requestSignal`: one API request's signal, the request timeout joined with the tool call's
 * cancellation — the behaviour of `AbortSignal.any([AbortSignal.timeout(ms), caller])`.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { requestSignal } from '../../../tools/kube/cancellation.ts';

describe('requestSignal', () => {
  beforeEach(() => vi.useFakeTimers());
  afterEach(() => vi.useRealTimers());

  it('aborts with a TimeoutError DOMException once the timeout passes, as AbortSignal.timeout does', () => {
    const { signal } = requestSignal(10_000);
    vi.advanceTimersByTime(9_999);
    expect(signal.aborted).toBe(false);
    vi.advanceTimersByTime(1);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBeInstanceOf(DOMException);
    expect((signal.reason as DOMException).name).toBe('TimeoutError');
  });

  it("follows the caller's signal with the caller's reason", () => {
    const caller = new AbortController();
    const { signal } = requestSignal(10_000, caller.signal);
    const reason = new Error('MCP request cancelled');
    caller.abort(reason);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe(reason);
  });

  it('is aborted at once when the caller already was', () => {
    const caller = new AbortController();
    caller.abort('gone');
    const { signal } = requestSignal(10_000, caller.signal);
    expect(signal.aborted).toBe(true);
    expect(signal.reason).toBe('gone');
  });

  it('after release, neither the timeout nor the caller aborts it (no timer, no listener left)', () => {
    const caller = new AbortController();
    const { signal, release } = requestSignal(10_000, caller.signal);
    release();
    expect(vi.getTimerCount()).toBe(0);
    vi.advanceTimersByTime(20_000);
    caller.abort('late');
    expect(signal.aborted).toBe(false);
  });
});
