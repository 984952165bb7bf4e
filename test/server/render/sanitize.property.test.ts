/**
 * Property (issue 13, finding 1): whatever strings an approval request carries — its preview (from
 * the cluster), arguments and reason (from the caller), rule, requester, decision, executions — the
 * approval block on the terminal, the list line, the approvals page's HTML and the notification
 * carry no ESC, BEL, C1 control, bidi control or other invisible format character: the renderer
 * makes them visible (`\x1b`, `\u202e`) before it HTML-escapes.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { ApprovalRequest } from '../../../server/gate/approval-request.ts';
import { renderApprovalHtml, renderApprovalLine, renderApprovalText } from '../../../server/render/index.ts';
import { approvalsPage, pageItem } from '../../../server/ui/page.ts';
import { approvalMessage } from '../../../server/notify/slack-message.ts';
import { FIXTURES, FIXTURE_NOW } from '../../helpers/approvals.ts';
import { FORBIDDEN } from '../../helpers/escapes.ts';
import { SKIPPED, injections, poison } from '../../helpers/poison.ts';

/** Runs of the property (each renders one poisoned request every way). */
export const NUM_RUNS = 300;

/** A decided, executed rollback request, so every optional line is rendered. */
const decided: ApprovalRequest = {
  ...FIXTURES.rollback_deployment,
  status: 'executed',
  decision: { decision: 'allow', by: 'alice', at: '2025-01-31T02:12:00.000Z', reason: 'looks right' },
  executions: [
    {
      id: 'exe_1',
      status: 'succeeded',
      started_at: '2025-01-31T02:12:10.000Z',
      outcome: 'rolled back to revision 6',
    },
  ] as ApprovalRequest['executions'],
  status_reason: 'ended',
} as ApprovalRequest;

/** Times and the enums the store's schema checks (status, risk, decision, validity) are left alone. */
const SKIP = new RegExp(`${SKIPPED.source}|^(status|risk|decision|validity)$`);

const requests = [...Object.values(FIXTURES), decided] as ApprovalRequest[];

describe('sanitizer property: approval renderings', () => {
  it(`no ESC, BEL, C1, bidi or invisible character reaches the approval block, the page or a notification (${NUM_RUNS} poisoned requests)`, () => {
    fc.assert(
      fc.property(fc.constantFrom(...requests), injections(), (request, plan) => {
        const poisoned = poison(request, plan, SKIP);
        const options = { now: FIXTURE_NOW };
        const item = pageItem(poisoned, FIXTURE_NOW);
        const outputs: [string, string][] = [
          ['approval text', renderApprovalText(poisoned, options)],
          ['approval line', renderApprovalLine(poisoned, options)],
          ['approval html', renderApprovalHtml(poisoned, options)],
          [
            'approvals page',
            approvalsPage({
              identity: 'alice',
              csrf: 'csrf',
              snapshot: { pending: [item], history: [item] },
            }),
          ],
          [
            'notification',
            JSON.stringify(approvalMessage(poisoned, 'https://sentinel.example/ui/approvals', options)),
          ],
        ];
        for (const [where, text] of outputs) {
          const found = FORBIDDEN.exec(text);
          expect(
            found,
            found
              ? `${where}: U+${found[0].codePointAt(0)!.toString(16)} in ${JSON.stringify(text.slice(Math.max(0, found.index - 30), found.index + 30))}`
              : '',
          ).toBeNull();
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });
});
