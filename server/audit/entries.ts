/**
 * Audit entries from what the server saw: a finished `tools/call` (with the gate's note and the
 * approval request involved) or an approval lifecycle event. Arguments, errors and reasons are
 * redacted before they are stored.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { oneLine, redact, redactValue } from '../../tools/index.ts';
import { callOutcome, resultError } from '../call-outcome.ts';
import type { ApprovalRequest } from '../gate/approval-request.ts';
import type { ApprovalEvent, ExecutionSettledEvent } from '../gate/events.ts';
import type { StoredExecution } from '../gate/store/types.ts';
import type { RejectedCall, ToolCall } from '../pipeline.ts';
import type { AuditEntry } from './record.ts';

/** Longest error message or reason stored, in characters. */
const MAX_MESSAGE = 500;

/** Identity recorded for what the server does on its own (expiring requests). */
export const SYSTEM_ACTOR = 'sentinel';

const cleanText = (text: string): string => oneLine(redact(text).value, MAX_MESSAGE);

/**
 * A call's arguments as recorded, redacted. `idempotency_key` is the caller's opaque key an
 * execution is stored under, not a credential, though its name reads like one: its value is
 * scanned as text (a pasted token is still removed) instead of dropped, so an auditor can tell
 * which key a call carried.
 */
function recordedArguments(args: Record<string, unknown>): Record<string, unknown> {
  const { idempotency_key: key, ...rest } = args;
  const out = redactValue(rest).value;
  return typeof key === 'string' ? { ...out, idempotency_key: redact(key).value } : out;
}

/** The `execution` of a `tool_call` that started one: what ran, and how it ended. */
function executedBy(execution: StoredExecution): NonNullable<AuditEntry['execution']> {
  return {
    id: execution.id,
    authorization: execution.authorization,
    status: execution.status,
    started_at: execution.startedAt,
    settled_by: null,
    evidence: null,
    arguments: recordedArguments(execution.arguments),
  };
}

/** The approval request id the gate put on a result's `_meta`, if any. */
export function approvalRequestIdOf(result: CallToolResult): string | undefined {
  const id = result._meta?.approval_request_id;
  return typeof id === 'string' ? id : undefined;
}

export interface FinishedCall {
  call: ToolCall;
  result: CallToolResult;
  startedAt: Date;
  durationMs: number;
  /** The approval request the call was held by or ran under, when there is one. */
  approval?: ApprovalRequest;
}

/**
 * The entry of one finished call. Rule and decision come from the gate's note (`call.notes.gate`);
 * without one, from the approval request (`ask`) or a policy denial's `_meta.policy_rule` (`deny`).
 * `arguments` are the call's as it arrived; when it started an execution (`call.notes.execution`),
 * `execution` records what ran — for an approved retry, the request's call and reason, whatever
 * `reason` the retry carried.
 */
export function toolCallEntry({ call, result, startedAt, durationMs, approval }: FinishedCall): AuditEntry {
  const note = call.notes.gate;
  const outcome = callOutcome(result, call.notes);
  const policyRule = typeof result._meta?.policy_rule === 'string' ? result._meta.policy_rule : undefined;
  const error = resultError(result, outcome);
  return {
    kind: 'tool_call',
    time: startedAt.toISOString(),
    request_id: call.requestId,
    identity: call.identity.name,
    cluster: call.cluster ? { context: call.cluster.context, server: call.cluster.server } : null,
    tool: call.tool.name,
    arguments: recordedArguments(call.args),
    rule: note?.rule ?? approval?.policy.rule ?? policyRule ?? null,
    decision: note?.decision ?? (approval ? 'ask' : policyRule ? 'deny' : null),
    approval_request_id: note?.approvalRequestId ?? approvalRequestIdOf(result) ?? null,
    approver: approval?.decision?.by ?? null,
    decision_time: approval?.decision?.at ?? null,
    reason: null,
    outcome,
    duration_ms: Math.round(durationMs * 1000) / 1000,
    error: error && { code: error.code, message: cleanText(error.message) },
    ...(call.notes.execution && { execution: executedBy(call.notes.execution) }),
    ...(approval?.client_ref && { client_ref: approval.client_ref }),
  };
}

/** The call an approval request stands for: its resolved arguments and the requester's `reason`. */
function requestedCall(request: ApprovalRequest): Record<string, unknown> {
  return request.reason === null ? request.arguments : { ...request.arguments, reason: request.reason };
}

/**
 * The entry of an approval event, or undefined for `approval_reused` (the held call's own record
 * already names the request). `arguments` are the request's resolved call with the requester's
 * `reason` (what the approver read, and what runs). An expiry after approval (a grant that ended
 * unused) is `grant_expired`.
 */
