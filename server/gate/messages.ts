/**
 * The tool results the gate itself returns (held, denied, stale, frozen, ...). Each tells the model
 * what happened, whether anything changed, and what to do next. None carries `structuredContent`:
 * the server does not validate gate results against the tool's output schema.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ErrorCode } from '../../core/index.ts';
import type { ApprovalRequest, FreezeState, ResultApprovalStatus } from './approval-request.ts';
import type { StoredExecution } from './store/types.ts';
import type { Verdict } from './policy/evaluate.ts';

/** A result made by the gate: one text item, `_meta` with `approval_status` and the ids involved. */
export function gateResult(
  text: string,
  meta: { approval_status: ResultApprovalStatus; approval_request_id?: string; [key: string]: unknown },
  isError: boolean,
): CallToolResult {
  return { content: [{ type: 'text', text }], ...(isError && { isError: true }), _meta: meta };
}

function where(approvalsUrl: string | undefined, id: string): string {
  const base = approvalsUrl ? approvalsUrl.replace(/\/$/, '') : '';
  return `on the approvals page (${base}/ui/approvals), with \`sentinel approvals approve ${id}\`, or through POST ${base}/approvals/${id}/approve`;
}

/** The successful result of a held call. */
export function pendingResult(
  request: ApprovalRequest,
  reused: boolean,
  approvalsUrl?: string,
  harness: { fromHarness?: boolean; upstreamRefused?: string } = {},
): CallToolResult {
  const upstream = harness.upstreamRefused
    ? [
        `The harness approval of this call was not honoured: ${harness.upstreamRefused}. Sentinel's own approval is required instead.`,
      ]
    : harness.fromHarness
      ? [
          `The harness approval of this call was received, but it does not replace Sentinel's: an approver must still approve request ${request.id} ${where(approvalsUrl, request.id)} (with \`sentinel investigate --harness\`, answering yes there does both).`,
        ]
      : [];
  const lines = [
    `Approval required: this ${request.tool} call was not run. It is waiting for a human to approve it.`,
    ...upstream,
    `Approval request: ${request.id} (${reused ? 'already pending for this exact call' : 'created now'}), expires ${request.expires_at}.`,
    ...(request.preview ? [`What it would do: ${request.preview.summary}`] : []),
    `Why approval is needed: ${request.policy.reason}`,
    'Nothing has changed in the cluster.',
    `Next: tell the user the request id ${request.id} and that an approver (not you) can approve it ${where(approvalsUrl, request.id)}.`,
    'After it is approved, retry this identical call (same arguments). A call with different arguments needs its own approval.',
  ];
  return gateResult(
    lines.join('\n'),
    { approval_status: 'pending', approval_request_id: request.id, expires_at: request.expires_at },
    false,
  );
}

/** A call the policy denies. */
export function policyDeniedResult(toolName: string, verdict: Verdict): CallToolResult {
  return gateResult(
    [
      `Denied by policy rule '${verdict.rule}': ${verdict.reason}`,
      ...(verdict.resolvedArguments
        ? [
            `The rule applies to what the call resolves to: ${toolName} ${JSON.stringify(verdict.resolvedArguments)}.`,
          ]
        : []),
      `The ${toolName} call was not run; nothing changed. Do not retry it. Tell the user, and offer an alternative that the policy allows.`,
    ].join('\n'),
    { approval_status: 'denied', policy_rule: verdict.rule },
    true,
  );
}

/** The first identical call after a human denied the request. */
export function humanDeniedResult(request: ApprovalRequest): CallToolResult {
  const decision = request.decision;
  return gateResult(
    [
      `Approval request ${request.id} was denied by ${decision?.by ?? 'an approver'}: ${decision?.reason ?? 'no reason given'}`,
      `A human reviewed and declined this exact ${request.tool} call. It was not run and nothing changed.`,
      'Do not attempt it again. Tell the user it was declined and offer alternatives.',
    ].join('\n'),
    { approval_status: 'denied', approval_request_id: request.id },
    true,
  );
}

/** The effect changed between approval and execution. */
export function staleResult(request: ApprovalRequest, difference: string): CallToolResult {
  return gateResult(
    [
      `Approval request ${request.id} is stale: the target changed since the human approved it (${difference}).`,
      `The ${request.tool} call was not run; nothing changed. A fresh approval is needed: look at the current state, then make the call again to open a new request.`,
    ].join('\n'),
    { approval_status: 'stale', approval_request_id: request.id },
    true,
  );
}

function freezeOrigin(freeze: FreezeState): string {
  const parts = [freeze.by && `by ${freeze.by}`, freeze.since && `since ${freeze.since}`].filter(Boolean);
  return parts.length > 0 ? ` (${parts.join(' ')})` : '';
}

/** A write/destructive call during a freeze. */
export function frozenResult(toolName: string, freeze: FreezeState): CallToolResult {
  return gateResult(
    [
      `Changes are frozen on this server${freezeOrigin(freeze)}: ${freeze.reason ?? 'no reason given'}`,
      `The ${toolName} call was not run; nothing changed. Read-only tools and dry runs still work. Tell the user; retry only after the freeze is lifted.`,
    ].join('\n'),
    { approval_status: 'frozen' },
    true,
  );
}

