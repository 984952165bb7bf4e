import { describe, expect, it } from 'vitest';
import {
  annotationPatch,
  attributedPatch,
  attributionAnnotations,
  changeCause,
  withStamps,
} from '../../../tools/remediate/attribution.ts';

describe('attribution', () => {
  it('writes a one-line, redacted change-cause naming Sentinel and the approval request', () => {
    expect(
      changeCause({
        action: 'rollout restart',
        reason: 'stuck\nworkers; password=hunter2',
        approvalRequestId: 'apr-1',
        newRevision: true,
      }),
    ).toBe('rollout restart — stuck workers; password=[REDACTED] (sentinel, approval request apr-1)');
    expect(changeCause({ action: 'rollout restart', newRevision: true })).toBe('rollout restart (sentinel)');
  });

  it('cuts a long reason in the change-cause to 100 characters with an ellipsis, keeping it whole in sentinel.dev/reason', () => {
    const reason = `checkout 502s since 02:10.\r\nSteps:\n${'x'.repeat(300)}`;
    const stamps = attributionAnnotations({
      action: 'rollout restart',
      reason,
      approvalRequestId: 'apr-3',
      newRevision: true,
    });
    const quoted = `checkout 502s since 02:10. Steps: ${'x'.repeat(100 - 'checkout 502s since 02:10. Steps: '.length - 1)}…`;
    expect(quoted).toHaveLength(100);
    expect(stamps['kubernetes.io/change-cause']).toBe(
      `rollout restart — ${quoted} (sentinel, approval request apr-3)`,
    );
    expect(stamps['kubernetes.io/change-cause']).not.toMatch(/[\r\n]/);
    expect(stamps['sentinel.dev/reason']).toBe(`checkout 502s since 02:10. Steps: ${'x'.repeat(300)}`);
    // A reason of exactly 100 characters is not cut.
    expect(changeCause({ action: 'scale', reason: 'y'.repeat(100), newRevision: true })).toBe(
      `scale — ${'y'.repeat(100)} (sentinel)`,
    );
  });

  it('records the change-cause only for changes that make a new revision', () => {
    expect(attributionAnnotations({ action: 'scale', reason: 'load', newRevision: false })).toEqual({
      'sentinel.dev/reason': 'load',
    });
    expect(
      attributionAnnotations({ action: 'rollout restart', approvalRequestId: 'apr-2', newRevision: true }),
    ).toEqual({
      'sentinel.dev/approval-request-id': 'apr-2',
      'kubernetes.io/change-cause': 'rollout restart (sentinel, approval request apr-2)',
    });
  });

  it('removes stale sentinel.dev annotations so an old approval id never describes a new change', () => {
    const current = {
      'sentinel.dev/approval-request-id': 'apr-old',
      'sentinel.dev/reason': 'old',
      team: 'a',
    };
    expect(annotationPatch(current, { 'sentinel.dev/reason': 'new' })).toEqual({
      'sentinel.dev/approval-request-id': null,
      'sentinel.dev/reason': 'new',
    });
    expect(withStamps(current, { 'sentinel.dev/reason': 'new' })).toEqual({
      team: 'a',
      'sentinel.dev/reason': 'new',
    });
  });

  it('leaves a strategic patch exactly as kubectl sends it when there is nothing to record', () => {
    expect(attributedPatch({ paused: true }, { team: 'a' }, {})).toEqual({ spec: { paused: true } });
    expect(attributedPatch({ paused: true }, {}, { 'sentinel.dev/reason': 'x' })).toEqual({
      spec: { paused: true },
      metadata: { annotations: { 'sentinel.dev/reason': 'x' } },
    });
  });
});
