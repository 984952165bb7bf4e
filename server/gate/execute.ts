/**
 * Starting, running and recording one execution of a change (the gate's executor): the store's
 * `beginExecution` (consuming a once grant, refusing a duplicate or a reused idempotency key), the
 * handler, `finishExecution`, and what the model is told. Identical window calls that arrive while
 * one runs in this process wait for its result (`coalesce`).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { toSentinelError } from '../../core/index.ts';
import type { ExecuteFn, ToolCall } from '../pipeline.ts';
import type { ApprovalRequest } from './approval-request.ts';
import { bindingOf, type GateCore } from './core.ts';
import {
  alreadyRunningResult,
  coalescedResult,
  firstLine,
  gateErrorResult,
  replayedResult,
  staleResult,
  withExecutedMeta,
} from './messages.ts';
import { newId } from './ids.ts';
import { effectDifference, resolutionFromDryRun } from './preview.ts';
import type { BeginExecution, CallBinding, StoredExecution } from './store/types.ts';

/** An execution as the gate asks for it (the binding, id and tool come from the call). */
export type ExecutionPlan = Omit<BeginExecution, 'id' | 'tool' | keyof CallBinding>;

/** Runs before the handler, after the execution row exists: a result stops it (stale approval). */
export type PreRunCheck = () => Promise<{ result: CallToolResult; outcome: string } | undefined>;

/** The executor's state: the gate's core and the executions running in this process. */
export interface Executor {
  core: GateCore;
  /** Results of the executions this process runs now, by execution id. */
  inFlight: Map<string, Promise<CallToolResult | undefined>>;
}

export function createExecutor(core: GateCore): Executor {
  return { core, inFlight: new Map() };
}

/**
 * Starts, runs and records one execution. `check` runs after the execution row exists (so a once
 * grant is already consumed) and may return a result to stop before the handler (stale approval).
 */
export async function execute(
  executor: Executor,
  call: ToolCall,
  next: ExecuteFn,
  plan: ExecutionPlan,
  options: { dryRun: boolean; check?: PreRunCheck | undefined },
): Promise<CallToolResult> {
  const { store } = executor.core.options;
  const started = await store.beginExecution(
    { ...plan, ...bindingOf(call), id: newId('exe'), tool: call.tool.name },
    executor.core.now(),
  );
  if (!started.ok) {
    switch (started.reason) {
      case 'not_approved':
        return alreadyRunningResult(started.request, call.tool.name);
      case 'duplicate':
        if (plan.authorization === 'window') return coalesce(executor, started.existing);
        return replayedResult(
          started.existing,
          plan.authorization === 'upstream'
            ? 'an identical call from this identity ran inside the replay window'
            : 'an identical call is executing under the same grant',
        );
      case 'idempotency_key_used':
        return idempotentReplay(started.existing, plan.callKey, plan.idempotencyKey ?? '');
    }
  }
  const execution = started.execution;
  call.notes.execution = execution;
  let settle: (result: CallToolResult | undefined) => void = () => undefined;
  executor.inFlight.set(execution.id, new Promise((resolve) => (settle = resolve)));
  let answer: CallToolResult | undefined;
  try {
    answer = await run(executor, call, execution, next, plan, options);
    return answer;
  } finally {
    executor.inFlight.delete(execution.id);
    settle(answer);
  }
}

async function run(
  executor: Executor,
  call: ToolCall,
  execution: StoredExecution,
  next: ExecuteFn,
  plan: ExecutionPlan,
  options: { dryRun: boolean; check?: PreRunCheck | undefined },
): Promise<CallToolResult> {
  const stop = options.check ? await options.check() : undefined;
  if (stop) {
    await finish(executor, call, execution, 'stale', stop.outcome, stop.result);
    return stop.result;
  }
  let result: CallToolResult;
  try {
    result = await next({
      args: plan.arguments,
      dryRun: options.dryRun,
      ...(plan.requestId && { approvalRequestId: plan.requestId }),
    });
  } catch (error) {
    const failure = toSentinelError(error);
    result = gateErrorResult(failure.message, failure.code, failure.field);
  }
  await finish(executor, call, execution, result.isError ? 'failed' : 'succeeded', firstLine(result), result);
  return plan.authorization === 'policy' ? result : withExecutedMeta(result, plan.requestId, execution.id);
}

/**
 * The answer to a window call that coalesced with `existing`: its result — awaited when it runs in
 * this process, read from the store when it has finished — or, while it runs in another process,
 * a result saying it is executing.
 */
async function coalesce(executor: Executor, existing: StoredExecution): Promise<CallToolResult> {
  const { store } = executor.core.options;
  const waited = await executor.inFlight.get(existing.id);
  const result = waited ?? (await store.getExecution(existing.id))?.result ?? undefined;
  if (result) return coalescedResult(existing, result);
  return replayedResult(
    (await store.getExecution(existing.id)) ?? existing,
    'an identical call under the same window grant was executing when this one arrived',
  );
}

async function finish(
  executor: Executor,
  call: ToolCall,
  execution: StoredExecution,
  status: 'succeeded' | 'failed' | 'stale',
  outcome: string,
  result: CallToolResult,
): Promise<void> {
  const { store, logger } = executor.core.options;
  await store.finishExecution(execution.id, { status, outcome, result }, executor.core.now());
  call.notes.execution = { ...execution, status, outcome };
  logger?.info(
    {
      executionId: execution.id,
      approvalRequestId: execution.requestId,
      tool: execution.tool,
      outcome: status,
    },
    'execution finished',
  );
}

/** The answer to a call whose `idempotency_key` an earlier execution used. */
export function idempotentReplay(
  existing: StoredExecution,
  key: string,
  idempotencyKey: string,
): CallToolResult {
  if (existing.callKey !== key) {
    return gateErrorResult(
      `idempotency_key '${idempotencyKey}' was already used for a different ${existing.tool} call (execution ${existing.id}); nothing was run. Use a new key for a new call.`,
      'conflict',
      'idempotency_key',
    );
  }
  if (existing.result && existing.status !== 'executing') {
    return {
      ...existing.result,
      _meta: { ...existing.result._meta, idempotent_replay: true, execution_id: existing.id },
    };
  }
  return replayedResult(existing, `idempotency_key '${idempotencyKey}' was used by an earlier call`);
}

/** A check that stops the execution as stale for `difference` (decided before it began). */
export function staleStop(request: ApprovalRequest, difference: string): PreRunCheck {
  return async () => ({ result: staleResult(request, difference), outcome: `stale: ${difference}` });
}

/**
 * Re-runs the preview of the approved call (when this call resolved to another one); a different
 * effect (or a failing preview) is stale.
 */
export function previewRecheck(
  call: ToolCall,
  next: ExecuteFn,
  request: ApprovalRequest,
  args: Record<string, unknown>,
): PreRunCheck {
  return async () => {
    const current = await next({ args: { ...args, dry_run: true }, dryRun: true, recheck: true });
    let difference: string | undefined;
    if (current.isError) {
      difference = `the preview now fails: ${firstLine(current)}`;
    } else {
      try {
        const now = resolutionFromDryRun(call.tool, args, current);
        difference = effectDifference(request.preview?.effect ?? null, now.preview?.effect ?? null);
      } catch (error) {
        difference = toSentinelError(error).message;
      }
    }
    if (difference === undefined) return undefined;
    return { result: staleResult(request, difference), outcome: `stale: ${difference}` };
  };
}
