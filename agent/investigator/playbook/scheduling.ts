/**
 * Pending Pods. When the newest revision rolled out recently and raised its requests or changed its
 * placement (node selector, affinity, tolerations), the change is the cause: roll back to the newest
 * healthy revision, naming the field old → new. Otherwise the cluster lacks room: refused, since
 * neither a rollback nor a restart creates capacity.
 */
import { decision, minutesAgo, revisionLabel, rollbackTo, type FailureClass } from './context.ts';
import { describeChange, noteChange, schedulingChanges } from './facts.ts';

export const scheduling: FailureClass = (a) => {
  if (a.cause !== 'unschedulable') return undefined;
  const changes = schedulingChanges(a);
  const reason = a.events.find((e) => e.reason === 'FailedScheduling')?.message;
  if (reason) a.facts.scheduling_message = reason.slice(0, 200);
  if (a.newest && a.recentChange && changes.length > 0) {
    noteChange(a, changes);
    const changed = changes.map(describeChange).join(', ');
    a.facts.failure = 'change_unschedulable';
    if (!a.target) {
      return decision(
        a,
        'refused',
        `${a.what} since revision ${a.newest.revision} changed ${changed}, and no earlier revision is known to be healthy.`,
        'The change made the Pods unschedulable, but no earlier revision has a healthy record to return to. Revert the change (fix forward).',
        { refusal: 'no-healthy-revision' },
      );
    }
    return decision(
      a,
      'rollback',
      `${a.what}: revision ${a.newest.revision}, rolled out ${minutesAgo(a.now, a.rolledOut)}, changed ${changed}${reason ? ` (FailedScheduling: ${reason.slice(0, 120)})` : ''}; ${revisionLabel(a.target)} was healthy.`,
      `The Pods are Pending because of the change, not because the cluster shrank: only the new revision's Pods cannot be placed. Rolling back to revision ${a.target.revision} restores the template that fit.`,
      { remediation: rollbackTo(a, a.target.revision) },
    );
  }
  return decision(
    a,
    'refused',
    `${a.what}: the cluster has no room for them (or no node matches their constraints).`,
    'Neither a rollback nor a restart creates capacity: free resources, add nodes, or lower the Pods’ requests.',
    { refusal: 'unschedulable' },
  );
};
