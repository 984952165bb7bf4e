/**
 * The server-side approval gate as a `tools/call` middleware (DESIGN.md, "The server-side gate").
 *
 * For every call: the policy decides allow / ask / deny from the tool, the cluster and the parsed
 * arguments (never from MCP annotations). Reads the policy allows go straight to the handler without
 * touching the store. Write/destructive calls are refused while changes are frozen. Every change is
 * then resolved through its dry run and judged again on the resolved call (`evaluateResolved`: the
 * stricter verdict wins; an unresolvable call is refused), and what runs is the resolved call. A held
 * call is recorded as a pending approval request (or the pending one for the same requester,
 * cluster and canonical call is reused) and answered with a successful result whose `_meta` says
 * `approval_status: "pending"`. A retry after approval consumes the grant atomically, re-checks the
 * target (stale → not executed), and executes the resolved call once, stamped with the request id.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { Tool, ToolRegistry } from '../../tools/index.ts';
import { toSentinelError } from '../../core/index.ts';
import type { ExecuteFn, ToolCall, ToolCallMiddleware } from '../pipeline.ts';
import type { ApprovalRequest } from './approval-request.ts';
import { approverStanding, type StandingLookup } from './approver-standing.ts';
import type { ApprovalEvent, ExecutionSettledEvent } from './events.ts';
import { callKey, canonicalJson, matchedArguments, sha256 } from './canonical.ts';
import {
  alreadyRunningResult,
  coalescedResult,
  firstLine,
  frozenResult,
  gateErrorResult,
  humanDeniedResult,
  noChangeResult,
  pendingResult,
  policyDeniedResult,
  replayedResult,
  staleResult,
  withExecutedMeta,
} from './messages.ts';
import { evaluateResolved, type CompiledPolicy, type PolicyQuery, type Verdict } from './policy/evaluate.ts';
import { windowCoverage } from './window-coverage.ts';
import { newId } from './ids.ts';
import { requestRecord, resolveCall, type Resolved } from './new-request.ts';
import { effectDifference, isNoOpPreview, resolutionFromDryRun, type Resolution } from './preview.ts';
import type {
  ApprovalStore,
  BeginExecution,
  CallBinding,
  ExecutionMark,
  StoredExecution,
} from './store/types.ts';
import { clientRefKey } from './approval-request.ts';
import { grantFor } from './approvals.ts';
import type { UpstreamVerifier } from './upstream.ts';

/** Lifecycle events, for notifications, metrics and audit (issue 7). Listeners must not throw. */
export type GateEvent =
  | ApprovalEvent
  | { type: 'execution_finished'; execution: StoredExecution }
  | ExecutionSettledEvent
  /** A `trust_upstream_approval` identity not present at start-up made its first call. */
  | { type: 'upstream_trust_added'; identity: string; at: string };

export interface GateOptions {
  registry: ToolRegistry;
  policy: CompiledPolicy;
  store: ApprovalStore;
  logger?: Logger;
  /** Clock (tests move it). Default `() => new Date()`. */
  now?: () => Date;
  /**
   * Server base URL shown in the pending message (where approvers act), e.g.
   * `http://127.0.0.1:7070`; a function when it is known only once the server listens. Without it
   * the message gives paths only.
   */
  approvalsUrl?: string | (() => string | undefined);
  /**
   * Tools whose calls the upstream harness gates (its `require_approval_for_tools`): for an identity
   * with `trustUpstreamApproval`, an `ask` on such a tool runs on the harness's approval alone.
   * Default: every write/destructive tool (the agent spec lists them all).
   */
  upstreamGated?: (tool: Tool) => boolean;
  onEvent?: (event: GateEvent) => void;
  /**
   * `trust_upstream_approval` identities present when the server started, as `name:credential`
   * (the start-up warning covered them). A trusted identity outside this set — added to tokens.yaml
   * while the server runs — is warned about on its first call. Undefined: no runtime warning.
   */
  trustedAtStart?: ReadonlySet<string>;
  /**
   * Verifies the harness approvals of `trust_upstream_approval` identities against their harness
   * (server/gate/upstream.ts). Without it no upstream approval is honoured: such calls are held.
   */
  upstreamVerifier?: UpstreamVerifier;
  /**
   * Whether an identity is a registered harness connector (default: it names an `upstreamHarness`,
   * or is `trueforge`). A held call of one says the harness approval arrived but does not count.
   */
  isHarnessConnector?: (identity: ToolCall['identity']) => boolean;
  /**
   * The identity named `name` now (tokens.yaml): a grant is used only while its approver exists and
   * may still approve it (`approverStanding`). Without it, approvers are not re-checked.
   */
  findIdentity?: StandingLookup['findIdentity'];
  /** Whether the identities can be read now; while they cannot, no grant is used. */
  identitiesReadable?: StandingLookup['identitiesReadable'];
}

