/**
 * Pending by cause (agent/investigator/playbook/scheduling.ts): with no change behind it the class
 * refuses (`unschedulable`), naming the scheduler's reasons from the FailedScheduling message.
 */
import { describe, expect, it } from 'vitest';
import { decide } from '../../../../agent/investigator/playbook.ts';
import { schedulingReasons } from '../../../../agent/investigator/playbook/scheduling.ts';
import { event, NOW, pod, rev, sourced, suspect } from '../../../helpers/playbook.ts';

describe('scheduling class without a change', () => {
  it("refuses (unschedulable) with the scheduler's reasons as a fact", () => {
    const message =
      '0/3 nodes are available: 1 node(s) had untolerated taint {dedicated: gpu}, 2 Insufficient memory. preemption: 0/3 nodes are available: 3 No preemption victims found for incoming pod.';
    const decision = decide({
      namespace: 'shop',
      now: NOW,
      suspect: suspect('app', {
        pods: [pod('app-1-a', 1, 20, { state: 'waiting', reason: null, ready: false }, 'Pending')],
        events: sourced([event('app-1-a', 'FailedScheduling', message, 19)], 'list_events'),
        history: sourced([rev(1, 20, 0, { current: true })], 'get_rollout_history'),
      }),
    });
    expect(decision).toMatchObject({ action: 'refused', refusal: 'unschedulable', cause: 'unschedulable' });
    expect(decision.facts).toMatchObject({
      failure: 'unschedulable',
      scheduling_reasons: 'node(s) had untolerated taint {dedicated: gpu}; Insufficient memory',
    });
    expect(decision.diagnosis).toContain(
      'the scheduler finds no node (node(s) had untolerated taint {dedicated: gpu}; Insufficient memory)',
    );
  });

  it('reads the reasons of a FitError message, counts dropped', () => {
    expect(schedulingReasons('0/3 nodes are available: 3 Insufficient cpu.')).toEqual(['Insufficient cpu']);
    expect(
      schedulingReasons(
        "0/5 nodes are available: 2 Insufficient cpu, 3 node(s) didn't match Pod's node affinity/selector.",
      ),
    ).toEqual(['Insufficient cpu', "node(s) didn't match Pod's node affinity/selector"]);
    expect(schedulingReasons('pod has unbound immediate PersistentVolumeClaims')).toEqual([]);
  });
});
