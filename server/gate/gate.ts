/**
 * The server-side approval gate as a `tools/call` middleware (DESIGN.md, "The server-side gate"),
 * a typed decision pipeline:
 *
 *   screen (policy as sent, freeze, idempotency key; decision.ts)
 *     → resolve (the dry run, once per call: the resolved call and its effect)
 *     → decide (policy as resolved, the store's denial / grants / trust; decision.ts, pure)
 *     → carry out (execute.ts, run-upstream.ts, hold) → render (messages.ts)
 *
 * The decision is left in `call.notes.decision` (and the legacy `{rule, decision}` in
 * `call.notes.gate`) for the audit log and the metrics, which wrap the gate. Reads the policy
 * allows go straight to the handler without touching the store. A held call is recorded as a
 * pending approval request (or the pending one for the same requester, cluster and canonical call
 * is reused) and answered with a successful result whose `_meta` says `approval_status:
 * "pending"`. A retry after approval consumes the grant atomically, re-checks the target against
 * its own resolution (stale → not executed), and executes the resolved call once.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Tool } from '../../tools/index.ts';
import type { ExecuteFn, ToolCall, ToolCallMiddleware } from '../pipeline.ts';
import type { ApprovalRequest } from './approval-request.ts';
import { approverStanding } from './approver-standing.ts';
import { callKey, matchedArguments } from './canonical.ts';
import { bindingOf, type GateCore } from './core.ts';
import {
  decide,
  needsStore,
  previewAnswers,
  screen,
  type AskFacts,
  type GateDecision,
  type ResolvedCall,
  type Standing,
} from './decision.ts';
import {
  createExecutor,
  execute,
  idempotentReplay,
  previewRecheck,
  staleStop,
  type ExecutionPlan,
  type Executor,
} from './execute.ts';
import { holdCall } from './hold.ts';
import {
  alreadyRunningResult,
  frozenResult,
  gateErrorResult,
  humanDeniedResult,
  noChangeResult,
  policyDeniedResult,
} from './messages.ts';
import { gateOutcome } from './outcome.ts';
import type { PolicyQuery, Verdict } from './policy/evaluate.ts';
import { recordedEffect } from './reconcile.ts';
import { resolveJudged } from './resolve.ts';
import { runUpstream } from './run-upstream.ts';
import type { ExecutionMark } from './store/types.ts';

export {
  bindingOf,
  createGateCore,
  upstreamReplayKey,
  type GateCore,
  type GateEvent,
  type GateOptions,
} from './core.ts';

/** One call on its way through the gate: what every stage reads. */
interface GateCall {
  call: ToolCall;
  next: ExecuteFn;
  /** The call's arguments without `idempotency_key`. */
  args: Record<string, unknown>;
  idempotencyKey: string | undefined;
  /** `callKey` of the call as sent (computed on first use: a read allowed by policy never needs it). */
  readonly key: string;
  query: PolicyQuery & { tool: Tool };
  /** What runs when this call arrived (window calls coalesce with it); taken before any await. */
  arrival: Promise<ExecutionMark | undefined> | undefined;
}

interface GateState {
  core: GateCore;
  executor: Executor;
  /** Trusted identities added at runtime already warned about. */
  warnedTrusted: Set<string>;
}

/** Arguments the executed call carries: the matched arguments plus the requester's `reason`. */
function executionArguments(
  tool: Tool,
  args: Record<string, unknown>,
  reason: unknown,
): Record<string, unknown> {
  const out = matchedArguments(args);
  if (typeof reason === 'string' && 'reason' in tool.input.shape) out.reason = reason;
  return out;
}

/** Builds the `tools/call` middleware. */
export function createGateMiddleware(core: GateCore): ToolCallMiddleware {
  const state: GateState = { core, executor: createExecutor(core), warnedTrusted: new Set() };
  return async function approvalGate(call, next) {
    const decided = await decideCall(state, call, next);
    call.notes.decision = decided.decision;
    const result = await carryOut(state, decided.gate, decided.resolved, decided.decision);
    call.notes.outcome = gateOutcome(decided.decision, result);
    const request = await requestOf(state, decided.decision);
    if (request && call.notes.gate && !call.notes.gate.request) call.notes.gate.request = request;
    return result;
  };
}

