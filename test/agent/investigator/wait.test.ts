import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { terminalPrompter } from '../../../agent/harness/prompter.ts';
import { waitForDecision } from '../../../agent/investigator/wait.ts';
import type { ApprovalsClient } from '../../../server/approvals-client.ts';

type ApprovalsApi = Pick<ApprovalsClient, 'get' | 'approve' | 'deny'>;
import type { ApprovalRequest } from '../../../server/gate/approval-request.ts';
import { approvalFixture, FIXTURES } from '../../helpers/approvals.ts';
import { SentinelError } from '../../../core/index.ts';
import { capture } from '../../helpers/incident.ts';

/** An approvals API whose request is pending for `pendingReads` reads, then approved. */
function approvedAfter(pendingReads: number): ApprovalsApi {
  let reads = 0;
  const request = (): ApprovalRequest =>
    approvalFixture({
      status: reads++ < pendingReads ? 'pending' : 'approved',
      expires_at: new Date(Date.now() + 60_000).toISOString(),
    });
  return {
    get: () => Promise.resolve(request()),
    approve: () => Promise.reject(new Error('not expected')),
    deny: () => Promise.reject(new Error('not expected')),
  };
}

describe('waitForDecision', () => {
  it('says once when the server is lost while it watches, and again when it is back', async () => {
    const progress = capture();
    let reads = 0;
    const approvals: ApprovalsApi = {
      get: () => {
        reads++;
        // Answers, then two failed reads (server killed), then pending once more, then approved.
        if (reads === 2 || reads === 3) {
          return Promise.reject(new SentinelError('unavailable', 'connect ECONNREFUSED 127.0.0.1:7070'));
        }
        return Promise.resolve(
          approvalFixture({
            status: reads >= 5 ? 'approved' : 'pending',
            expires_at: new Date(Date.now() + 60_000).toISOString(),
          }),
        );
      },
      approve: () => Promise.reject(new Error('not expected')),
      deny: () => Promise.reject(new Error('not expected')),
    };
    const decided = await waitForDecision('apr_0123456789abcdef', {
      approvals,
      mode: { kind: 'wait' },
      progress,
      pollMs: 1,
      serverUrl: 'http://127.0.0.1:7070/',
      investigationId: 'inv_0123456789abcdef',
    });
    expect(decided.status).toBe('approved');
    const text = progress.text();
    // The resume command names the real investigation: it works where printed.
    expect(text).toContain('then resume with `npx sentinel investigate --resume inv_0123456789abcdef`');
    expect(text).not.toContain('<id>');
    expect(
      text.match(
        /Lost the Sentinel server at http:\/\/127\.0\.0\.1:7070\/; approval request apr_0123456789abcdef stays pending there/g,
      ),
    ).toHaveLength(1);
    expect(
      text.match(
        /The Sentinel server at http:\/\/127\.0\.0\.1:7070\/ is back; still watching approval request apr_0123456789abcdef\./g,
      ),
    ).toHaveLength(1);
    expect(text.indexOf('Lost the Sentinel server')).toBeLessThan(text.indexOf('is back'));
  });

  it('on a file or pipe, says it is waiting in plain lines: no spinner frames, no escape codes', async () => {
    const progress = capture(); // not a TTY, like `2>file`
    const decided = await waitForDecision('apr_0123456789abcdef', {
      approvals: approvedAfter(2),
      mode: { kind: 'wait' },
      progress,
      pollMs: 1,
    });
    expect(decided.status).toBe('approved');
    const text = progress.text();
    expect(text).not.toContain('\u001b');
    expect(text).toContain(
      '\nWaiting for a decision on approval request apr_0123456789abcdef (Ctrl-C stops waiting, the request stays pending)\nApproval request apr_0123456789abcdef: approved\n',
    );
  });
});

