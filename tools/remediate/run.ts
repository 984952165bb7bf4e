/**
 * Running a remediation plan: a dry run returns the plan as a preview; an execution sends the plan's
 * request (with Sentinel's attribution) and reports the new revision and the rollout status right
 * after. Both return the same `structuredContent` shape (`RemediationOutputSchema`) and compact text.
 */
import type { ToolContext, ToolOutput } from '../define-tool.ts';
import { SentinelError } from '../errors.ts';
import { moreLine, oneLine } from '../format/index.ts';
import { KubeApiError, rolloutVerdict, type Deployment } from '../kube/index.ts';
import { clusterLine } from '../investigate/common.ts';
import { attributionAnnotations, FIELD_MANAGER } from './attribution.ts';
import type { RemediationArgs } from './args.ts';
import {
  MAX_CHANGES,
  targetOf,
  type ObjectPlan,
  type PlanClients,
  type RemediationOutput,
  type RemediationPlan,
} from './plan.ts';
import { templateDiff } from './template-diff.ts';

/** Changes listed in the text before "N more". */
const MAX_TEXT_CHANGES = 50;

/**
 * Runs `plan` for a call: with `ctx.dryRun`, or when the plan is a no-op, nothing is sent and the
 * plan is returned (`status: 'preview'` or `'no_op'`); otherwise the plan's request is sent through
 * `ctx.writer` with the attribution annotations (reason, approval request id, change-cause) and
 * field manager `sentinel`, and the result carries the new revision and the rollout status right
 * after. Throws `SentinelError('internal')` when asked to execute without a writer (nothing is
 * sent), and whatever the plan's request throws (`conflict`, `forbidden`, ...).
 */
export async function runRemediation(
  plan: RemediationPlan | ObjectPlan,
  args: RemediationArgs,
  ctx: ToolContext,
): Promise<ToolOutput<RemediationOutput>> {
  const target = 'object' in plan ? targetOf(plan.object, plan.kind) : targetOf(plan.deployment);
  const base = {
    tool: plan.tool,
    dry_run: ctx.dryRun,
    summary: plan.summary,
    cluster: { context: ctx.cluster.context, server: ctx.cluster.server },
    target,
    resolved_arguments: plan.resolvedArguments,
    effect: plan.effect,
    changes: plan.changes.slice(0, MAX_CHANGES),
    ...(plan.changes.length > MAX_CHANGES && { changes_omitted: plan.changes.length - MAX_CHANGES }),
    warnings: plan.warnings,
    ...templateDiffField(plan),
    ...(plan.newRevision !== undefined && { new_revision: plan.newRevision }),
  };
  if (!plan.apply) return render({ ...base, status: 'no_op' }, plan);
  if (ctx.dryRun) return render({ ...base, status: 'preview' }, plan);
  if (!ctx.writer) {
    throw new SentinelError(
      'internal',
      `${plan.tool} was asked to change ${base.target.kind} ${base.target.namespace}/${base.target.name} without a Kubernetes writer; nothing was sent.`,
    );
  }
  const stamps = attributionAnnotations({
    action: plan.action,
    reason: args.reason,
    approvalRequestId: ctx.approvalRequestId,
    newRevision: plan.makesRevision,
  });
  const apply = plan.apply as (clients: PlanClients, stamps: Record<string, string>) => Promise<unknown>;
  const written = await apply({ writer: ctx.writer, reader: ctx.kube }, stamps).catch((error: unknown) => {
    throw outcomeUnknown(error) ? unknownOutcomeError(error, base.target) : error;
  });
  const status =
    'object' in plan
      ? plan.verdict && statusOf(plan.verdict(written as never))
      : statusOf(rolloutVerdict(written as Deployment));
  return render(
    {
      ...base,
      status: 'applied',
      ...(status && { rollout_status: status }),
      // a deleted Pod carries nothing: its attribution is the audit record
      ...(target.kind !== 'Pod' && { recorded: { field_manager: FIELD_MANAGER, annotations: stamps } }),
    },
    plan,
  );
}

/**
 * Whether a failed write may still have reached the cluster: no HTTP answer (timeout, connection
 * lost) or a 5xx, as opposed to a 4xx refusal, after which nothing changed.
 */
export function outcomeUnknown(error: unknown): error is KubeApiError {
  return (
    error instanceof KubeApiError &&
    (error.httpStatus === undefined || error.httpStatus >= 500) &&
    (error.code === 'timeout' || error.code === 'unavailable')
  );
}

