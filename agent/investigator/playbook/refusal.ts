/** Whatever no other class remedies: refused, saying why (no recent change, or nothing the tools fix). */
import { decision, minutesAgo, type FailureClass } from './context.ts';
import { exactDiagnosis } from './facts.ts';

const EXPLANATION: Record<string, string> = {
  'oom-no-recent-change':
    'The containers exceed their memory limit, and nothing changed recently: a rollback returns to the same limit and a restart only resets the count. Raise the memory limit or fix the leak (look at the memory use before the kills).',
  'crash-no-recent-change':
    'The containers crash, and nothing changed recently: the cause is outside the template (a dependency, data, the environment). Neither a rollback nor a restart addresses it; the logs above say why they exit.',
  'not-fixable':
    'None of the remediations Sentinel can propose (rollback, restart) addresses this; see the evidence.',
};

export const refusal: FailureClass = (a) => {
  const refusal =
    a.cause === 'oom_killed'
      ? 'oom-no-recent-change'
      : a.cause === 'crash_loop' || a.cause === 'container_failed' || a.cause === 'liveness_kill'
        ? 'crash-no-recent-change'
        : 'not-fixable';
  const exact = exactDiagnosis(a);
  return decision(
    a,
    'refused',
    `${a.what}${Number.isFinite(a.failureStart) ? ` since ${minutesAgo(a.now, a.failureStart)}` : ''}${exact}; nothing changed recently.`,
    EXPLANATION[refusal]!,
    { refusal },
  );
};