/** The gate's shared state, used by the middleware and by the approvals service. */
export interface GateCore {
  options: GateOptions;
  now(): Date;
  emit(event: GateEvent): void;
}

export function createGateCore(options: GateOptions): GateCore {
  return {
    options,
    now: options.now ?? (() => new Date()),
    emit(event) {
      try {
        options.onEvent?.(event);
      } catch (error) {
        options.logger?.warn({ err: error, event: event.type }, 'gate event listener failed');
      }
    },
  };
}

/** The binding of a call: requester, its token, and the cluster (context and API server URL). */
export function bindingOf(call: Pick<ToolCall, 'identity' | 'cluster'>): CallBinding {
  return {
    requester: call.identity.name,
    credential: call.identity.credential ?? '',
    cluster: call.cluster?.context ?? '',
    clusterServer: call.cluster?.server ?? '',
  };
}

/**
 * What the upstream replay window compares: the tool, the cluster (context and API server), the
 * resolved target object (kind, namespace, name, uid) and the resolved arguments (the end state the
 * call asks for) — so another spelling of the same change (defaults spelled out, a default target
 * made explicit) is still a replay. Observed state (generation, from-revision) is left out on
 * purpose: it changes once the first call ran, which is exactly when a replay must be caught.
 */
export function upstreamReplayKey(call: Pick<ToolCall, 'tool' | 'cluster'>, resolution: Resolution): string {
  const effect = resolution.preview?.effect;
  const target =
    typeof effect === 'object' && effect !== null && 'target' in effect
      ? (effect as { target: Record<string, unknown> }).target
      : undefined;
  return sha256(
    canonicalJson({
      tool: call.tool.name,
      cluster: { context: call.cluster?.context ?? '', server: call.cluster?.server ?? '' },
      target: target && {
        kind: target.kind,
        namespace: target.namespace,
        name: target.name,
        uid: target.uid,
      },
      arguments: resolution.arguments,
    }),
  );
}

