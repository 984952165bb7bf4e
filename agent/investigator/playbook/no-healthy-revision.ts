/**
 * Every revision failed: the failing Pods belong to several recent revisions (a rollout stuck
 * mid-way keeps Pods of the previous, also failing, revision), each rolled out within
 * `RECENT_CHANGE_MS` with failures only after the oldest of them, and every revision in the
 * history has a failed record (get_rollout_history's health). Nothing to roll back to, and it is
 * not "nothing changed recently" either: refused (`no-healthy-revision`), naming each revision's
 * failures. A single failing newest revision is the rollout class's (./rollout.ts). Pure.
 */
import { decision, minutesAgo, ms, RECENT_CHANGE_MS, revisionLabel, type FailureClass } from './context.ts';
import { exactDiagnosis } from './facts.ts';

export const noHealthyRevision: FailureClass = (a) => {
  const { newest, history } = a;
  if (!newest || a.recentChange || a.target || history.length < 2 || a.failing.length === 0) return undefined;
  if (!history.every((r) => r.current || r.health?.state === 'failed')) return undefined;
  const failing = history.filter((r) => a.failingRevisions.has(r.revision));
  if (failing.length !== a.failingRevisions.size) return undefined;
  const oldest = Math.min(...failing.map((r) => ms(r.created)));
  if (!Number.isFinite(oldest) || a.now - oldest > RECENT_CHANGE_MS) return undefined;
  if (Number.isFinite(a.failureStart) && a.failureStart < oldest) return undefined;
  const earlier = history
    .filter((r) => r.revision !== newest.revision)
    .sort((x, y) => x.revision - y.revision);
  const list = earlier.map((r) => r.revision).join(' and ');
  a.facts.skipped_revisions = earlier.map((r) => r.revision).join(', ');
  const exact = exactDiagnosis(a);
  const failures = earlier
    .map((r) => `revision ${r.revision} failed (${(r.health?.failures ?? []).slice(0, 2).join('; ')})`)
    .join('; ');
  return decision(
    a,
    'refused',
    `${a.what} since its rollout ${minutesAgo(a.now, ms(newest.created))}${exact}; revision${earlier.length > 1 ? 's' : ''} ${list} failed too, so no revision is known to be healthy.`,
    `Every revision in the history failed: ${failures}. A rollback needs an earlier revision that worked and ${revisionLabel(newest)} is the newest of several failing ones. Fix forward.`,
    { refusal: 'no-healthy-revision' },
  );
};
