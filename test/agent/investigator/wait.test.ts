import { describe, expect, it } from 'vitest';
import { waitForDecision } from '../../../agent/investigator/wait.ts';
import type { ApprovalsClient } from '../../../server/approvals-client.ts';

type ApprovalsApi = Pick<ApprovalsClient, 'get' | 'approve' | 'deny'>;
import type { ApprovalRequest } from '../../../server/gate/approval-request.ts';
import { approvalFixture } from '../../helpers/approvals.ts';
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
