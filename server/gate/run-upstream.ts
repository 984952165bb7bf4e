/**
 * Running a trusted identity's call on a verified harness approval (`trust_upstream_approval`):
 * the first matching allow no execution used becomes an approved request (decision by
 * `upstream:<identity>`, `client_ref` the harness tool call — unique, so it is consumed once, also
 * across restarts and token rotations, `upstream` the trust that let it run), which the execution
 * consumes like a once grant and stamps on the object.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ExecuteFn, ToolCall } from '../pipeline.ts';
import { clientRefKey, type ApprovalRequest } from './approval-request.ts';
import { grantFor } from './approvals.ts';
import { callKey } from './canonical.ts';
import { upstreamReplayKey } from './core.ts';
import { execute, type ExecutionPlan, type Executor } from './execute.ts';
import { requestRecord } from './new-request.ts';
import type { Verdict } from './policy/evaluate.ts';
import type { Resolution } from './preview.ts';
import type { UpstreamCandidate } from './upstream.ts';

/** The approved request recording one harness approval of the call. */
function upstreamRecord(
  executor: Executor,
  call: ToolCall,
  args: Record<string, unknown>,
  verdict: Verdict,
  resolution: Resolution,
  candidate: UpstreamCandidate,
) {
  const { tool, identity } = call;
  const { policy } = executor.core.options;
  const now = executor.core.now();
  const by = `upstream:${identity.name}`;
  return requestRecord({
    requester: identity.name,
    createdBy: by,
    cluster: call.cluster,
    tool,
    args,
    resolution,
    verdict,
    now,
    requestTtlMs: policy.settings.requestTtlMs,
    requesterCredential: identity.credential ?? '',
    clientRef: candidate.ref,
    upstream: {
      identity: identity.name,
      trusted_by: 'trust_upstream_approval',
      approved_at: candidate.approvedAt,
    },
    approval: {
      decision: { decision: 'allow', by, at: candidate.approvedAt, reason: null, admin_fallback: false },
      grant: grantFor(
        { requester: identity.name, tool: tool.name, cluster: call.cluster ?? null, policy: verdict },
        'once',
        now,
        policy.settings.requestTtlMs,
      ),
    },
  });
}

/** Executes the call under `request` (the recorded harness approval); revokes it when a replay. */
async function runUnder(
  executor: Executor,
  call: ToolCall,
  next: ExecuteFn,
  request: ApprovalRequest,
  plan: Omit<ExecutionPlan, 'authorization'>,
  dryRun: boolean,
): Promise<CallToolResult> {
  const { core } = executor;
  const result = await execute(
    executor,
    call,
    next,
    { ...plan, authorization: 'upstream', requestId: request.id },
    {
      dryRun,
    },
  );
  if (result._meta?.approval_status === 'replayed') {
    const revoked = await core.options.store.revokeGrant(
      request.id,
      `not executed: an identical call from ${call.identity.name} ran inside the replay window`,
      core.now(),
    );
    if (revoked.ok) core.emit({ type: 'approval_cancelled', request: revoked.request });
  }
  return result;
}

/**
 * Runs the call on a verified harness approval. Undefined result, with why, when the harness shows
 * no such approval (the call is then held).
 */
export async function runUpstream(
  executor: Executor,
  call: ToolCall,
  next: ExecuteFn,
  input: {
    args: Record<string, unknown>;
    verdict: Verdict;
    resolution: Resolution;
    base: Pick<ExecutionPlan, 'callKey' | 'arguments' | 'idempotencyKey'>;
  },
): Promise<{ result?: CallToolResult; request?: ApprovalRequest; why: string }> {
  const { tool, identity } = call;
  const { core } = executor;
  const { upstreamVerifier: verifier, policy, store, logger } = core.options;
  if (!verifier) return { why: 'this server verifies no harness approvals' };
  const now = core.now();
  const keyOf = (raw: Record<string, unknown>) => {
    const { idempotency_key: _ignored, ...rest } = raw;
    const parsed = tool.input.safeParse(rest);
    return parsed.success ? callKey(tool.name, parsed.data as Record<string, unknown>) : undefined;
  };
  const finding = await verifier.find(identity, tool.name, input.base.callKey, keyOf, now);
  const replaySince =
    tool.risk === 'destructive' ? new Date(now.getTime() - policy.settings.replayWindowMs) : undefined;
  const replayKey = replaySince && upstreamReplayKey(call, input.resolution);
  for (const candidate of finding.candidates) {
    const record = upstreamRecord(executor, call, input.args, input.verdict, input.resolution, candidate);
    const stored = await store.insertForClientRef({ ...record, clientRefKey: clientRefKey(candidate.ref) });
    if (!stored.created) continue; // this harness approval was used by an earlier execution
    const request = stored.request;
    core.emit({ type: 'approval_created', request });
    core.emit({ type: 'approval_decided', request });
    call.notes.gate = {
      rule: input.verdict.rule,
      decision: 'upstream',
      approvalRequestId: request.id,
      request,
    };
    logger?.info(
      { approvalRequestId: request.id, tool: tool.name, identity: identity.name, clientRef: candidate.ref },
      'call runs on a verified harness approval',
    );
    const plan = { ...input.base, ...(replaySince && { replaySince }), ...(replayKey && { replayKey }) };
    return {
      result: await runUnder(executor, call, next, request, plan, input.verdict.dryRun),
      request,
      why: '',
    };
  }
  return { why: finding.why };
}
