/**
 * What a held call and an approver's `POST /approvals` share: resolving the call through its dry run
 * and building the approval request record with the keys retries are matched by.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ClusterIdentity, Tool } from '../../tools/index.ts';
import { toSentinelError } from '../../core/index.ts';
import type {
  ApprovalDecision,
  ApprovalGrant,
  ApprovalPreview,
  ClientRef,
  UpstreamApproval,
  WindowCoverage,
} from './approval-request.ts';
import { visibleReason } from './approval-request.ts';
import { callKey, matchedArguments } from './canonical.ts';
import { newId } from './ids.ts';
import type { Verdict } from './policy/evaluate.ts';
import { resolutionFromDryRun, type Resolution } from './preview.ts';
import type { NewApprovalRequest } from './store/types.ts';

/** A resolved call; `preview` is the dry run's result when one ran. */
export interface Resolved {
  resolution: Resolution;
  preview?: CallToolResult;
}

/**
 * Resolves a call: runs its dry run (tools that support one, unless the call is itself a preview)
 * and reads the resolved arguments and preview from it (`preview` is the dry run's result). A failing dry run, or one that breaks the
 * preview contract, comes back as `{ failed }` — the call cannot be approved as it stands.
 */
export async function resolveCall(
  tool: Tool,
  args: Record<string, unknown>,
  verdict: Verdict,
  dryRun: (args: Record<string, unknown>) => Promise<CallToolResult>,
): Promise<Resolved | { failed: CallToolResult | Error }> {
  if (!tool.supportsDryRun || verdict.dryRun)
    return { resolution: { arguments: matchedArguments(args), preview: null } };
  const dry = await dryRun({ ...args, dry_run: true });
  if (dry.isError) return { failed: dry };
  try {
    return { resolution: resolutionFromDryRun(tool, args, dry), preview: dry };
  } catch (error) {
    return { failed: toSentinelError(error) };
  }
}

export interface RequestRecordInput {
  requester: string;
  createdBy: string;
  cluster: ClusterIdentity | undefined;
  tool: Tool;
  /** The call as made (parsed, defaults applied). */
  args: Record<string, unknown>;
  resolution: Resolution;
  verdict: Verdict;
  now: Date;
  requestTtlMs: number;
  /** The requester's `Identity.credential` (`''` when unknown). */
  requesterCredential: string;
  /** For a request decided as it is created: approved (with its grant) or denied (`grant: null`). */
  approval?: { decision: ApprovalDecision; grant: ApprovalGrant | null };
  /** The harness tool call the request answers. */
  clientRef?: ClientRef | undefined;
  /** For the record of an upstream execution. */
  upstream?: UpstreamApproval | undefined;
  /** What a window grant would cover (`windowCoverage`), when the verdict offers a window. */
  window?: WindowCoverage;
}

/**
 * The preview with what the requester gave the approver besides the call: the gate-owned `evidence`
 * lines and `investigation` (already validated by the published schema; cleaned of control and
 * invisible characters like every reason).
 */
function withRequesterContext(preview: ApprovalPreview, args: Record<string, unknown>): ApprovalPreview {
  const evidence = Array.isArray(args.evidence)
    ? (args.evidence as { line: string; call: string }[]).map((item) => ({
        line: visibleReason(item.line),
        call: visibleReason(item.call),
      }))
    : [];
  const investigation = typeof args.investigation === 'string' ? visibleReason(args.investigation) : '';
  return {
    ...preview,
    ...(evidence.length > 0 && { evidence }),
    ...(investigation !== '' && { investigation }),
  };
}

/** The record of a new approval request: pending, or approved when `approval` is given. */
export function requestRecord(input: RequestRecordInput): NewApprovalRequest {
  const { tool, args, resolution, verdict, now } = input;
  return {
    request: {
      id: newId('apr'),
      status: input.approval
        ? input.approval.decision.decision === 'deny'
          ? 'denied'
          : 'approved'
        : 'pending',
      requester: input.requester,
      created_by: input.createdBy,
      cluster: input.cluster ?? null,
      tool: tool.name,
      risk: tool.risk,
      arguments: resolution.arguments,
      requested_arguments: matchedArguments(args),
      reason: typeof args.reason === 'string' ? visibleReason(args.reason) : null,
      policy: {
        rule: verdict.rule,
        rules: verdict.rules,
        reason: verdict.reason,
        validity: verdict.validity,
        approvers: verdict.approvers,
        ...(input.window && { window: input.window }),
      },
      preview: resolution.preview && withRequesterContext(resolution.preview, args),
      created_at: now.toISOString(),
      expires_at: new Date(now.getTime() + input.requestTtlMs).toISOString(),
      decision: input.approval?.decision ?? null,
      grant: input.approval?.grant ?? null,
      client_ref: input.clientRef ?? null,
      upstream: input.upstream ?? null,
    },
    requestedKey: callKey(tool.name, args),
    resolvedKey: callKey(tool.name, resolution.arguments),
    scope: verdict.scope,
    requesterCredential: input.requesterCredential,
  };
}