export function approvalEventEntry(event: ApprovalEvent, now: Date): AuditEntry | undefined {
  const { request } = event;
  const { decision } = request;
  const common = {
    kind: 'approval' as const,
    request_id: null,
    cluster: request.cluster,
    tool: request.tool,
    arguments: redactValue(requestedCall(request)).value,
    rule: request.policy.rule,
    approval_request_id: request.id,
    approver: decision?.by ?? null,
    decision_time: decision?.at ?? null,
    reason: decision?.reason ? cleanText(decision.reason) : null,
    duration_ms: null,
    error: null,
    ...(request.client_ref && { client_ref: request.client_ref }),
  };
  switch (event.type) {
    case 'approval_reused':
      return undefined;
    case 'approval_created':
      return {
        ...common,
        time: request.created_at,
        identity: request.created_by,
        decision: decision ? (decision.decision === 'allow' ? 'allow' : 'deny') : 'ask',
        outcome: 'created',
      };
    case 'approval_decided':
      return {
        ...common,
        time: decision?.at ?? now.toISOString(),
        identity: decision?.by ?? SYSTEM_ACTOR,
        decision: decision?.decision === 'deny' ? 'deny' : 'allow',
        outcome: decision?.decision === 'deny' ? 'denied' : 'approved',
      };
    case 'approval_withdrawn':
      return {
        ...common,
        time: now.toISOString(),
        identity: request.requester,
        decision: 'ask',
        outcome: 'withdrawn',
      };
    case 'approval_cancelled':
    case 'approval_superseded':
      return {
        ...common,
        time: now.toISOString(),
        identity: SYSTEM_ACTOR,
        decision: decision ? (decision.decision === 'allow' ? 'allow' : 'deny') : 'ask',
        outcome: event.type === 'approval_cancelled' ? 'cancelled' : 'superseded',
        reason: request.status_reason ? cleanText(request.status_reason) : null,
      };
    case 'approval_expired':
      return {
        ...common,
        time: now.toISOString(),
        identity: SYSTEM_ACTOR,
        decision: decision ? (decision.decision === 'allow' ? 'allow' : 'deny') : 'ask',
        outcome: decision ? 'grant_expired' : 'expired',
      };
  }
}

/**
 * The entry of a call refused before the middlewares (unknown tool, invalid arguments, not
 * authenticated): outcome `rejected`, the error the caller got, and no arguments — they were never
 * validated, and the error already names the offending fields.
 */
export function rejectedCallEntry(rejection: RejectedCall): AuditEntry {
  return {
    kind: 'tool_call',
    time: rejection.at.toISOString(),
    request_id: rejection.requestId,
    identity: rejection.identity,
    cluster: null,
    tool: rejection.tool,
    arguments: {},
    rule: null,
    decision: null,
    approval_request_id: null,
    approver: null,
    decision_time: null,
    reason: null,
    outcome: 'rejected',
    duration_ms: 0,
    error: { code: rejection.error.code, message: cleanText(rejection.error.message) },
  };
}

/**
 * The entry of an execution settled outside a `tools/call` (kind `execution`): by the restart
 * reconciler, after a crash left it `executing`. `identity` is the requester whose call it was,
 * `outcome` the execution's status (`succeeded`: the change reached the cluster; `interrupted`),
 * `reason` the reconciler's one-line account, and `execution` its id and the evidence read.
 */
export function settledExecutionEntry(event: ExecutionSettledEvent, now: Date): AuditEntry {
  const { execution, request, evidence } = event;
  return {
    kind: 'execution',
    time: now.toISOString(),
    request_id: null,
    identity: execution.requester,
    cluster: execution.cluster ? { context: execution.cluster, server: execution.clusterServer } : null,
    tool: execution.tool,
    arguments: redactValue(execution.arguments).value,
    rule: request?.policy.rule ?? null,
    decision: execution.authorization === 'policy' ? 'allow' : 'ask',
    approval_request_id: execution.requestId,
    approver: request?.decision?.by ?? null,
    decision_time: request?.decision?.at ?? null,
    reason: execution.outcome ? cleanText(execution.outcome) : null,
    outcome: execution.status,
    duration_ms: null,
    error: null,
    execution: {
      id: execution.id,
      authorization: execution.authorization,
      status: execution.status,
      started_at: execution.startedAt,
      settled_by: event.settled_by,
      evidence: evidence && {
        namespace: evidence.namespace,
        name: evidence.name,
        generation_before: evidence.generationBefore,
        generation_observed: evidence.generationObserved,
        approval_request_annotation: evidence.annotation,
      },
    },
  };
}