/** The approval request a decision names (an idempotent replay: the earlier execution's). */
async function requestOf(state: GateState, decision: GateDecision): Promise<ApprovalRequest | undefined> {
  if ('request' in decision) return decision.request;
  if (decision.kind === 'replay_refused' && decision.earlier.requestId) {
    return state.core.options.store.get(decision.earlier.requestId);
  }
  return undefined;
}

/** Stages 1–2: screen, resolve once, decide. */
async function decideCall(
  state: GateState,
  call: ToolCall,
  next: ExecuteFn,
): Promise<{ gate: GateCall; decision: GateDecision; resolved?: ResolvedCall }> {
  const { registry, policy, store } = state.core.options;
  const { tool, identity } = call;
  const registered = registry.get(tool.name) === tool;
  const { idempotency_key: rawKey, ...args } = call.args;
  const query = { toolName: tool.name, tool, args, cluster: call.cluster?.context, identity };
  const verdict = registered
    ? policy.evaluate(query)
    : policy.evaluate({ toolName: tool.name, tool: undefined, args: call.args, cluster: undefined });
  call.notes.gate = { rule: verdict.rule, decision: verdict.decision };
  const changes = tool.risk !== 'read' && !verdict.dryRun;
  let key: string | undefined;
  const gate: GateCall = {
    call,
    next,
    args,
    idempotencyKey: typeof rawKey === 'string' ? rawKey : undefined,
    get key() {
      return (key ??= callKey(tool.name, args));
    },
    query,
    arrival: undefined,
  };
  const early = screen({ registered, verdict, changes });
  if (early) return { gate, decision: early };
  gate.arrival = tool.risk === 'read' ? undefined : store.executionMark().catch((): undefined => undefined);
  const freeze = changes ? await store.getFreeze() : undefined;
  const earlier =
    gate.idempotencyKey === undefined
      ? undefined
      : await store.findExecutionByIdempotencyKey(identity.name, tool.name, gate.idempotencyKey);
  const screened = screen({
    registered,
    verdict,
    changes,
    ...(freeze && { freeze }),
    ...(earlier && { earlier }),
  });
  if (screened) return { gate, decision: screened };
  const recheck = await approvedBefore(state, gate, verdict);
  let resolved = await resolve(state, gate, verdict, recheck);
  call.notes.gate = { rule: resolved.verdict.rule, decision: resolved.verdict.decision };
  const facts =
    needsStore(resolved) && 'resolution' in resolved ? await askFacts(state, gate, resolved) : undefined;
  const approved = facts?.approved?.request;
  const decideOn = (on: ResolvedCall) =>
    decide(on, facts, {
      supportsDryRun: tool.supportsDryRun,
      ...(approved && { approvedKey: callKey(tool.name, approved.arguments) }),
    });
  let decision = decideOn(resolved);
  if (recheck && (decision.kind === 'hold' || decision.kind === 'run_upstream')) {
    // The grant did not apply after all (void, expired meanwhile): what a human will read next is
    // the full preview, warnings included.
    resolved = await resolve(state, gate, verdict, false);
    decision = decideOn(resolved);
  }
  return { gate, decision, resolved };
}

/**
 * Whether an approved request matches this change as sent, looked up before its dry run: then the
 * dry run only re-checks the approved effect (`ToolContext.recheck`), skipping the reads that only
 * feed warnings — the approver read those in the preview they decided on, stored with the request.
 * A hint only: `askFacts` looks the grant up again, and a call it does not cover is re-resolved.
 */
