/**
 * Approval lifecycle metrics from the gate's events (see `ApprovalEvent`).
 */
import { canonicalJson } from '../audit/record.ts';
import type { ApprovalRequest } from '../gate/approval-request.ts';
import type { ApprovalEventListener } from '../gate/events.ts';
import type { SentinelMetrics } from './metrics.ts';

/** Expired calls remembered for re-request counting; the oldest are forgotten first. */
const MAX_REMEMBERED_EXPIRIES = 10_000;

/** Same requester, cluster, tool and resolved arguments: the same call asked again. */
function callIdentity(request: ApprovalRequest): string {
  return canonicalJson([
    request.requester,
    request.cluster?.context ?? null,
    request.tool,
    request.arguments,
  ]);
}

/**
 * A listener that updates `metrics` on each approval event. Re-requests after expiry are matched in
 * memory (bounded), so a call that expired before a server restart is not counted when asked again
 * after it.
 */
export function approvalMetricsListener(metrics: SentinelMetrics): ApprovalEventListener {
  const expired = new Map<string, true>();
  return ({ type, request }) => {
    const tool = request.tool;
    switch (type) {
      case 'approval_created': {
        // Created already approved (`POST /approvals`): counted as a grant when its decision arrives.
        if (request.decision) return;
        metrics.approvalsCreated.inc({ tool });
        const key = callIdentity(request);
        if (expired.delete(key)) metrics.reRequestsAfterExpiry.inc({ tool });
        return;
      }
      case 'approval_decided': {
        const decision = request.decision;
        if (!decision) return;
        if (decision.decision === 'allow' && request.grant) {
          // A verified harness approval (`trust_upstream_approval`) counts as validity `upstream`.
          const validity = request.upstream
            ? 'upstream'
            : request.grant.validity === 'once'
              ? 'once'
              : 'window';
          metrics.grants.inc({ tool, validity });
        }
        // An approver's own `POST /approvals` was never pending: no wait to measure.
        if (request.created_by === decision.by) return;
        metrics.approvalsSettled.inc({
          tool,
          outcome: decision.decision === 'allow' ? 'approved' : 'denied',
        });
        const seconds = (Date.parse(decision.at) - Date.parse(request.created_at)) / 1000;
        metrics.decisionLatency.observe({ tool, decision: decision.decision }, Math.max(0, seconds));
        return;
      }
      case 'approval_withdrawn':
        metrics.approvalsSettled.inc({ tool, outcome: 'withdrawn' });
        return;
      case 'approval_cancelled':
      case 'approval_superseded':
        if (request.decision) return; // a grant taken back: the request was settled when approved
        metrics.approvalsSettled.inc({
          tool,
          outcome: type === 'approval_cancelled' ? 'cancelled' : 'superseded',
        });
        return;
      case 'approval_expired': {
        if (request.decision) return; // an unused grant ended; the request was settled when approved
        metrics.approvalsSettled.inc({ tool, outcome: 'expired' });
        const key = callIdentity(request);
        expired.delete(key);
        expired.set(key, true);
        if (expired.size > MAX_REMEMBERED_EXPIRIES) expired.delete(expired.keys().next().value!);
        return;
      }
      case 'approval_reused':
        return;
    }
  };
}
