/**
 * The gate's decision as a truth table: `screen` (before the dry run) and `decide` (on the resolved
 * call, with the store's facts) are pure, so every row is one call of a function.
 */
import { describe, expect, it } from 'vitest';
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ApprovalRequest } from '../../../server/gate/approval-request.ts';
import {
  decide,
  needsStore,
  screen,
  type AskFacts,
  type ResolvedCall,
} from '../../../server/gate/decision.ts';
import type { Verdict } from '../../../server/gate/policy/evaluate.ts';
import type { StoredExecution } from '../../../server/gate/store/types.ts';

const verdict = (decision: Verdict['decision'], dryRun = false): Verdict => ({
  decision,
  rule: `rule-${decision}`,
  rules: [`rule-${decision}`],
  reason: 'r',
  validity: 'once',
  approvers: ['role:approver'],
  dryRun,
  scope: 's',
});
const freeze = { frozen: true, reason: 'incident', by: 'root', since: '2025-01-31T02:10:00.000Z' };
const earlier = { id: 'exe_1' } as StoredExecution;

describe('screen (before the dry run)', () => {
  const rows: [string, Parameters<typeof screen>[0], string | undefined][] = [
    ['an unregistered tool', { registered: false, verdict: verdict('allow'), changes: false }, 'deny'],
    ['a policy deny', { registered: true, verdict: verdict('deny'), changes: true }, 'deny'],
    ['an allowed read', { registered: true, verdict: verdict('allow'), changes: false }, 'allow'],
    [
      'an allowed read while frozen',
      { registered: true, verdict: verdict('allow'), changes: false, freeze },
      'allow',
    ],
    [
      'an allowed change while frozen',
      { registered: true, verdict: verdict('allow'), changes: true, freeze },
      'frozen',
    ],
    [
      'an asked change while frozen',
      { registered: true, verdict: verdict('ask'), changes: true, freeze },
      'frozen',
    ],
    [
      'an asked preview while frozen',
      { registered: true, verdict: verdict('ask', true), changes: false, freeze },
      undefined,
    ],
    [
      'a used idempotency key',
      { registered: true, verdict: verdict('ask'), changes: true, earlier },
      'replay_refused',
    ],
    [
      'frozen beats a used key',
      { registered: true, verdict: verdict('ask'), changes: true, freeze, earlier },
      'frozen',
    ],
    ['an allowed change', { registered: true, verdict: verdict('allow'), changes: true }, undefined],
    ['an asked change', { registered: true, verdict: verdict('ask'), changes: true }, undefined],
  ];
  it.each(rows)('%s → %s', (_name, facts, kind) => {
    expect(screen(facts)?.kind).toBe(kind);
  });
  it('runs an allowed read as it is, without executing', () => {
    expect(screen({ registered: true, verdict: verdict('allow'), changes: false })).toMatchObject({
      kind: 'allow',
      execute: false,
    });
  });
});

const effect = { generation: 7 };
const preview = (e: unknown = effect, status = 'preview'): CallToolResult => ({
  content: [{ type: 'text', text: 'p' }],
  structuredContent: { status, effect: e },
});
const resolvedCall = (
  v: Verdict,
  options: { effect?: unknown; noOp?: boolean; key?: string } = {},
): ResolvedCall => ({
  verdict: v,
  resolution: {
    arguments: { name: 'web' },
    preview: { summary: 's', changes: [], warnings: [], effect: options.effect ?? effect, text: 'p' },
  },
  preview: preview(options.effect ?? effect, options.noOp ? 'no_op' : 'preview'),
  resolvedKey: options.key ?? 'k',
});
const request = (over: Partial<ApprovalRequest> = {}): ApprovalRequest =>
  ({
    id: 'apr_1',
    status: 'approved',
    arguments: { name: 'web' },
    preview: { summary: 's', changes: [], warnings: [], effect, text: 'p' },
    grant: { validity: 'once', expires_at: '2025-01-31T03:00:00.000Z' },
    executions: [],
    ...over,
  }) as ApprovalRequest;
const windowRequest = request({ grant: { validity: { window: '15m' } } as ApprovalRequest['grant'] });
const ask = verdict('ask');
const none: AskFacts = { upstream: false };
const tool = { supportsDryRun: true, approvedKey: 'k' };

