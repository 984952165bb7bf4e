/** A tool's sentence embedded in the report's sentence keeps one full stop (fresh-user: "not run.."). */
import { describe, expect, it } from 'vitest';
import { asClause } from '../../../agent/investigator/report.ts';

describe('asClause', () => {
  it('drops the final full stops so the report adds exactly one', () => {
    const outcome = 'Approval request apr_1 is expired; the call was not run.';
    expect(`it did not run: ${asClause(outcome)}.`).toBe(
      'it did not run: Approval request apr_1 is expired; the call was not run.',
    );
    expect(asClause('fix forward instead.. ')).toBe('fix forward instead');
  });

  it('leaves text without a final full stop, and inner ones, as they are', () => {
    expect(asClause('image v1.2.3 not found')).toBe('image v1.2.3 not found');
    expect(asClause('')).toBe('');
  });
});