function unknownOutcomeError(error: KubeApiError, target: RemediationOutput['target']): SentinelError {
  const ref = `${target.kind} ${target.namespace}/${target.name}`;
  return new SentinelError(
    error.code,
    `${error.message} The change may or may not have reached ${ref}: check it with ${target.kind === 'Deployment' ? 'get_deployment and get_rollout_status' : target.kind === 'Pod' ? 'list_pods' : `get_rollout_status (kind ${target.kind})`} before calling this again.`,
    { kind: target.kind, namespace: target.namespace, name: target.name, cause: error },
  );
}

function statusOf(verdict: {
  state: string;
  message: string;
  reason?: string;
}): NonNullable<RemediationOutput['rollout_status']> {
  return {
    state: verdict.state as NonNullable<RemediationOutput['rollout_status']>['state'],
    message: verdict.message,
    ...(verdict.reason !== undefined && { reason: verdict.reason }),
  };
}

const HEADINGS: Record<RemediationOutput['status'], string> = {
  preview: 'DRY RUN — nothing was changed. Preview:',
  applied: 'Done:',
  no_op: 'Nothing to do, nothing was sent:',
};

/** Compact text for the model plus the structured output. */
function render(
  output: RemediationOutput,
  plan: RemediationPlan | ObjectPlan,
): ToolOutput<RemediationOutput> {
  const { target } = output;
  const applied = output.status === 'applied';
  const restored = output.status === 'no_op' ? undefined : plan.restored;
  const summary = applied && restored ? restored.summary : output.summary;
  const lines = [clusterLine(output.cluster), `${HEADINGS[output.status]} ${summary}.`];
  if (output.new_revision !== undefined && restored) {
    lines.push(
      `Revision ${restored.revision} is renumbered: the ${target.kind} controller makes the restored template the newest revision, ${output.new_revision} (as after kubectl rollout undo); get_rollout_history ${applied ? 'lists' : 'will list'} it as ${output.new_revision}.`,
    );
  } else if (output.new_revision !== undefined && output.status !== 'no_op') {
    lines.push(
      `${applied ? 'It becomes' : 'It will become'} revision ${output.new_revision} (numbered by the ${target.kind} controller).`,
    );
  }
  if (output.changes.length > 0) {
    lines.push('Changes:');
    lines.push(...plan.changes.slice(0, MAX_TEXT_CHANGES).map((c) => `  - ${oneLine(c.text, 300)}`));
    if (plan.changes.length > MAX_TEXT_CHANGES) {
      lines.push(`  ${moreLine(plan.changes.length - MAX_TEXT_CHANGES, 'changes', 'see structuredContent')}`);
    }
  }
  if (output.warnings.length > 0) {
    lines.push('Warnings:');
    lines.push(...output.warnings.map((w) => `  - ${w.message}`));
  }
  if (output.status === 'preview') {
    lines.push(
      `Resolved call: ${output.tool} ${JSON.stringify(output.resolved_arguments)} — executing it makes exactly these changes, if ${target.kind} ${target.namespace}/${target.name} is unchanged by then.`,
    );
  }
  if (output.status === 'applied') {
    const recorded = Object.entries(output.recorded?.annotations ?? {})
      .map(([key, value]) => `${key}=${JSON.stringify(value)}`)
      .join('; ');
    if (output.recorded)
      lines.push(`Recorded: field manager ${FIELD_MANAGER}${recorded ? `; ${recorded}` : ''}.`);
    if (output.rollout_status) {
      lines.push(
        `Rollout status right after: ${output.rollout_status.state} — ${output.rollout_status.message}`,
      );
    }
    if (target.kind === 'Pod') {
      lines.push(`Verify with list_pods ${JSON.stringify({ namespace: target.namespace })}.`);
    } else {
      const kind = target.kind === 'Deployment' ? {} : { kind: target.kind };
      lines.push(
        `Verify with get_rollout_status ${JSON.stringify({ namespace: target.namespace, name: target.name, ...kind, wait_seconds: 30 })}, repeated until it is complete or failed.`,
      );
    }
  }
  return { text: lines.join('\n'), structured: output };
}

/** `{ template_diff }` when the plan rewrites the pod template and the diff is not empty, else `{}`. */
function templateDiffField(plan: RemediationPlan | ObjectPlan): { template_diff?: string } {
  if (!plan.templates) return {};
  const diff = templateDiff(plan.templates.from, plan.templates.to);
  return diff === '' ? {} : { template_diff: diff };
}
