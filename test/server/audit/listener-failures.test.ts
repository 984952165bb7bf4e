/**
 * The audit listeners never throw into the gate or the pipeline: a write the log refuses, or an
 * entry that cannot be built, is logged as `audit record not written` with what identifies the
 * event, and reported to `onWriteError`.
 */
import type { Logger } from 'pino';
import { describe, expect, it, vi } from 'vitest';
import { auditRejectionListener } from '../../../server/audit/index.ts';
import type { RejectedCall } from '../../../server/pipeline.ts';
import { SentinelError } from '../../../tools/errors.ts';

const rejection = (at: Date): RejectedCall => ({
  at,
  requestId: 'req-7',
  identity: 'agent',
  tool: 'drop_database',
  reason: 'unknown_tool',
  error: new SentinelError('invalid_input', 'Unknown tool drop_database.'),
});

function capture() {
  const error = vi.fn();
  const onWriteError = vi.fn();
  return { logger: { error } as unknown as Logger, error, onWriteError };
}

describe('audit listeners on a failing write', () => {
  it('log a refused append with the call and report it, without throwing', async () => {
    const refusal = new Error('disk full');
    const appended: unknown[] = [];
    const log = {
      append: async (entry: unknown) => {
        appended.push(entry);
        throw refusal;
      },
    };
    const { logger, error, onWriteError } = capture();
    const listener = auditRejectionListener(log, { logger, onWriteError });
    expect(() => listener(rejection(new Date('2026-12-02T03:00:00Z')))).not.toThrow();
    // The append is not awaited by the listener: let its rejection settle (microtasks, then this).
    await new Promise((resolve) => setImmediate(resolve));
    expect(onWriteError).toHaveBeenCalledWith(refusal);
    expect(appended).toEqual([
      expect.objectContaining({ kind: 'tool_call', tool: 'drop_database', outcome: 'rejected' }),
    ]);
    expect(error).toHaveBeenCalledWith(
      { err: refusal, tool: 'drop_database', requestId: 'req-7' },
      'audit record not written',
    );
  });

  it('log an entry that cannot be built, appending nothing', () => {
    const append = vi.fn();
    const { logger, error, onWriteError } = capture();
    const listener = auditRejectionListener({ append }, { logger, onWriteError });
    // An `at` that is not a Date: the entry's time cannot be written.
    expect(() => listener(rejection({} as Date))).not.toThrow();
    expect(append).not.toHaveBeenCalled();
    expect(onWriteError).toHaveBeenCalledWith(expect.any(TypeError));
    expect(error).toHaveBeenCalledWith(
      expect.objectContaining({ tool: 'drop_database', requestId: 'req-7' }),
      'audit record not written',
    );
  });
});
