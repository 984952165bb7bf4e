/**
 * What an approver is told before deciding: the request's target re-read now (a read-only dry run of
 * its resolved call, the same preview the gate re-checks at execution) against the preview the
 * request was made with, and the change freeze. Advisory only: approving a stale request stays
 * possible, since the gate compares the effect again right before executing and refuses a stale
 * call (DESIGN.md, "Decision"); this says so before the approver's grant is wasted.
 */
import { toSentinelError } from '../../core/index.ts';
import type { Tool } from '../../tools/index.ts';
import type { ApprovalCheck, ApprovalRequest, FreezeState } from './approval-request.ts';
import { firstLine } from './messages.ts';
import { effectChanges, resolutionFromDryRun } from './preview.ts';
import type { PreviewFn } from './approvals.ts';

/** What the gate will find at execution, compared with `request.preview`. */
const STALE_TAIL =
  'Approving is still possible, but the gate re-checks at execution and refuses it as stale; ask the requester to retry for a fresh preview.';

/**
 * Checks `request` now. `preview` runs the tool's dry run with a read-only client (absent: only the
 * freeze is checked); `tool` is the registered tool (absent or without dry-run support: nothing to
 * re-read). Never throws for a failing preview: that is itself a warning.
 */
export async function checkCurrentState(input: {
  request: ApprovalRequest;
  tool: Tool | undefined;
  preview: PreviewFn | undefined;
  freeze: FreezeState;
  now: Date;
}): Promise<ApprovalCheck> {
  const { request, tool, preview, freeze } = input;
  const warnings: string[] = [];
  let stale = false;
  if (tool?.supportsDryRun && preview && request.preview && request.arguments.dry_run !== true) {
    const changed = await changesSincePreview(request, tool, preview);
    if (changed.length > 0) {
      stale = true;
      warnings.push(`The target changed since the preview: ${changed.join('; ')}. ${STALE_TAIL}`);
    }
  }
  if (freeze.frozen) {
    const by = [freeze.by && `by ${freeze.by}`, freeze.reason].filter(Boolean).join(': ');
    warnings.push(`A change freeze is on${by ? ` (${by})` : ''}: the call will be refused until it lifts.`);
  }
  return { id: request.id, checked_at: input.now.toISOString(), stale, warnings };
}

async function changesSincePreview(
  request: ApprovalRequest,
  tool: Tool,
  preview: PreviewFn,
): Promise<string[]> {
  try {
    const now = await preview(tool, { ...request.arguments, dry_run: true });
    if (now.isError) return [`its preview now fails (${firstLine(now)})`];
    const resolution = resolutionFromDryRun(tool, request.arguments, now);
    return effectChanges(request.preview?.effect ?? null, resolution.preview?.effect ?? null);
  } catch (error) {
    return [`its preview now fails (${toSentinelError(error).message})`];
  }
}