/** An identical approved call is running (or ran) already. */
export function alreadyRunningResult(request: ApprovalRequest | undefined, toolName: string): CallToolResult {
  const id = request?.id;
  const state =
    request?.status === 'executing'
      ? 'is executing now'
      : `already ran (status ${request?.status ?? 'unknown'})`;
  return gateResult(
    [
      `This approved ${toolName} call ${state} under approval request ${id ?? '(unknown)'}; it was not run a second time.`,
      `Check the outcome with a read-only tool${id ? ` or GET /approvals/${id}` : ''} instead of retrying.`,
    ].join('\n'),
    { approval_status: 'in_progress', ...(id && { approval_request_id: id }) },
    false,
  );
}

/** An identical call that executed before (upstream replay window, idempotency key, concurrent window use). */
export function replayedResult(execution: StoredExecution, why: string): CallToolResult {
  const when = execution.finishedAt
    ? `ran at ${execution.startedAt} (${execution.status})`
    : `is executing since ${execution.startedAt}`;
  return gateResult(
    [
      `Not executed again: ${why}. The earlier execution ${execution.id} ${when}${execution.outcome ? `: ${execution.outcome}` : ''}.`,
      'Nothing new was changed. Check the current state with a read-only tool before deciding anything else.',
    ].join('\n'),
    {
      approval_status: 'replayed',
      execution_id: execution.id,
      ...(execution.requestId && { approval_request_id: execution.requestId }),
    },
    false,
  );
}

/**
 * A call that coalesced with an identical one under the same window grant (issue 13, finding 7): it
 * arrived while that one was executing, so it was not run again and answers with that execution's
 * result, after a first line that says so. `_meta`: `approval_status: "replayed"`, `coalesced: true`,
 * the execution and request ids.
 */
export function coalescedResult(execution: StoredExecution, result: CallToolResult): CallToolResult {
  const notice = `Not executed again: an identical call under the same window grant (approval request ${execution.requestId ?? '(unknown)'}) was executing when this one arrived; it ran once, as execution ${execution.id}, and its result follows.`;
  return {
    ...result,
    content: [{ type: 'text', text: notice }, ...result.content],
    _meta: {
      ...result._meta,
      approval_status: 'replayed',
      coalesced: true,
      execution_id: execution.id,
      ...(execution.requestId && { approval_request_id: execution.requestId }),
    },
  };
}

/** Marks a real tool result as executed under an approval (the model sees it was approved). */
export function withExecutedMeta(
  result: CallToolResult,
  requestId: string | undefined,
  executionId: string,
): CallToolResult {
  return {
    ...result,
    _meta: {
      ...result._meta,
      approval_status: 'executed',
      execution_id: executionId,
      ...(requestId && { approval_request_id: requestId }),
    },
  };
}

/**
 * An error the gate raises itself (bad idempotency key use, a tool's broken preview). `_meta.error`
 * carries the machine-readable code (and field), as for every error result of the server.
 */
export function gateErrorResult(
  message: string,
  code: ErrorCode = 'internal',
  field?: string,
): CallToolResult {
  return {
    content: [{ type: 'text', text: message }],
    isError: true,
    _meta: { error: { code, message, ...(field && { field }) } },
  };
}

/** A held call whose preview shows nothing to do: no request, nothing run. */
export function noChangeResult(preview: CallToolResult, toolName: string): CallToolResult {
  return {
    ...preview,
    content: [
      {
        type: 'text',
        text: `Nothing to do: the ${toolName} call would change nothing (its dry run below is a no-op). It was not run, and no approval request was made.`,
      },
      ...preview.content,
    ],
    _meta: { ...preview._meta, approval_status: 'not_required' },
  };
}

const PREFIX = "Cluster '";
/** What `.` does not match. */
const LINE_TERMINATOR = /[\n\r\u2028\u2029]/;

/**
 * Whether `line` is the "Cluster 'name' (url)" banner every tool's text starts with (not an
 * outcome): what `/^Cluster '.*' \(.*\)$/` matches. Not that expression: it rescanned the rest of
 * the line from each `' (` in it, quadratic on a hostile line (32,000 characters took 278 ms, 4x as
 * many 16x as long; now 0.03 ms).
 */
export function isClusterBanner(line: string): boolean {
  if (!line.startsWith(PREFIX) || !line.endsWith(')') || LINE_TERMINATOR.test(line)) return false;
  // A `' (` after the prefix ends before the final `)` (it ends with `(`).
  return line.includes("' (", PREFIX.length);
}

/**
 * An execution's one-line outcome: the result's `structuredContent.summary` when the tool gives one
 * (prefixed by its `status`), else its first text line that is not the cluster banner. Errors are
 * prefixed `error: `; at most 300 characters.
 */
export function firstLine(result: CallToolResult): string {
  const structured = result.structuredContent;
  const summary = typeof structured?.summary === 'string' ? structured.summary : undefined;
  const status = typeof structured?.status === 'string' ? structured.status : undefined;
  let line: string;
  if (summary !== undefined && !result.isError) {
    line = status ? `${status}: ${summary}` : summary;
  } else {
    const text = result.content
      .filter((item) => item.type === 'text')
      .map((item) => (item as { text: string }).text)
      .join('\n');
    line = text.split('\n').find((candidate) => candidate.trim() !== '' && !isClusterBanner(candidate)) ?? '';
  }
  return (result.isError ? 'error: ' : '') + (line.length > 300 ? `${line.slice(0, 297)}...` : line);
}
