/**
 * The second approved step of a StatefulSet rollback, the "forced rollback" of the StatefulSet docs:
 * when verification finds the rollout still progressing, the StatefulSet's Pods are listed by name,
 * and if an OrderedReady controller is stuck on a Pod of the bad revision
 * (./playbook/forced-rollback.ts), that exact Pod is deleted with `delete_pod` — previewed, held
 * for its own approval, with its own evidence line — so the controller recreates it at the restored
 * revision. One such deletion per investigation; its steps are named by the verification attempt,
 * so a resumed run finds them saved and repeats nothing.
 */
import { parseStructured, PodsSchema, RemediationPreviewSchema } from './evidence.ts';
import type { FollowUp, Investigation, Step } from './model.ts';
import { findStuckPod, podNameSelector, type StatefulSetStatus } from './playbook/forced-rollback.ts';
import { describeCall, type PlannedCall } from './steps.ts';

/** Longest `reason` a remediation call carries (the tools accept 500 characters). */
const MAX_REASON = 500;

/** Runs (or resumes) the investigation's step `name` with `calls`; see investigate.ts. */
export type StepRunner = (name: string, calls: () => PlannedCall[]) => Promise<Step>;

export interface ForcedRollbackContext {
  run: StepRunner;
  save(): void;
  progress(line: string): void;
  /** Sets the follow-up's status, decision and outcome from its executed step (investigate.ts). */
  settle(action: FollowUp, step: Step): Promise<void>;
}

/**
 * After verification poll `attempt` of StatefulSet `name` found `status` progressing: lists its Pods
 * and, when one holds the rollback, proposes deleting it and waits for the decision. Returns true
 * when the deletion ran now, false when none was needed, it was decided before, or it did not run
 * (each proposal recorded in `inv.follow_ups`). Throws what the steps throw (unreachable server, interrupted wait).
 */
export async function forceRollback(
  inv: Investigation,
  context: ForcedRollbackContext,
  name: string,
  status: StatefulSetStatus,
  attempt: number,
): Promise<boolean> {
  const saved = inv.follow_ups.find((f) => f.purpose === 'forced_rollback');
  // Decided already (this run or before a restart): one forced rollback per investigation.
  if (saved && saved.status !== 'previewed' && saved.status !== 'awaiting_approval') return false;
  const { namespace } = inv;
  const listed = await context.run(`forced-rollback:pods:${attempt}`, () => [
    {
      tool: 'list_pods',
      arguments: { namespace, label_selector: podNameSelector(name, status.replicas.desired) },
    },
  ]);
  const listCall = listed.calls[0]!;
  const pods = parseStructured(PodsSchema, listCall.structured)?.pods;
  const stuck = pods && findStuckPod(namespace, name, status, pods);
  if (!stuck) return false;
  context.progress(`Forced rollback: ${stuck.line}`);

  const target = { namespace, name: stuck.pod };
  const previewStep = await context.run('forced-rollback:preview', () => [
    { tool: 'delete_pod', arguments: { ...target, dry_run: true } },
  ]);
  const previewCall = previewStep.calls[0]!;
  const preview = parseStructured(RemediationPreviewSchema, previewCall.structured);
  const followUp: FollowUp = saved ?? {
    purpose: 'forced_rollback',
    tool: 'delete_pod',
    arguments: target,
    status: 'previewed',
    preview: preview?.summary ?? null,
    approval_request_id: null,
    decided_by: null,
    requested_by: null,
    decision_reason: null,
    outcome: null,
    warnings: preview?.warnings ?? [],
    evidence: [{ source: describeCall(listCall), line: stuck.line }],
  };
  if (!saved) inv.follow_ups.push(followUp);
  context.save();
  if (previewCall.status !== 'succeeded' || !preview || preview.status === 'no_op') {
    followUp.status = 'failed';
    followUp.outcome = preview?.summary ?? previewCall.text?.split('\n')[0] ?? 'the dry run gave no preview';
    context.save();
    return false;
  }
  context.progress(`Proposed: ${preview.summary}`);
  for (const warning of preview.warnings) context.progress(`  Warning: ${warning.message}`);
  const reason = `Forced rollback of StatefulSet ${namespace}/${name}: ${stuck.line}`;
  const deleted = await context.run('forced-rollback', () => [
    {
      tool: 'delete_pod',
      arguments: {
        ...target,
        reason: reason.length > MAX_REASON ? `${reason.slice(0, MAX_REASON - 1)}…` : reason,
      },
    },
  ]);
  await context.settle(followUp, deleted);
  context.save();
  return followUp.status === 'executed';
}