async function approvedBefore(state: GateState, gate: GateCall, asSent: Verdict): Promise<boolean> {
  const { call } = gate;
  if (!call.tool.supportsDryRun || asSent.decision !== 'ask' || asSent.dryRun) return false;
  const found = await state.core.options.store.findApprovedCall(bindingOf(call), gate.key, state.core.now());
  return found !== undefined;
}

/**
 * A change is judged by what it resolves to as well as by how it was spelled (a Service name stands
 * for the Deployment behind it, an omitted to_revision for a concrete revision); the stricter
 * verdict wins, and a call that cannot be resolved is never run. Runs the dry run once per call
 * (`recheck`: one that only re-checks an approved call, `approvedBefore`).
 */
async function resolve(
  state: GateState,
  gate: GateCall,
  asSent: Verdict,
  recheck: boolean,
): Promise<ResolvedCall> {
  const { next, query } = gate;
  return resolveJudged(state.core.options.policy, query, asSent, (dryArgs) =>
    next({ args: dryArgs, dryRun: true, ...(recheck && { recheck }) }),
  );
}

/** How the approver of `request` stands now (void grants are cancelled by `cancelVoid`). */
function standingOf(state: GateState, request: ApprovalRequest): Standing {
  const standing = approverStanding(request, state.core.options);
  return standing.ok === true ? 'stands' : standing.ok === 'unknown' ? 'unknown' : 'void';
}

/** The store's facts for an ask, in the order they count (a denial is claimed only when read). */
async function askFacts(
  state: GateState,
  gate: GateCall,
  resolved: Extract<ResolvedCall, { resolution: unknown }>,
): Promise<AskFacts> {
  const { store } = state.core.options;
  const { call, next, args, key } = gate;
  const { verdict } = resolved;
  const binding = bindingOf(call);
  const now = state.core.now();
  const upstream =
    call.identity.trustUpstreamApproval === true && upstreamGated(state, call.tool) && !verdict.dryRun;
  // A preview changes nothing: one that shows nothing to do needs no human at all.
  const previewOnly = verdict.dryRun ? await next({ args, dryRun: true }) : undefined;
  if (previewAnswers(previewOnly)) return { previewOnly, upstream };
  // The call as sent, then as resolved: the same canonical call with its defaults applied (an
  // omitted to_revision is the previous revision), as pending requests are reused (planPending).
  const other = resolved.resolvedKey !== key ? resolved.resolvedKey : undefined;
  const denial =
    (await store.claimDenial(binding, key, now)) ??
    (other === undefined ? undefined : await store.claimDenial(binding, other, now));
  if (denial) return { denial, upstream };
  const approvedRequest =
    (await store.findApprovedCall(binding, key, now)) ??
    (other === undefined ? undefined : await store.findApprovedCall(binding, other, now));
  const approved = approvedRequest && {
    request: approvedRequest,
    standing: standingOf(state, approvedRequest),
  };
  if (approved?.standing === 'void') await cancelVoid(state, approved.request);
  if (approved && approved.standing !== 'void') return { approved, upstream };
  const windowRequest = await store.findWindowGrant(binding, call.tool.name, verdict.scope, now);
  const window = windowRequest && { request: windowRequest, standing: standingOf(state, windowRequest) };
  if (window?.standing === 'void') await cancelVoid(state, window.request);
  return { ...(window && window.standing !== 'void' && { window }), upstream };
}

function upstreamGated(state: GateState, tool: Tool): boolean {
  return (state.core.options.upstreamGated ?? ((t: Tool) => t.risk !== 'read'))(tool);
}

/** Cancels a grant whose approver no longer stands, naming why; the call goes on without it. */
async function cancelVoid(state: GateState, request: ApprovalRequest): Promise<void> {
  const standing = approverStanding(request, state.core.options);
  if (standing.ok !== false) return;
  const cancelled = await state.core.options.store.cancelGrant(request.id, standing.reason);
  if (cancelled) state.core.emit({ type: 'approval_cancelled', request: cancelled });
  state.core.options.logger?.warn(
    { approvalRequestId: request.id, approver: request.decision?.by },
    'grant not used: its approver no longer stands',
  );
}

