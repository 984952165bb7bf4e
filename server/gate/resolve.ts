/**
 * Resolving a call once and judging it as resolved: what the MCP gate (gate.ts) and an approver's
 * `POST /approvals` (approvals.ts) share, so both apply the same as-sent/as-resolved check.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Tool } from '../../tools/index.ts';
import { callKey, matchedArguments } from './canonical.ts';
import type { ResolvedCall } from './decision.ts';
import { resolveCall } from './new-request.ts';
import { evaluateResolved, type CompiledPolicy, type PolicyQuery, type Verdict } from './policy/evaluate.ts';

/**
 * Resolves the call `query` names through its dry run (`dryRun`, run at most once; without one the
 * call stands as sent) and judges it again as resolved: the stricter of `asSent` and the verdict on
 * the resolved arguments wins (a Service name stands for the Deployment behind it, an omitted
 * to_revision for a concrete revision). A dry run that fails comes back as `{ failed }`, judged as sent.
 */
export async function resolveJudged(
  policy: CompiledPolicy,
  query: PolicyQuery & { tool: Tool },
  asSent: Verdict,
  dryRun: ((args: Record<string, unknown>) => Promise<CallToolResult>) | undefined,
): Promise<ResolvedCall> {
  const { tool, args } = query;
  const resolved = dryRun
    ? await resolveCall(tool, args, asSent, dryRun)
    : { resolution: { arguments: matchedArguments(args), preview: null } };
  if ('failed' in resolved) return { verdict: asSent, failed: resolved.failed };
  return {
    verdict: evaluateResolved(policy, query, asSent, resolved.resolution.arguments),
    resolution: resolved.resolution,
    ...('preview' in resolved && resolved.preview && { preview: resolved.preview }),
    resolvedKey: callKey(tool.name, resolved.resolution.arguments),
  };
}