describe('waitForDecision at a y/N prompt, the server lost and back', () => {
  it('asks the y/N question again once the server is back, and takes the answer typed after it', async () => {
    let reads = 0;
    let approved = false;
    // A write tool: the y/N question (a dangerous one asks for the name, tested below).
    const pending = () =>
      approvalFixture({
        ...(FIXTURES.pause_rollout as Partial<ApprovalRequest>),
        status: 'pending',
        expires_at: new Date(Date.now() + 60_000).toISOString(),
      });
    const api: ApprovalsApi = {
      get: () => {
        reads++;
        // The first read, then the server is killed for two polls, then it answers again.
        if (reads === 2 || reads === 3) {
          return Promise.reject(new SentinelError('unavailable', 'connect ECONNREFUSED 127.0.0.1:7070'));
        }
        return Promise.resolve(pending());
      },
      approve: () => {
        approved = true;
        return Promise.resolve(approvalFixture({ status: 'approved' }));
      },
      deny: () => Promise.reject(new Error('not expected')),
    };
    const input = new PassThrough();
    const stderr = capture(); // the question and the progress share stderr, as at a terminal
    const decided = waitForDecision('apr_0123456789abcdef', {
      approvals: api,
      mode: { kind: 'prompt', prompter: terminalPrompter(input, stderr) },
      progress: stderr,
      pollMs: 1,
      serverUrl: 'http://127.0.0.1:7070/',
    });
    while (!stderr.text().includes(' is back; '))
      await new Promise((resolveTick) => setTimeout(resolveTick, 5));
    await new Promise((resolveTick) => setImmediate(resolveTick));
    const afterBack = stderr.text().slice(stderr.text().indexOf(' is back; '));
    expect(afterBack).toContain('Approve this call? [y/N] ');
    input.write('y\n');
    expect((await decided).status).toBe('approved');
    expect(approved).toBe(true);
    expect(stderr.text().match(/Approve this call\? \[y\/N\] /g)).toHaveLength(2);
  });
});

describe('waitForDecision at a y/N prompt, decided elsewhere', () => {
  const decision = (decision: 'allow' | 'deny', by: string, reason: string | null) => ({
    decision,
    by,
    at: new Date().toISOString(),
    reason,
    admin_fallback: false,
  });

  it.each([
    [
      'approved',
      decision('allow', 'alice', null),
      'Approved elsewhere by alice (approvals page or `npx sentinel approvals`); the prompt is withdrawn.',
    ],
    [
      'denied',
      decision('deny', 'bob', 'not during the sale'),
      'Denied elsewhere by bob: not during the sale',
    ],
  ] as const)(
    'withdraws the prompt when the request is %s on the page, and a line typed later is not an answer',
    async (status, decided, line) => {
      let reads = 0;
      const api: ApprovalsApi = {
        get: () =>
          Promise.resolve(
            approvalFixture({
              status: reads++ < 2 ? 'pending' : status,
              decision: reads > 2 ? decided : null,
              expires_at: new Date(Date.now() + 60_000).toISOString(),
            }),
          ),
        approve: () => Promise.reject(new Error('the terminal must not decide')),
        deny: () => Promise.reject(new Error('the terminal must not decide')),
      };
      const input = new PassThrough();
      const prompter = terminalPrompter(input, capture());
      const progress = capture();
      const result = await waitForDecision('apr_0123456789abcdef', {
        approvals: api,
        mode: { kind: 'prompt', prompter },
        progress,
        pollMs: 1,
      });
      expect(result.status).toBe(status);
      expect(progress.text()).toContain(line);
      // The engineer types after the page decided: the withdrawn question does not take it, the next does not see it.
      input.write('y\n');
      await new Promise((resolveTick) => setImmediate(resolveTick)); // the stream delivers the line
      const next = prompter.ask('next question? ');
      input.write('second\n');
      expect(await next).toBe('second');
      prompter.close();
    },
  );
});

