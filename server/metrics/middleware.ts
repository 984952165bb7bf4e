/**
 * The metrics `tools/call` middleware: counts every call by tool and outcome and observes its
 * duration. Listed before the gate so held and denied calls are counted too.
 */
import { callOutcome } from '../call-outcome.ts';
import type { ToolCallMiddleware } from '../pipeline.ts';
import type { SentinelMetrics } from './metrics.ts';

export function createMetricsMiddleware(metrics: SentinelMetrics): ToolCallMiddleware {
  return async function countCalls(call, next) {
    const started = performance.now();
    const result = await next();
    metrics.toolCalls.inc({ tool: call.tool.name, outcome: callOutcome(result, call.notes) });
    metrics.toolCallDuration.observe({ tool: call.tool.name }, (performance.now() - started) / 1000);
    return result;
  };
}
