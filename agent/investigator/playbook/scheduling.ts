/**
 * Pending Pods. When the newest revision rolled out recently and raised its requests or changed its
 * placement (node selector, affinity, tolerations), the change is the cause: roll back to the newest
 * healthy revision, naming the field old → new. Otherwise the cluster lacks room: refused, since
 * neither a rollback nor a restart creates capacity.
 */
import { decision, minutesAgo, revisionLabel, rollbackTo, type FailureClass } from './context.ts';
import { describeChange, noteChange, schedulingChanges } from './facts.ts';
import { noteFailure } from './failures.ts';

export const scheduling: FailureClass = (a) => {
  if (a.cause !== 'unschedulable') return undefined;
  const changes = schedulingChanges(a);
  const reason = a.events.find((e) => e.reason === 'FailedScheduling')?.message;
  if (reason) a.facts.scheduling_message = reason.slice(0, 200);
  const reasons = reason ? schedulingReasons(reason) : [];
  if (reasons.length > 0) a.facts.scheduling_reasons = reasons.join('; ');
  if (a.newest && a.recentChange && changes.length > 0) {
    noteChange(a, changes);
    const changed = changes.map(describeChange).join(', ');
    noteFailure(a, 'change_unschedulable');
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
  noteFailure(a, 'unschedulable');
  return decision(
    a,
    'refused',
    `${a.what}: ${reasons.length > 0 ? `the scheduler finds no node (${reasons.join('; ')})` : 'the cluster has no room for them (or no node matches their constraints)'}, and no recent revision changed their requests or placement.`,
    'Neither a rollback nor a restart creates capacity: free resources, add nodes, or lower the Pods’ requests.',
    { refusal: 'unschedulable' },
  );
};

/**
 * The scheduler's reasons in a FailedScheduling message, without node counts and de-duplicated:
 * `0/3 nodes are available: 1 node(s) had untolerated taint {x: }, 2 Insufficient cpu. preemption: …`
 * → `node(s) had untolerated taint {x: }`, `Insufficient cpu` (the wording of
 * pkg/scheduler/framework's FitError: `0/N nodes are available: <count> <reason>, …`).
 */
export function schedulingReasons(message: string): string[] {
  const match = /nodes are available: (.*?)(?:\. preemption:|\.\s*$|$)/.exec(message);
  if (!match) return [];
  const reasons = match[1]!
    .split(/,\s*(?=\d+ )/)
    .map((part) => part.replace(/^\d+ /, '').trim())
    .filter(Boolean);
  return [...new Set(reasons)];
}
