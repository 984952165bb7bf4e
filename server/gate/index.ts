/**
 * Public entry of the approval gate: `createGate` (the `tools/call` middleware, the approvals
 * service and router, crash reconciliation), the policy loader, the SQLite store, and the shapes in
 * `approval-request.ts`.
 *
 * `idempotency_key` belongs to the gate, not to the tools: `gatedInputSchema(tool)` is the schema the
 * server publishes in `tools/list` and parses `tools/call` arguments with — the tool's own strict
 * schema, extended with an optional `idempotency_key` for write/destructive tools. The gate reads it
 * from the parsed arguments and strips it before the handler runs, so no tool declares it.
 */
import type { Router } from 'express';
import { z } from 'zod';
import type { StrictObjectSchema, Tool } from '../../tools/define-tool.ts';
import type { KubeReader } from '../../tools/kube/types.ts';
import type { Identity, ToolCallMiddleware } from '../pipeline.ts';
import { createApprovalsService, type ApprovalsOptions, type ApprovalsService } from './approvals.ts';
import { createGateCore, createGateMiddleware, type GateOptions } from './gate.ts';
import { reconcileExecutions, type ReconcileReport } from './reconcile.ts';
import { createApprovalsRouter, type ApprovalsRouterOptions } from './router.ts';

export * from './approval-request.ts';
export { loadPolicyFile, parsePolicy, DEFAULT_POLICY_PATH, type LoadedPolicy } from './policy/load.ts';
export type { CompiledPolicy, Verdict, PolicyQuery } from './policy/evaluate.ts';
export { openSqliteStore, STORE_FILE } from './store/sqlite.ts';
export type { ApprovalStore } from './store/types.ts';
export type { GateEvent, GateOptions } from './gate.ts';
export type { ApprovalsService, PreviewFn } from './approvals.ts';
export { APPROVAL_ANNOTATION, type ReconcileReport } from './reconcile.ts';

/** The gate-owned optional argument of every write/destructive tool. */
export const IdempotencyKeySchema = z
  .string()
  .min(1)
  .max(200)
  .describe(
    'Optional. A key you choose for this change (e.g. a UUID). Repeating the same tool call with the same key returns the first result instead of executing again.',
  );

/** The input schema the server publishes and parses for `tool` (see the module comment). */
export function gatedInputSchema(tool: Tool): StrictObjectSchema {
  if (tool.risk === 'read') return tool.input;
  return tool.input.extend({
    idempotency_key: IdempotencyKeySchema.optional(),
  }) as unknown as StrictObjectSchema;
}

/** Start-up warnings for identities that bypass the server's own approvals (one line each). */
export function upstreamTrustWarnings(identities: readonly Identity[]): string[] {
  return identities
    .filter((identity) => identity.trustUpstreamApproval)
    .map(
      (identity) =>
        `identity '${identity.name}' has trust_upstream_approval: its write/destructive calls run on the harness's approval alone, without a server-side approval request`,
    );
}

export interface GateSetup extends GateOptions, ApprovalsOptions {
  /** How often pending requests and unused grants are expired (ms). Default 15 s. */
  sweepIntervalMs?: number;
}

export interface Gate {
  middleware: ToolCallMiddleware;
  approvals: ApprovalsService;
  /** The approvals/freeze API; mount it behind the server's bearer authentication. */
  router(options?: ApprovalsRouterOptions): Router;
  /** Settles executions a crashed server left `executing` (call at start, before serving). */
  reconcile(reader: KubeReader | undefined): Promise<ReconcileReport>;
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
    approvals
      .sweep()
      .catch((error: unknown) => setup.logger?.warn({ err: error }, 'expiry sweep failed'));
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
      }),
    async close() {
      clearInterval(sweep);
      await setup.store.close();
    },
  };
}