describe('decide (on the resolved call)', () => {
  const rows: [string, ResolvedCall, AskFacts | undefined, string][] = [
    ['a failing dry run', { verdict: ask, failed: preview() }, undefined, 'unresolvable'],
    ['a deny as resolved', resolvedCall(verdict('deny')), undefined, 'deny'],
    ['an allow as resolved', resolvedCall(verdict('allow')), undefined, 'allow'],
    ['an ask with nothing stored', resolvedCall(ask), none, 'hold'],
    ['an ask whose preview shows nothing to do', resolvedCall(ask, { noOp: true }), none, 'no_change'],
    [
      'a preview-only ask that fails',
      resolvedCall(verdict('ask', true)),
      { ...none, previewOnly: { ...preview(), isError: true } },
      'preview',
    ],
    [
      'a preview-only ask that shows nothing',
      resolvedCall(verdict('ask', true)),
      { ...none, previewOnly: preview(effect, 'no_op') },
      'preview',
    ],
    [
      'a human denial',
      resolvedCall(ask),
      { ...none, denial: request({ status: 'denied' }) },
      'denied_before',
    ],
    [
      'an executing approved call',
      resolvedCall(ask),
      { ...none, approved: { request: request({ status: 'executing' }), standing: 'stands' } },
      'in_progress',
    ],
    [
      'an approved call whose approver cannot be checked',
      resolvedCall(ask),
      { ...none, approved: { request: request(), standing: 'unknown' } },
      'standing_unknown',
    ],
    [
      'an approved once grant, target unchanged',
      resolvedCall(ask),
      { ...none, approved: { request: request(), standing: 'stands' } },
      'run_once_grant',
    ],
    [
      'an approved once grant, target changed',
      resolvedCall(ask, { effect: { generation: 8 } }),
      { ...none, approved: { request: request(), standing: 'stands' } },
      'stale',
    ],
    [
      'an approved window request matched by the call',
      resolvedCall(ask),
      { ...none, approved: { request: windowRequest, standing: 'stands' } },
      'run_window_grant',
    ],
    [
      'a window grant by scope',
      resolvedCall(ask),
      { ...none, window: { request: windowRequest, standing: 'stands' } },
      'run_window_grant',
    ],
    [
      'a window grant whose approver cannot be checked',
      resolvedCall(ask),
      { ...none, window: { request: windowRequest, standing: 'unknown' } },
      'standing_unknown',
    ],
    ['a trusted identity', resolvedCall(ask), { upstream: true }, 'run_upstream'],
    [
      'a trusted identity with a window grant',
      resolvedCall(ask),
      { upstream: true, window: { request: windowRequest, standing: 'stands' } },
      'run_window_grant',
    ],
    [
      'a denial beats a grant',
      resolvedCall(ask),
      {
        ...none,
        denial: request({ status: 'denied' }),
        approved: { request: request(), standing: 'stands' },
      },
      'denied_before',
    ],
  ];
  it.each(rows)('%s → %s', (_name, resolved, facts, kind) => {
    expect(decide(resolved, facts, tool).kind).toBe(kind);
  });

  it('names the stale difference, and leaves the check to a fresh preview when the call resolved to another one', () => {
    const approved = { ...none, approved: { request: request(), standing: 'stands' as const } };
    expect(decide(resolvedCall(ask, { effect: { generation: 8 } }), approved, tool)).toMatchObject({
      kind: 'stale',
      difference: 'generation: 7 → 8',
    });
    expect(decide(resolvedCall(ask, { key: 'other' }), approved, tool)).toMatchObject({
      kind: 'run_once_grant',
      recheck: true,
    });
    expect(decide(resolvedCall(ask), approved, tool)).toMatchObject({
      kind: 'run_once_grant',
      recheck: false,
    });
  });

  it('checks no effect for a window grant that already ran, or a tool without a dry run', () => {
    const used = request({ ...windowRequest, executions: [{} as never] });
    const changed = resolvedCall(ask, { effect: { generation: 8 } });
    expect(decide(changed, { ...none, approved: { request: used, standing: 'stands' } }, tool).kind).toBe(
      'run_window_grant',
    );
    expect(
      decide(
        changed,
        { ...none, approved: { request: request(), standing: 'stands' } },
        { supportsDryRun: false },
      ).kind,
    ).toBe('run_once_grant');
  });

  it('consults the store only for an ask that resolved', () => {
    expect(needsStore(resolvedCall(ask))).toBe(true);
    expect(needsStore(resolvedCall(verdict('allow')))).toBe(false);
    expect(needsStore({ verdict: ask, failed: preview() })).toBe(false);
    expect(() => decide(resolvedCall(ask), undefined, tool)).toThrow(/needs the store facts/);
  });
});
