/**
 * Holding a call for a human: records (or reuses) the pending approval request with the call's
 * resolution, and answers the pending result. A call whose preview shows nothing to do is not held.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Tool } from '../../tools/index.ts';
import type { ToolCall } from '../pipeline.ts';
import type { GateCore } from './core.ts';
import type { ResolvedCall } from './decision.ts';
import { noChangeResult, pendingResult } from './messages.ts';
import { requestRecord } from './new-request.ts';
import type { PolicyQuery, Verdict } from './policy/evaluate.ts';
import { effectDifference, isNoOpPreview } from './preview.ts';
import { windowCoverage } from './window-coverage.ts';

/** A registered harness connector: names a harness to verify against, or is the `trueforge` identity. */
function defaultIsHarnessConnector(identity: ToolCall['identity']): boolean {
  return identity.upstreamHarness !== undefined || identity.name === 'trueforge';
}

function approvalsUrl(core: GateCore): string | undefined {
  const url = core.options.approvalsUrl;
  return typeof url === 'function' ? url() : url;
}

/** Records (or reuses) the pending request for a held call, with its resolution. */
export async function holdCall(
  core: GateCore,
  call: ToolCall,
  input: {
    args: Record<string, unknown>;
    verdict: Verdict;
    resolved: Extract<ResolvedCall, { resolution: unknown }>;
    query: PolicyQuery & { tool: Tool };
    upstreamRefused?: string;
  },
): Promise<CallToolResult> {
  const { tool } = call;
  const { verdict, resolved } = input;
  const { policy, store, logger } = core.options;
  if (resolved.preview && isNoOpPreview(resolved.preview)) return noChangeResult(resolved.preview, tool.name);
  const now = core.now();
  const fresh = resolved.resolution.preview;
  const window = windowCoverage(policy, input.query, verdict, resolved.resolution.arguments);
  const { request, reused, superseded, alsoSuperseded, cancelled } = await store.createOrReusePending(
    requestRecord({
      requester: call.identity.name,
      createdBy: call.identity.name,
      cluster: call.cluster,
      tool,
      args: input.args,
      resolution: resolved.resolution,
      verdict,
      now,
      requestTtlMs: policy.settings.requestTtlMs,
      requesterCredential: call.identity.credential ?? '',
      ...(window && { window }),
    }),
    now,
    // Re-requested: the human must see what the call does now, never an outdated preview.
    (existing) => {
      const difference = effectDifference(existing.preview?.effect ?? null, fresh?.effect ?? null);
      return difference === undefined
        ? undefined
        : `the call's effect changed since it was requested (${difference})`;
    },
  );
  for (const ended of [...(superseded ? [superseded] : []), ...(alsoSuperseded ?? [])])
    core.emit({ type: 'approval_superseded', request: ended });
  if (cancelled) core.emit({ type: 'approval_cancelled', request: cancelled });
  core.emit({ type: reused ? 'approval_reused' : 'approval_created', request });
  if (call.notes.gate) call.notes.gate.request = request;
  logger?.info(
    { approvalRequestId: request.id, tool: tool.name, rule: verdict.rule, reused },
    'call held for approval',
  );
  const connector = core.options.isHarnessConnector ?? defaultIsHarnessConnector;
  return pendingResult(request, reused, approvalsUrl(core), {
    ...(connector(call.identity) && { fromHarness: true }),
    ...(input.upstreamRefused && { upstreamRefused: input.upstreamRefused }),
  });
}