/** A registered harness connector: names a harness to verify against, or is the `trueforge` identity. */
function defaultIsHarnessConnector(identity: ToolCall['identity']): boolean {
  return identity.upstreamHarness !== undefined || identity.name === 'trueforge';
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
  const { registry, policy, store, logger } = core.options;
  const approvalsUrl = (): string | undefined => {
    const url = core.options.approvalsUrl;
    return typeof url === 'function' ? url() : url;
  };
  const upstreamGated = core.options.upstreamGated ?? ((tool: Tool) => tool.risk !== 'read');

  /**
   * Starts, runs and records one execution. `check` runs after the execution row exists (so a once
   * grant is already consumed) and may return a result to stop before the handler (stale approval).
   */
  async function execute(
    call: ToolCall,
    next: ExecuteFn,
    begin: Omit<BeginExecution, 'id' | 'tool' | keyof CallBinding>,
    options: {
      dryRun: boolean;
      check?: () => Promise<{ result: CallToolResult; outcome: string } | undefined>;
    },
  ): Promise<CallToolResult> {
    const started = await store.beginExecution(
      {
        ...begin,
        ...bindingOf(call),
        id: newId('exe'),
        tool: call.tool.name,
      },
      core.now(),
    );
    if (!started.ok) {
      switch (started.reason) {
        case 'not_approved':
          return alreadyRunningResult(started.request, call.tool.name);
        case 'duplicate':
          if (begin.authorization === 'window') return coalesce(started.existing);
          return replayedResult(
            started.existing,
            begin.authorization === 'upstream'
              ? 'an identical call from this identity ran inside the replay window'
              : 'an identical call is executing under the same grant',
          );
        case 'idempotency_key_used':
          return idempotentReplay(started.existing, begin.callKey, begin.idempotencyKey ?? '');
      }
    }
    const execution = started.execution;
    // Identical calls that arrive while this one runs wait for its result (`coalesce`).
    let settle: (result: CallToolResult | undefined) => void = () => undefined;
    inFlight.set(execution.id, new Promise((resolve) => (settle = resolve)));
    let answer: CallToolResult | undefined;
    try {
      answer = await run(execution, call, next, begin, options);
      return answer;
    } finally {
      inFlight.delete(execution.id);
      settle(answer);
    }
  }

  async function run(
    execution: StoredExecution,
    call: ToolCall,
    next: ExecuteFn,
    begin: Omit<BeginExecution, 'id' | 'tool' | keyof CallBinding>,
    options: {
      dryRun: boolean;
      check?: () => Promise<{ result: CallToolResult; outcome: string } | undefined>;
    },
  ): Promise<CallToolResult> {
    const stop = options.check ? await options.check() : undefined;
    if (stop) {
      await finish(execution, 'stale', stop.outcome, stop.result);
      return stop.result;
    }
    let result: CallToolResult;
    try {
      result = await next({
        args: begin.arguments,
        dryRun: options.dryRun,
        ...(begin.requestId && { approvalRequestId: begin.requestId }),
      });
    } catch (error) {
      const failure = toSentinelError(error);
      result = gateErrorResult(failure.message, failure.code, failure.field);
    }
    await finish(execution, result.isError ? 'failed' : 'succeeded', firstLine(result), result);
    return begin.authorization === 'policy'
      ? result
      : withExecutedMeta(result, begin.requestId, execution.id);
  }

  /** Results of the executions this process runs now, by execution id. */
  const inFlight = new Map<string, Promise<CallToolResult | undefined>>();

  /**
   * The answer to a window call that coalesced with `existing`: its result — awaited when it runs in
   * this process, read from the store when it has finished — or, while it runs in another process,
   * a result saying it is executing.
   */
  async function coalesce(existing: StoredExecution): Promise<CallToolResult> {
    const waited = await inFlight.get(existing.id);
    const result = waited ?? (await store.getExecution(existing.id))?.result ?? undefined;
    if (result) return coalescedResult(existing, result);
    return replayedResult(
      (await store.getExecution(existing.id)) ?? existing,
      'an identical call under the same window grant was executing when this one arrived',
    );
  }

  async function finish(
    execution: StoredExecution,
    status: 'succeeded' | 'failed' | 'stale',
    outcome: string,
    result: CallToolResult,
  ): Promise<void> {
    await store.finishExecution(execution.id, { status, outcome, result }, core.now());
    const finished = await store.getExecution(execution.id);
    if (finished) core.emit({ type: 'execution_finished', execution: finished });
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

  function idempotentReplay(existing: StoredExecution, key: string, idempotencyKey: string): CallToolResult {
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

  /**
   * Executes an approved request's resolved call: consume a once grant (a window grant stays open
   * for the other calls it covers), re-check the target against the preview the approver saw (for a
   * window, before its first execution only: later ones change the target on purpose), run.
   */
  async function executeApproved(
    call: ToolCall,
    next: ExecuteFn,
    request: ApprovalRequest,
    idempotencyKey: string | undefined,
    arrival: ExecutionMark | undefined,
  ) {
    const args = executionArguments(call.tool, request.arguments, request.reason ?? undefined);
    const window = request.grant !== null && request.grant.validity !== 'once';
    const preview = window && request.executions.length > 0 ? null : request.preview;
    const isPreview = request.arguments.dry_run === true;
    return execute(
      call,
      next,
      {
        authorization: window ? 'window' : 'once',
        requestId: request.id,
        callKey: callKey(call.tool.name, request.arguments),
        arguments: args,
        effect: preview?.effect,
        ...(idempotencyKey !== undefined && { idempotencyKey }),
        ...(window && arrival && { arrival }),
      },
      {
        dryRun: isPreview,
        check:
          preview && call.tool.supportsDryRun && !isPreview
            ? () => staleCheck(call, next, request, args)
            : undefined,
      },
    );
  }

  /** Re-runs the preview of the resolved call; a different effect (or a failing preview) is stale. */
  async function staleCheck(
    call: ToolCall,
    next: ExecuteFn,
    request: ApprovalRequest,
    args: Record<string, unknown>,
  ) {
    const current = await next({ args: { ...args, dry_run: true }, dryRun: true });
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
  }

  /**
   * Re-checks the approver of a grant about to be used: undefined when it stands; `null` when it is
   * void (the grant is cancelled here, naming why, and the call is held again as a new request); a
   * result when the identities cannot be read now (nothing runs, nothing is cancelled).
   */
  async function grantStanding(request: ApprovalRequest): Promise<CallToolResult | null | undefined> {
    const standing = approverStanding(request, core.options);
    if (standing.ok === true) return undefined;
    if (standing.ok === 'unknown') {
      return gateErrorResult(
        `Approval request ${request.id} was approved by ${request.decision?.by ?? 'an approver'}, whose identity cannot be checked now (tokens.yaml does not load); the call was not run and nothing changed. Retry once the server's identities load again.`,
        'unavailable',
      );
    }
    const cancelled = await store.cancelGrant(request.id, standing.reason);
    if (cancelled) core.emit({ type: 'approval_cancelled', request: cancelled });
    logger?.warn(
      { approvalRequestId: request.id, approver: request.decision?.by },
      'grant not used: its approver no longer stands',
    );
    return null;
  }

  const warnedTrusted = new Set<string>();
  /** A trusted identity the start-up warning did not cover: warn (log and event) on its first call. */
  function warnIfTrustedAtRuntime(identity: ToolCall['identity']): void {
    const trusted = core.options.trustedAtStart;
    const key = `${identity.name}:${identity.credential ?? ''}`;
    if (!trusted || trusted.has(key) || warnedTrusted.has(key)) return;
    warnedTrusted.add(key);
    logger?.warn(
      { identity: identity.name },
      'identity with trust_upstream_approval added while the server runs: its calls run on the harness approval alone',
    );
    core.emit({ type: 'upstream_trust_added', identity: identity.name, at: core.now().toISOString() });
  }

  /** The result of a call whose dry run failed: it cannot be judged or approved as it stands. */
  function unresolvable(tool: Tool, failed: CallToolResult | Error): CallToolResult {
    if (!(failed instanceof Error)) return failed;
    logger?.error({ err: failed, tool: tool.name }, 'dry-run preview breaks the contract');
    return gateErrorResult(`${failed.message} The call was not run; nothing changed.`);
  }

  /**
   * Runs a trusted identity's call on a verified harness approval: the first matching allow no
   * execution used becomes an approved request (decision by `upstream:<identity>`, `client_ref` the
   * harness tool call — unique, so it is consumed once, also across restarts and token rotations,
   * `upstream` the trust that let it run), which this execution consumes like a once grant and
   * stamps on the object. Undefined, with why, when the harness shows no such approval.
   */
  async function runUpstream(
    call: ToolCall,
    next: ExecuteFn,
    args: Record<string, unknown>,
    verdict: Verdict,
    resolved: Extract<Resolved, { resolution: unknown }>,
    base: Pick<BeginExecution, 'callKey' | 'arguments' | 'idempotencyKey'>,
  ): Promise<{ result?: CallToolResult; why: string }> {
    const { tool, identity } = call;
    const verifier = core.options.upstreamVerifier;
    if (!verifier) return { why: 'this server verifies no harness approvals' };
    const now = core.now();
    const keyOf = (raw: Record<string, unknown>) => {
      const { idempotency_key: _ignored, ...rest } = raw;
      const parsed = tool.input.safeParse(rest);
      return parsed.success ? callKey(tool.name, parsed.data as Record<string, unknown>) : undefined;
    };
    const finding = await verifier.find(identity, tool.name, base.callKey, keyOf, now);
    const replaySince =
      tool.risk === 'destructive' ? new Date(now.getTime() - policy.settings.replayWindowMs) : undefined;
    const replayKey = replaySince && upstreamReplayKey(call, resolved.resolution);
    for (const candidate of finding.candidates) {
      const by = `upstream:${identity.name}`;
      const record = requestRecord({
        requester: identity.name,
        createdBy: by,
        cluster: call.cluster,
        tool,
        args,
        resolution: resolved.resolution,
        verdict,
        now,
        requestTtlMs: policy.settings.requestTtlMs,
        requesterCredential: identity.credential ?? '',
        clientRef: candidate.ref,
        upstream: {
          identity: identity.name,
          trusted_by: 'trust_upstream_approval',
          approved_at: candidate.approvedAt,
        },
        approval: {
          decision: { decision: 'allow', by, at: candidate.approvedAt, reason: null, admin_fallback: false },
          grant: grantFor(
            { requester: identity.name, tool: tool.name, cluster: call.cluster ?? null, policy: verdict },
            'once',
            now,
            policy.settings.requestTtlMs,
          ),
        },
      });
      const stored = await store.insertForClientRef({ ...record, clientRefKey: clientRefKey(candidate.ref) });
      if (!stored.created) continue; // this harness approval was used by an earlier execution
      const request = stored.request;
      core.emit({ type: 'approval_created', request });
      core.emit({ type: 'approval_decided', request });
      call.notes.gate = { rule: verdict.rule, decision: 'upstream', approvalRequestId: request.id };
      logger?.info(
        { approvalRequestId: request.id, tool: tool.name, identity: identity.name, clientRef: candidate.ref },
        'call runs on a verified harness approval',
      );
      const result = await execute(
        call,
        next,
        {
          ...base,
          authorization: 'upstream',
          requestId: request.id,
          ...(replaySince && { replaySince }),
          ...(replayKey && { replayKey }),
        },
        { dryRun: verdict.dryRun },
      );
      if (result._meta?.approval_status === 'replayed') {
        const revoked = await store.revokeGrant(
          request.id,
          `not executed: an identical call from ${identity.name} ran inside the replay window`,
          core.now(),
        );
        if (revoked.ok) core.emit({ type: 'approval_cancelled', request: revoked.request });
      }
      return { result, why: '' };
    }
    return { why: finding.why };
  }

  /** Records (or reuses) the pending request for a held call, with its resolution. */
  async function hold(
    call: ToolCall,
    args: Record<string, unknown>,
    verdict: Verdict,
    resolved: Resolved,
    query: PolicyQuery & { tool: Tool },
    harness?: { upstreamRefused?: string },
  ) {
    const { tool } = call;
    if (resolved.preview && isNoOpPreview(resolved.preview))
      return noChangeResult(resolved.preview, tool.name);
    const now = core.now();
    const fresh = resolved.resolution.preview;
    const window = windowCoverage(policy, query, verdict, resolved.resolution.arguments);
    const { request, reused, superseded, cancelled } = await store.createOrReusePending(
      requestRecord({
        requester: call.identity.name,
        createdBy: call.identity.name,
        cluster: call.cluster,
        tool,
        args,
        resolution: resolved.resolution,
        verdict,
        now,
        requestTtlMs: policy.settings.requestTtlMs,
        requesterCredential: call.identity.credential ?? '',
        ...(window && { window }),
      }),
      now,
      // Re-requested: the human must see what the call does now, never an outdated preview.
      (existing) => {
        const difference = effectDifference(existing.preview?.effect ?? null, fresh?.effect ?? null);
        return difference === undefined
          ? undefined
          : `the call's effect changed since it was requested (${difference})`;
      },
    );
    if (superseded) core.emit({ type: 'approval_superseded', request: superseded });
    if (cancelled) core.emit({ type: 'approval_cancelled', request: cancelled });
    core.emit({ type: reused ? 'approval_reused' : 'approval_created', request });
    logger?.info(
      { approvalRequestId: request.id, tool: tool.name, rule: verdict.rule, reused },
      'call held for approval',
    );
    const connector = core.options.isHarnessConnector ?? defaultIsHarnessConnector;
    return pendingResult(request, reused, approvalsUrl(), {
      ...(connector(call.identity) && { fromHarness: true }),
      ...(harness?.upstreamRefused && { upstreamRefused: harness.upstreamRefused }),
    });
  }

  return async function approvalGate(call, next) {
    const { tool, identity } = call;
    if (registry.get(tool.name) !== tool) {
      return policyDeniedResult(
        tool.name,
        policy.evaluate({ toolName: tool.name, tool: undefined, args: call.args, cluster: undefined }),
      );
    }
    const { idempotency_key: rawKey, ...args } = call.args;
    const idempotencyKey = typeof rawKey === 'string' ? rawKey : undefined;
    const query = { toolName: tool.name, tool, args, cluster: call.cluster?.context, identity };
    let verdict = policy.evaluate(query);
    // For the audit log and metrics, which wrap the gate (server/pipeline.ts, `GateNote`).
    call.notes.gate = { rule: verdict.rule, decision: verdict.decision };
    if (verdict.decision === 'deny') return policyDeniedResult(tool.name, verdict);
    const changes = tool.risk !== 'read' && !verdict.dryRun;
    if (verdict.decision === 'allow' && !changes) {
      return verdict.dryRun ? next({ args, dryRun: true }) : next();
    }
    // Taken now, before any await: what runs when this call arrives (window calls coalesce with it).
    const arrival =
      tool.risk === 'read' ? undefined : store.executionMark().catch((): undefined => undefined);
    if (changes) {
      const freeze = await store.getFreeze();
      if (freeze.frozen) return frozenResult(tool.name, freeze);
    }
    const key = callKey(tool.name, args);
    if (idempotencyKey !== undefined) {
      const earlier = await store.findExecutionByIdempotencyKey(identity.name, tool.name, idempotencyKey);
      if (earlier) return idempotentReplay(earlier, key, idempotencyKey);
    }
    // A change is judged by what it resolves to as well as by how it was spelled (a Service name
    // stands for the Deployment behind it, an omitted to_revision for a concrete revision); the
    // stricter verdict wins, and a call that cannot be resolved is never run.
    const resolved = await resolveCall(tool, args, verdict, (dryArgs) =>
      next({ args: dryArgs, dryRun: true }),
    );
    if ('failed' in resolved) return unresolvable(tool, resolved.failed);
    verdict = evaluateResolved(policy, query, verdict, resolved.resolution.arguments);
    call.notes.gate = { rule: verdict.rule, decision: verdict.decision };
    if (verdict.decision === 'deny') return policyDeniedResult(tool.name, verdict);
    const base = {
      callKey: key,
      // What runs is the call the policy judged: the resolved one (the call as sent for a preview).
      arguments: executionArguments(tool, resolved.resolution.arguments, args.reason),
      ...(idempotencyKey !== undefined && { idempotencyKey }),
    };
    if (verdict.decision === 'allow')
      return execute(call, next, { ...base, authorization: 'policy' }, { dryRun: false });

    // ask
    const binding = bindingOf(call);
    const now = core.now();
    if (verdict.dryRun) {
      // A preview changes nothing: one that shows nothing to do needs no human at all.
      const preview = await next({ args, dryRun: true });
      if (preview.isError || isNoOpPreview(preview)) return preview;
    }
    const denied = await store.claimDenial(binding, key, now);
    if (denied) return humanDeniedResult(denied);
    const approved = await store.findApprovedCall(binding, key, now);
    if (approved) {
      if (approved.status === 'executing') return alreadyRunningResult(approved, tool.name);
      const standing = await grantStanding(approved);
      if (standing) return standing;
      if (standing === undefined) return executeApproved(call, next, approved, idempotencyKey, await arrival);
    }
    const window = await store.findWindowGrant(binding, tool.name, verdict.scope, now);
    const windowStanding = window && (await grantStanding(window));
    if (windowStanding) return windowStanding;
    if (window && windowStanding === undefined) {
      const mark = await arrival;
      return execute(
        call,
        next,
        {
          ...base,
          authorization: 'window',
          requestId: window.id,
          // Identical means the same resolved call, however it was spelled.
          replayKey: callKey(tool.name, resolved.resolution.arguments),
          ...(mark && { arrival: mark }),
        },
        { dryRun: verdict.dryRun },
      );
    }
    if (identity.trustUpstreamApproval && upstreamGated(tool) && !verdict.dryRun) {
      warnIfTrustedAtRuntime(identity);
      const upstream = await runUpstream(call, next, args, verdict, resolved, base);
      if (upstream.result) return upstream.result;
      return hold(call, args, verdict, resolved, query, { upstreamRefused: upstream.why });
    }
    return hold(call, args, verdict, resolved, query);
  };
}