describe('waitForDecision interrupted at the decline reason', () => {
  it('Ctrl-C at "Reason for declining" stops with the request still pending: nothing is denied', async () => {
    const denied: string[] = [];
    const api: ApprovalsApi = {
      get: () =>
        Promise.resolve(
          approvalFixture({ status: 'pending', expires_at: new Date(Date.now() + 60_000).toISOString() }),
        ),
      approve: () => Promise.reject(new Error('not expected')),
      deny: (id) => {
        denied.push(id);
        return Promise.reject(new Error('an interrupt must not deny'));
      },
    };
    const input = new PassThrough();
    const prompts = capture();
    const prompter = terminalPrompter(input, prompts);
    const interrupt = new AbortController();
    const waiting = waitForDecision('apr_0123456789abcdef', {
      approvals: api,
      mode: { kind: 'prompt', prompter },
      progress: capture(),
      pollMs: 1,
      signal: interrupt.signal,
    });
    input.write('n\n');
    // Ctrl-C once the reason is being asked (the prompt is on the output).
    while (!prompts.text().includes('Reason for declining')) {
      await new Promise((resolveTick) => setImmediate(resolveTick));
    }
    interrupt.abort();
    const error = await waiting.then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(SentinelError);
    expect((error as SentinelError).code).toBe('timeout');
    expect((error as SentinelError).message).toContain('still pending');
    // Enter typed after the interrupt answers nothing.
    input.write('\n');
    await new Promise((resolveTick) => setImmediate(resolveTick));
    expect(denied).toEqual([]);
    prompter.close();
  });
});

describe('waitForDecision on a terminal with colours off', () => {
  it.each([
    ['NO_COLOR=1', { NO_COLOR: '1' }],
    ['FORCE_COLOR=0', { FORCE_COLOR: '0' }],
  ])('%s: no spinner frames or colour codes, the plain waiting line', async (_name, env) => {
    const progress = Object.assign(capture(), { isTTY: true });
    const saved = { NO_COLOR: process.env.NO_COLOR, FORCE_COLOR: process.env.FORCE_COLOR };
    Object.assign(process.env, env);
    try {
      const decided = await waitForDecision('apr_0123456789abcdef', {
        approvals: approvedAfter(2),
        mode: { kind: 'wait' },
        progress,
        pollMs: 1,
        serverUrl: 'http://127.0.0.1:7070/',
      });
      expect(decided.status).toBe('approved');
    } finally {
      for (const [name, value] of Object.entries(saved))
        if (value === undefined) delete process.env[name];
        else process.env[name] = value;
    }
    expect(progress.text()).not.toContain('\u001b');
    expect(progress.text()).toContain('Approval request apr_0123456789abcdef: approved\n');
  });
});

