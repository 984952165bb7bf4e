/**
 * A failing newest revision that rolled out recently, with failures that began after it: roll back
 * to the newest revision demonstrably healthy (never merely "the previous one"); with none, refused.
 */
import { decision, minutesAgo, revisionLabel, rollbackTo, type FailureClass } from './context.ts';
import { exactDiagnosis } from './facts.ts';

export const rollout: FailureClass = (a) => {
  const { newest } = a;
  if (!newest || !a.recentChange) return undefined;
  const exact = exactDiagnosis(a);
  const skipped = a.history.filter(
    (r) => r.revision < newest.revision && a.target && r.revision > a.target.revision,
  );
  const skippedText = skipped.length
    ? ` Revision ${skipped.map((r) => r.revision).join(', ')} ${skipped.length > 1 ? 'are' : 'is'} skipped: ${skipped.map((r) => `revision ${r.revision} ${r.health?.state === 'failed' ? `failed too (${r.health.failures.slice(0, 2).join('; ')})` : 'has no healthy record'}`).join('; ')}.`
    : '';
  const skippedShort = skipped.length
    ? `; revision ${skipped.map((r) => r.revision).join(', ')} ${skipped.some((r) => r.health?.state === 'failed') ? 'failed too' : 'has no healthy record'}`
    : '';
  if (skipped.length > 0) a.facts.skipped_revisions = skipped.map((r) => r.revision).join(', ');
  if (a.target) {
    const healthy = a.target;
    return decision(
      a,
      'rollback',
      `${a.what} since its rollout ${minutesAgo(a.now, a.rolledOut)}${exact}${skippedShort}; ${revisionLabel(healthy)} was healthy.`,
      `Every failing Pod belongs to the newest revision ${newest.revision}, the failures began after it rolled out, and ${revisionLabel(healthy)} ${healthy.ready > 0 ? `still has ${healthy.ready} ready Pod(s)` : healthy.health ? `was healthy (${healthy.health.basis})` : 'served without failures before it'}: rolling back to revision ${healthy.revision} returns to a known-good template.${skippedText}`,
      { remediation: rollbackTo(a, healthy.revision) },
    );
  }
  return decision(
    a,
    'refused',
    `${a.what} since its rollout ${minutesAgo(a.now, a.rolledOut)}${exact}, and no earlier revision is known to be healthy.`,
    `A rollback needs an earlier revision that worked; none of the remaining revisions has ready Pods or a clean record.${skippedText} Fix forward.`,
    { refusal: 'no-healthy-revision' },
  );
};