/** Carries out `decision` and renders its MCP result. */
async function carryOut(
  state: GateState,
  gate: GateCall,
  resolved: ResolvedCall | undefined,
  decision: GateDecision,
): Promise<CallToolResult> {
  const { call, next, args } = gate;
  const { tool } = call;
  switch (decision.kind) {
    case 'deny':
      return policyDeniedResult(tool.name, decision.verdict);
    case 'frozen':
      return frozenResult(tool.name, decision.freeze);
    case 'replay_refused':
      return idempotentReplay(decision.earlier, gate.key, gate.idempotencyKey ?? '');
    case 'unresolvable':
      return unresolvable(state, tool, decision.failed);
    case 'preview':
      return decision.result;
    case 'no_change':
      return noChangeResult(decision.preview, tool.name);
    case 'denied_before':
      return humanDeniedResult(decision.request);
    case 'in_progress':
      return alreadyRunningResult(decision.request, tool.name);
    case 'standing_unknown':
      return standingUnknownResult(decision.request);
    case 'allow':
      if (!decision.execute) return decision.verdict.dryRun ? next({ args, dryRun: true }) : next();
      return execute(
        state.executor,
        call,
        next,
        { ...basePlan(gate, resolved), authorization: 'policy' },
        {
          dryRun: false,
        },
      );
    case 'run_once_grant':
    case 'stale':
      return runApproved(state, gate, resolved, decision.request, decision);
    case 'run_window_grant':
      return decision.via === 'call'
        ? runApproved(state, gate, resolved, decision.request, decision)
        : runWindow(state, gate, resolved, decision.request, decision.verdict);
    case 'run_upstream':
      return runTrusted(state, gate, resolved, decision.verdict);
    case 'hold':
      return hold(state, gate, resolved, decision.verdict);
  }
}

/** What every execution of this call carries: its key, the resolved arguments, its idempotency key. */
function basePlan(gate: GateCall, resolved: ResolvedCall | undefined): Omit<ExecutionPlan, 'authorization'> {
  const resolution = resolved && 'resolution' in resolved ? resolved.resolution : undefined;
  return {
    callKey: gate.key,
    // What runs is the call the policy judged: the resolved one (the call as sent for a preview).
    arguments: executionArguments(gate.call.tool, resolution?.arguments ?? gate.args, gate.args.reason),
    ...(gate.idempotencyKey !== undefined && { idempotencyKey: gate.idempotencyKey }),
  };
}

/**
 * Executes an approved request's call: consume a once grant (a window grant stays open for the
 * other calls it covers), stop as stale when the target changed since the approver saw the
 * preview (decided already, or re-checked by a preview of the approved call), run. The execution
 * records the approved effect with the generation this call's own dry run read (`recordedEffect`),
 * which crash reconciliation compares against.
 */
async function runApproved(
  state: GateState,
  gate: GateCall,
  resolved: ResolvedCall | undefined,
  request: ApprovalRequest,
  decision: Extract<GateDecision, { kind: 'run_once_grant' | 'stale' | 'run_window_grant' }>,
): Promise<CallToolResult> {
  const { call, next } = gate;
  const args = executionArguments(call.tool, request.arguments, request.reason ?? undefined);
  const window = request.grant !== null && request.grant.validity !== 'once';
  const preview = window && request.executions.length > 0 ? null : request.preview;
  const arrival = await gate.arrival;
  const read = resolved && 'resolution' in resolved ? resolved.resolution : undefined;
  const check =
    decision.kind === 'stale'
      ? staleStop(request, decision.difference)
      : decision.recheck
        ? previewRecheck(call, next, request, args)
        : undefined;
  return execute(
    state.executor,
    call,
    next,
    {
      authorization: window ? 'window' : 'once',
      requestId: request.id,
      callKey: callKey(call.tool.name, request.arguments),
      arguments: args,
      effect: recordedEffect(
        preview?.effect,
        read && { effect: read.preview?.effect, generation: read.generation },
      ),
      ...(gate.idempotencyKey !== undefined && { idempotencyKey: gate.idempotencyKey }),
      ...(window && arrival && { arrival }),
    },
    { dryRun: request.arguments.dry_run === true, check },
  );
}

