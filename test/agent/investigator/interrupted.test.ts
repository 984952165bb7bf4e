/**
 * The lines an interrupted `sentinel investigate` prints (issue 18): real request ids, the page URL
 * and the exact commands — never a placeholder.
 */
import { describe, expect, it } from 'vitest';
import { interruptedLines } from '../../../agent/investigator/interrupted.ts';
import { newInvestigation, type Investigation } from '../../../agent/investigator/model.ts';

function waiting(ids: string[]): Investigation {
  const inv = newInvestigation({
    symptom: 'checkout returns 502',
    namespace: 'shop',
    server: { kind: 'url', url: 'http://127.0.0.1:7070/mcp' },
  });
  return { ...inv, status: 'awaiting_approval', pending_approval_ids: ids };
}

const context = { dataDir: '/data', defaultDataDir: '/home/me/.sentinel' };

describe('interruptedLines', () => {
  it('names each pending request, the page and the commands of the server that holds them', () => {
    const inv = waiting(['apr_00000000000000aa', 'apr_00000000000000bb']);
    expect(interruptedLines(inv, { ...context, server: 'http://127.0.0.1:7070/mcp' })).toBe(
      [
        'Still pending on the Sentinel server at http://127.0.0.1:7070: approval requests apr_00000000000000aa, apr_00000000000000bb (nothing has run).',
        'Decide on the approvals page http://127.0.0.1:7070/ui/approvals, or see it with:',
        '  npx sentinel approvals show apr_00000000000000aa --server http://127.0.0.1:7070 --data-dir /data',
        '  npx sentinel approvals show apr_00000000000000bb --server http://127.0.0.1:7070 --data-dir /data',
        `Resume with: npx sentinel investigate --resume ${inv.id} --data-dir /data`,
        '',
      ].join('\n'),
    );
  });

  it('with the default data directory, no --data-dir in the commands', () => {
    const inv = waiting(['apr_00000000000000aa']);
    const text = interruptedLines(inv, { dataDir: '/d', defaultDataDir: '/d', server: 'http://h:1' });
    expect(text).toContain('  npx sentinel approvals show apr_00000000000000aa --server http://h:1\n');
    expect(text).toContain(`Resume with: npx sentinel investigate --resume ${inv.id}\n`);
  });

  it('an in-process server that stopped: no command that cannot work, only the resume', () => {
    const text = interruptedLines(waiting(['apr_00000000000000aa']), { ...context, server: undefined });
    expect(text).toContain('apr_00000000000000aa');
    expect(text).toContain("the server was this command's own and has stopped: resume to decide");
    expect(text).not.toContain('approvals show');
    expect(text).toMatch(/Resume with: npx sentinel investigate --resume inv_\w+ --data-dir \/data\n$/);
  });

  it('nothing pending, or nothing started', () => {
    expect(interruptedLines(waiting([]), { ...context, server: 'http://h:1' })).toMatch(
      /^Investigation inv_\w+: nothing is pending on the server\.\nResume with: /,
    );
    expect(interruptedLines(undefined, { ...context, server: undefined })).toBe(
      'Stopped before the investigation started; nothing was saved.\n',
    );
  });
});
