/**
 * Sentinel's Prometheus metrics (prom-client), on a registry of their own so every server (and
 * test) counts from zero. Names follow the Prometheus conventions: `sentinel_` prefix, `_total` for
 * counters, base units (seconds).
 *
 * | metric | type | labels | what |
 * |---|---|---|---|
 * | sentinel_tool_calls_total | counter | tool, outcome | every `tools/call` that reached the middlewares, by `CallOutcome` |
 * | sentinel_tool_call_duration_seconds | histogram | tool | wall time of those calls |
 * | sentinel_approval_requests_created_total | counter | tool | new pending requests (a reused one is not new) |
 * | sentinel_approval_requests_settled_total | counter | tool, outcome | how pending requests ended: approved, denied, expired (unanswered), withdrawn |
 * | sentinel_approval_decision_seconds | histogram | tool, decision | create-to-decision latency (allow, deny) |
 * | sentinel_approval_rerequests_after_expiry_total | counter | tool | new requests for a call whose earlier request expired unanswered |
 * | sentinel_approval_grants_total | counter | tool, validity | approvals by grant validity: once, window, upstream (a verified harness approval) |
 * | sentinel_approval_fallback_to_admin_total | counter | tool | requests notified to the admin webhook because no listed approver could be notified |
 * | sentinel_webhook_deliveries_total | counter | outcome | notification POSTs: delivered, failed (after retries) |
 * | sentinel_audit_write_failures_total | counter | — | audit records that could not be written |
 * | sentinel_unauthenticated_requests_total | counter | route, remote_address | requests refused for a missing, unknown or revoked token (`POST /mcp`, ...); at most 100 addresses, then `(other)` |
 *
 * Plus the read cache's (`sentinel_read_cache_*`, ./read-cache.ts, registered by the oversight
 * plugin) and prom-client's default process metrics (`process_*`, `nodejs_*`).
 */
import { collectDefaultMetrics, Counter, Histogram, Registry } from 'prom-client';

/** Seconds; tool calls range from a cached read to a rollout wait. */
const CALL_BUCKETS = [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 30, 60];
/** Seconds; a human answers in seconds to an hour (requests expire after 30 minutes by default). */
const DECISION_BUCKETS = [5, 15, 30, 60, 120, 300, 600, 900, 1800, 3600, 7200];

export interface SentinelMetrics {
  registry: Registry;
  toolCalls: Counter<'tool' | 'outcome'>;
  toolCallDuration: Histogram<'tool'>;
  approvalsCreated: Counter<'tool'>;
  approvalsSettled: Counter<'tool' | 'outcome'>;
  decisionLatency: Histogram<'tool' | 'decision'>;
  reRequestsAfterExpiry: Counter<'tool'>;
  grants: Counter<'tool' | 'validity'>;
  fallbackToAdmin: Counter<'tool'>;
  webhookDeliveries: Counter<'outcome'>;
  auditWriteFailures: Counter;
  unauthenticatedRequests: Counter<'route' | 'remote_address'>;
}

export interface MetricsOptions {
  /** Also collect prom-client's default process metrics. Default true. */
  processMetrics?: boolean;
}

/** Creates the metrics on a fresh registry. */
export function createMetrics(options: MetricsOptions = {}): SentinelMetrics {
  const registry = new Registry();
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry });
  const registers = [registry];
  return {
    registry,
    toolCalls: new Counter({
      name: 'sentinel_tool_calls_total',
      help: 'tools/call requests by tool and outcome (succeeded, failed, held, denied, stale, frozen, replayed, in_progress).',
      labelNames: ['tool', 'outcome'],
      registers,
    }),
    toolCallDuration: new Histogram({
      name: 'sentinel_tool_call_duration_seconds',
      help: 'Wall time of tools/call requests, including the approval gate, in seconds.',
      labelNames: ['tool'],
      buckets: CALL_BUCKETS,
      registers,
    }),
    approvalsCreated: new Counter({
      name: 'sentinel_approval_requests_created_total',
      help: 'Approval requests created (held calls; a reused pending request is not counted again).',
      labelNames: ['tool'],
      registers,
    }),
    approvalsSettled: new Counter({
      name: 'sentinel_approval_requests_settled_total',
      help: 'How pending approval requests ended: approved, denied, expired (unanswered), withdrawn, cancelled or superseded.',
      labelNames: ['tool', 'outcome'],
      registers,
    }),
    decisionLatency: new Histogram({
      name: 'sentinel_approval_decision_seconds',
      help: 'Time from an approval request being created to its decision (allow or deny), in seconds.',
      labelNames: ['tool', 'decision'],
      buckets: DECISION_BUCKETS,
      registers,
    }),
    reRequestsAfterExpiry: new Counter({
      name: 'sentinel_approval_rerequests_after_expiry_total',
      help: 'New approval requests for a call whose earlier request expired unanswered (same requester, cluster, tool and arguments).',
      labelNames: ['tool'],
      registers,
    }),
    grants: new Counter({
      name: 'sentinel_approval_grants_total',
      help: 'Approvals by grant validity (once, window; upstream: a verified harness approval).',
      labelNames: ['tool', 'validity'],
      registers,
    }),
    fallbackToAdmin: new Counter({
      name: 'sentinel_approval_fallback_to_admin_total',
      help: 'Approval requests notified to admins because no listed approver had a webhook.',
      labelNames: ['tool'],
      registers,
    }),
    webhookDeliveries: new Counter({
      name: 'sentinel_webhook_deliveries_total',
      help: 'Approval notification POSTs by outcome (delivered, failed after retries).',
      labelNames: ['outcome'],
      registers,
    }),
    auditWriteFailures: new Counter({
      name: 'sentinel_audit_write_failures_total',
      help: 'Audit records that could not be written (see the server log).',
      registers,
    }),
    unauthenticatedRequests: new Counter({
      name: 'sentinel_unauthenticated_requests_total',
      help: 'Requests refused for a missing, unknown or revoked bearer token, by route and remote address.',
      labelNames: ['route', 'remote_address'],
      registers,
    }),
  };
}