/** Executes this call under a window grant whose scope covers it. */
async function runWindow(
  state: GateState,
  gate: GateCall,
  resolved: ResolvedCall | undefined,
  request: ApprovalRequest,
  verdict: Verdict,
): Promise<CallToolResult> {
  const mark = await gate.arrival;
  const resolution = resolved && 'resolution' in resolved ? resolved.resolution : undefined;
  return execute(
    state.executor,
    gate.call,
    gate.next,
    {
      ...basePlan(gate, resolved),
      authorization: 'window',
      requestId: request.id,
      // Identical means the same resolved call, however it was spelled.
      replayKey: callKey(gate.call.tool.name, resolution?.arguments ?? gate.args),
      ...(mark && { arrival: mark }),
    },
    { dryRun: verdict.dryRun },
  );
}

/** A trusted identity's call: on a verified harness approval it runs; otherwise it is held. */
async function runTrusted(
  state: GateState,
  gate: GateCall,
  resolved: ResolvedCall | undefined,
  verdict: Verdict,
): Promise<CallToolResult> {
  warnIfTrustedAtRuntime(state, gate.call.identity);
  if (!resolved || !('resolution' in resolved)) return hold(state, gate, resolved, verdict);
  const upstream = await runUpstream(state.executor, gate.call, gate.next, {
    args: gate.args,
    verdict,
    resolution: resolved.resolution,
    base: basePlan(gate, resolved),
  });
  if (upstream.result) return upstream.result;
  return hold(state, gate, resolved, verdict, upstream.why);
}

async function hold(
  state: GateState,
  gate: GateCall,
  resolved: ResolvedCall | undefined,
  verdict: Verdict,
  upstreamRefused?: string,
): Promise<CallToolResult> {
  if (!resolved || !('resolution' in resolved)) throw new Error('hold: the call was not resolved');
  return holdCall(state.core, gate.call, {
    args: gate.args,
    verdict,
    resolved,
    query: gate.query,
    ...(upstreamRefused !== undefined && { upstreamRefused }),
  });
}

/** A trusted identity the start-up warning did not cover: warn (log and event) on its first call. */
function warnIfTrustedAtRuntime(state: GateState, identity: ToolCall['identity']): void {
  const { core } = state;
  const trusted = core.options.trustedAtStart;
  const key = `${identity.name}:${identity.credential ?? ''}`;
  if (!trusted || trusted.has(key) || state.warnedTrusted.has(key)) return;
  state.warnedTrusted.add(key);
  core.options.logger?.warn(
    { identity: identity.name },
    'identity with trust_upstream_approval added while the server runs: its calls run on the harness approval alone',
  );
  core.emit({ type: 'upstream_trust_added', identity: identity.name, at: core.now().toISOString() });
}

/** The result of a call whose dry run failed: it cannot be judged or approved as it stands. */
function unresolvable(state: GateState, tool: Tool, failed: CallToolResult | Error): CallToolResult {
  if (!(failed instanceof Error)) return failed;
  state.core.options.logger?.error({ err: failed, tool: tool.name }, 'dry-run preview breaks the contract');
  return gateErrorResult(`${failed.message} The call was not run; nothing changed.`);
}

function standingUnknownResult(request: ApprovalRequest): CallToolResult {
  return gateErrorResult(
    `Approval request ${request.id} was approved by ${request.decision?.by ?? 'an approver'}, whose identity cannot be checked now (tokens.yaml does not load); the call was not run and nothing changed. Retry once the server's identities load again.`,
    'unavailable',
  );
}