describe('waitForDecision on a dangerous request (the rule of `approvals approve` and the page)', () => {
  /** A pending request of `fixture`; approve/deny recorded. */
  function recorded(fixture: ApprovalRequest = approvalFixture()) {
    const calls: string[] = [];
    const pending = {
      ...fixture,
      status: 'pending' as const,
      expires_at: new Date(Date.now() + 60_000).toISOString(),
    };
    const api: ApprovalsApi = {
      get: () => Promise.resolve(structuredClone(pending)),
      approve: (id) => {
        calls.push(`approve ${id}`);
        return Promise.resolve({ ...pending, status: 'approved' });
      },
      deny: (id, reason) => {
        calls.push(`deny ${id}: ${reason}`);
        return Promise.resolve({ ...pending, status: 'denied' });
      },
    };
    return { api, calls };
  }

  it('at a terminal, "y" does not approve a rollback: the Deployment name typed does', async () => {
    const { api, calls } = recorded();
    const input = new PassThrough();
    const stderr = capture();
    const decided = waitForDecision('apr_0123456789abcdef', {
      approvals: api,
      mode: { kind: 'prompt', prompter: terminalPrompter(input, stderr) },
      progress: stderr,
      pollMs: 60_000,
    });
    input.write('y\n');
    while (!stderr.text().includes("is not 'checkout'")) await new Promise((tick) => setTimeout(tick, 5));
    expect(calls).toEqual([]);
    expect(stderr.text()).toContain(
      "Type 'checkout' to approve apr_0123456789abcdef (Enter or n declines): ",
    );
    expect(stderr.text()).not.toContain('[y/N]');
    expect(stderr.text()).toContain("'y' is not 'checkout': nothing was approved.");
    input.write('checkout\n');
    expect((await decided).status).toBe('approved');
    expect(calls).toEqual(['approve apr_0123456789abcdef']);
  });

  it('at a terminal, Enter declines a rollback and asks the reason, as "n" does at y/N', async () => {
    const { api, calls } = recorded();
    const input = new PassThrough();
    const stderr = capture();
    input.write('\nfix forward\n');
    const decided = await waitForDecision('apr_0123456789abcdef', {
      approvals: api,
      mode: { kind: 'prompt', prompter: terminalPrompter(input, stderr) },
      progress: stderr,
      pollMs: 60_000,
    });
    expect(decided.status).toBe('denied');
    expect(calls).toEqual(['deny apr_0123456789abcdef: fix forward']);
  });

  it('a write tool (pause) is still a y/N question', async () => {
    const { api, calls } = recorded(approvalFixture(FIXTURES.pause_rollout as Partial<ApprovalRequest>));
    const input = new PassThrough();
    const stderr = capture();
    input.write('y\n');
    const decided = await waitForDecision('apr_0123456789abcdef', {
      approvals: api,
      mode: { kind: 'prompt', prompter: terminalPrompter(input, stderr) },
      progress: stderr,
      pollMs: 60_000,
    });
    expect(decided.status).toBe('approved');
    expect(stderr.text()).toContain('[y/N]');
    expect(calls).toHaveLength(1);
  });

  it('--yes alone refuses a rollback (exit 2, field --confirm) and approves nothing', async () => {
    const { api, calls } = recorded();
    const error = await waitForDecision('apr_0123456789abcdef', {
      approvals: api,
      mode: { kind: 'auto-approve' },
      progress: capture(),
      pollMs: 60_000,
    }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(SentinelError);
    expect(error).toMatchObject({ code: 'invalid_input', field: '--confirm' });
    expect((error as Error).message).toContain('--yes approves it only with --confirm checkout');
    expect((error as Error).message).toContain('Nothing was approved; it stays pending.');
    const named = await waitForDecision('apr_0123456789abcdef', {
      approvals: api,
      mode: { kind: 'auto-approve' },
      progress: capture(),
      investigationId: 'inv_0123456789abcdef',
    }).catch((caught: unknown) => caught);
    expect((named as Error).message).toContain(
      'it stays pending: resume with `npx sentinel investigate --resume inv_0123456789abcdef --yes --confirm checkout`.',
    );
    expect(calls).toEqual([]);
    const wrong = await waitForDecision('apr_0123456789abcdef', {
      approvals: api,
      mode: { kind: 'auto-approve', confirm: ['payments'] },
      progress: capture(),
    }).catch((caught: unknown) => caught);
    expect((wrong as Error).message).toContain("(--confirm 'payments' is not it)");
    expect(calls).toEqual([]);
  });

  it('--yes --confirm <the name> approves it, and so does --yes on the embedded simulator', async () => {
    const named = recorded();
    await waitForDecision('apr_0123456789abcdef', {
      approvals: named.api,
      mode: { kind: 'auto-approve', confirm: ['checkout'] },
      progress: capture(),
    });
    expect(named.calls).toEqual(['approve apr_0123456789abcdef']);
    const simulated = recorded();
    await waitForDecision('apr_0123456789abcdef', {
      approvals: simulated.api,
      mode: { kind: 'auto-approve', simulated: true },
      progress: capture(),
    });
    expect(simulated.calls).toEqual(['approve apr_0123456789abcdef']);
  });
});
