/** Running Pods of an unchanged template that fail their readiness probes: stuck processes, restart them. */
import { decision, minutesAgo, type FailureClass } from './context.ts';
import { lowLoadNote } from './autoscaler-at-min.ts';

export const restart: FailureClass = (a) => {
  if (a.cause !== 'probe_failure' || !a.onlyNewest || a.recentChange) return undefined;
  return decision(
    a,
    'restart',
    `${a.what} since ${minutesAgo(a.now, a.failureStart)}, with no rollout since ${Number.isFinite(a.rolledOut) ? minutesAgo(a.now, a.rolledOut) : 'long before'}${lowLoadNote(a)}.`,
    'The template has not changed, so a rollback has nothing to return to; the containers are running but stuck (not ready). A rolling restart replaces them with fresh processes, one at a time.',
    {
      remediation: {
        tool: 'restart_service',
        arguments: { namespace: a.namespace, name: a.suspect.name },
      },
    },
  );
};
