/**
 * Public entry of the approval gate: `createGate` (the `tools/call` middleware, the approvals
 * service and router, crash reconciliation), the policy loader, the SQLite store, and the shapes in
 * `approval-request.ts`.
 *
 * `idempotency_key` belongs to the gate, not to the tools: the server publishes and parses
 * write/destructive tools with `publishedInput(tool)` (server/tool-input.ts), which adds it; the
 * gate reads it from the parsed arguments and strips it before the handler runs.
 */
import type { Router } from 'express';
import type { ToolCallMiddleware } from '../pipeline.ts';
import { createApprovalsService, type ApprovalsOptions, type ApprovalsService } from './approvals.ts';
import { createGateCore, createGateMiddleware, type GateOptions } from './gate.ts';
import { reconcileExecutions, type ClusterReader, type ReconcileReport } from './reconcile.ts';
import { createApprovalsRouter, type ApprovalsRouterOptions } from './router.ts';

export * from './approval-request.ts';
export { loadPolicyFile, parsePolicy, DEFAULT_POLICY_PATH, type LoadedPolicy } from './policy/load.ts';
export type { CompiledPolicy, Verdict, PolicyQuery } from './policy/evaluate.ts';
export { openSqliteStore, STORE_FILE } from './store/sqlite.ts';
export type { ApprovalStore } from './store/types.ts';
export type { GateEvent, GateOptions } from './gate.ts';
export type { ApprovalsService, PreviewFn } from './approvals.ts';
export {
  APPROVAL_ANNOTATION,
  type ReconcileEvidence,
  type ReconcileReport,
  type SettledExecution,
} from './reconcile.ts';
export type { ExecutionSettledEvent } from './events.ts';

export interface GateSetup extends GateOptions, ApprovalsOptions {
  /** How often pending requests and unused grants are expired (ms). Default 15 s. */
  sweepIntervalMs?: number;
}

export interface Gate {
  middleware: ToolCallMiddleware;
  approvals: ApprovalsService;
  /** The approvals/freeze API; mount it behind the server's bearer authentication. */
  router(options?: ApprovalsRouterOptions): Router;
  /**
   * Settles executions a crashed server left `executing` (call at start, before serving). `reader`
   * may be a function: it is then asked only when there is an execution to settle (so a start with
   * none does not connect to the cluster).
   */
  reconcile(reader: ClusterReader): Promise<ReconcileReport>;
  /** Stops the expiry sweep and closes the store. */
  close(): Promise<void>;
}

/**
 * Builds the gate over a loaded policy and an open store. Starts a periodic expiry sweep (unref'd:
 * it never keeps the process alive) that emits `approval_expired` events.
 */
export function createGate(setup: GateSetup): Gate {
  const core = createGateCore(setup);
  const approvals = createApprovalsService(core, setup);
  const sweep = setInterval(() => {
    approvals.sweep().catch((error: unknown) => setup.logger?.warn({ err: error }, 'expiry sweep failed'));
  }, setup.sweepIntervalMs ?? 15_000);
  sweep.unref();
  return {
    middleware: createGateMiddleware(core),
    approvals,
    router: (options) => createApprovalsRouter(approvals, options),
    reconcile: (reader) =>
      reconcileExecutions(setup.store, reader, {
        now: core.now,
        ...(setup.logger && { logger: setup.logger }),
        onSettled: async ({ execution, evidence }) => {
          const request = execution.requestId ? await setup.store.get(execution.requestId) : undefined;
          core.emit({ type: 'execution_settled', settled_by: 'reconcile', execution, request, evidence });
        },
      }),
    async close() {
      clearInterval(sweep);
      // Report what expired since the last sweep while the listeners (audit) still listen.
      await approvals
        .sweep()
        .catch((error: unknown) => setup.logger?.warn({ err: error }, 'expiry sweep failed'));
      await setup.store.close();
    },
  };
}
