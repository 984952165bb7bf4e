/**
 * Approval decisions: approve, deny, withdraw, and an approver creating an already-approved request
 * for a named requester (the CLI's harness mode). Used by the HTTP router; every failure is a
 * `SentinelError` whose code maps to a clear 4xx (`not_found` 404, `forbidden` 403, `conflict` 409,
 * `approval_expired` 410, `invalid_input` 422).
 *
 * Who may decide: an identity listed in the matched rule's `approvers` (by name or `role:<role>`),
 * or, as the fallback, any `admin` — and never the identity that made the request.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ClusterIdentity, Tool } from '../../tools/index.ts';
import { SentinelError, fromZod } from '../../core/index.ts';
import type { Identity } from '../pipeline.ts';
import {
  durationMs,
  type ApprovalCheck,
  type ApprovalGrant,
  type ApprovalNotRequired,
  type ApprovalRequest,
  type ApprovalListQuery,
  type ApproveBody,
  type CreateApprovalBody,
  clientRefKey,
  describeClientRef,
  type FreezeState,
  type GrantValidity,
} from './approval-request.ts';
import { callKey } from './canonical.ts';
import type { GateCore } from './core.ts';
import { decide as decideCall, screen, type ResolvedCall } from './decision.ts';
import { requestRecord } from './new-request.ts';
import type { PolicyQuery, Verdict } from './policy/evaluate.ts';
import { effectDifference, resultText } from './preview.ts';
import { resolveJudged } from './resolve.ts';
import type { TransitionResult } from './store/types.ts';
import { approverStanding, deciderRight } from './approver-standing.ts';
import { describeWindowGrant } from '../render/window.ts';
import { windowCoverage } from './window-coverage.ts';
import { checkCurrentState } from './current-state.ts';

/** Runs a tool's dry run outside an MCP call (read-only client), for `POST /approvals`. */
export type PreviewFn = (tool: Tool, args: Record<string, unknown>) => Promise<CallToolResult>;

export interface ApprovalsService {
  list(query: ApprovalListQuery): Promise<ApprovalRequest[]>;
  get(id: string): Promise<ApprovalRequest>;
  /**
   * Re-reads request `id`'s target now (read-only dry run) and names what changed since its
   * preview, and whether a change freeze is on (`checkCurrentState`). Throws `not_found`.
   */
  check(id: string): Promise<ApprovalCheck>;
  approve(id: string, approver: Identity, body: ApproveBody): Promise<ApprovalRequest>;
  deny(id: string, approver: Identity, reason: string): Promise<ApprovalRequest>;
  withdraw(id: string, requester: Identity): Promise<ApprovalRequest>;
  /**
   * An approver takes back an approved grant that no call has used yet (`approved` → `cancelled`).
   * Throws `conflict` when the request is not an unused approved grant.
   */
  revokeGrant(id: string, approver: Identity, reason: string): Promise<ApprovalRequest>;
  /**
   * Cancels the live requests and unused grants of identities that were revoked or now hold another
   * token (compared with `findIdentity`). Runs before every read and decision and on every sweep;
   * call it after changing tokens.yaml to act at once. Returns the cancelled requests.
   */
  reconcileIdentities(): Promise<ApprovalRequest[]>;
  create(approver: Identity, body: CreateApprovalBody): Promise<ApprovalRequest | ApprovalNotRequired>;
  /**
   * `create`, saying whether a request was made now (`created`) or the body's `client_ref` already
   * had one (`created: false`, the first request returned as it stands: one decision per harness
   * tool call). Throws `conflict` when that first request is for another call (tool or arguments).
   */
  createOnce(
    approver: Identity,
    body: CreateApprovalBody,
  ): Promise<{ answer: ApprovalRequest | ApprovalNotRequired; created: boolean }>;
  /** Expires due requests and grants now (emits `approval_expired`). */
  sweep(): Promise<void>;
  getFreeze(): Promise<FreezeState>;
  setFreeze(admin: Identity, frozen: boolean, reason: string | null): Promise<FreezeState>;
}

export interface ApprovalsOptions {
  /** Dry runs for `POST /approvals`; without it a created request has no preview and no resolution. */
  preview?: PreviewFn;
  /** Looks up an identity by name (tokens.yaml), to check `POST /approvals` requesters. */
  findIdentity?: (name: string) => Identity | undefined;
  /**
   * Whether the identities can be read now (tokens.yaml parses). While they cannot, nothing is
   * cancelled for a missing identity: a typo being fixed must not void every pending request.
   */
  identitiesReadable?: () => boolean;
  /** The cluster this server talks to (recorded on created requests); a promise while it connects. */
  cluster?: () => ClusterIdentity | undefined | Promise<ClusterIdentity | undefined>;
  /**
   * Where the store keeps the freeze, told with every freeze state (`store`): the SQLite file's path,
   * or `postgresql`. Every server on that store shares one freeze.
   */
  storeLocation?: string;
}

export { deciderRight };

/** A POST /approvals the policy denies: nobody can approve it. */
function policyForbids(verdict: Verdict): SentinelError {
  const resolved = verdict.resolvedArguments
    ? ` (as resolved: ${JSON.stringify(verdict.resolvedArguments)})`
    : '';
  return new SentinelError(
    'forbidden',
    `Policy rule '${verdict.rule}' denies this call${resolved}: ${verdict.reason}`,
  );
}

/** Checks that `requested` is within `allowed` (once ⊂ any window; shorter window ⊂ longer). */
function checkValidity(
  requested: GrantValidity,
  allowed: GrantValidity,
  settings: { maxWindow: string; maxWindowMs: number },
): void {
  if (requested === 'once') return;
  if (durationMs(requested.window) > settings.maxWindowMs) {
    throw new SentinelError(
      'invalid_input',
      `validity.window: ${requested.window} is longer than the policy's settings.max_window (${settings.maxWindow}); ask for a window of at most ${settings.maxWindow}.`,
      { field: 'validity.window' },
    );
  }
  if (allowed === 'once') {
    throw new SentinelError(
      'invalid_input',
      "The matched policy rule allows only 'once' grants for this call.",
      {
        field: 'validity',
      },
    );
  }
  if (durationMs(requested.window) > durationMs(allowed.window)) {
    throw new SentinelError(
      'invalid_input',
      `The matched policy rule allows a window of at most ${allowed.window}; ${requested.window} is longer.`,
      { field: 'validity' },
    );
  }
}

/**
 * The grant an approval gives, with what it covers: `once`, the exact resolved call until the retry
 * window ends; a window, any call of the tool by the requester on the cluster that matches the same
 * policy rules, until the window ends.
 */
export function grantFor(
  request: Pick<ApprovalRequest, 'requester' | 'tool' | 'cluster' | 'policy'>,
  validity: GrantValidity,
  now: Date,
  requestTtlMs: number,
): ApprovalGrant {
  const lasts = validity === 'once' ? requestTtlMs : durationMs(validity.window);
  const expires_at = new Date(now.getTime() + lasts).toISOString();
  const where = request.cluster
    ? `on context ${request.cluster.context} (${request.cluster.server})`
    : 'with no cluster configured';
  const rules = request.policy.rules;
  const description =
    validity === 'once'
      ? `exactly this ${request.tool} call by ${request.requester} ${where}, once, if retried before ${expires_at}`
      : describeWindowGrant(
          {
            tool: request.tool,
            requester: request.requester,
            cluster: request.cluster,
            rules,
            coverage: request.policy.window,
          },
          expires_at,
        );
  return {
    validity,
    expires_at,
    scope: {
      kind: validity === 'once' ? 'call' : 'rules',
      requester: request.requester,
      tool: request.tool,
      cluster: request.cluster,
      rules: validity === 'once' ? [] : rules,
      description,
    },
  };
}

const notFound = (id: string) =>
  new SentinelError('not_found', `Approval request '${id}' does not exist; GET /approvals lists them.`);

function transitionOrThrow(result: TransitionResult, id: string): ApprovalRequest {
  if (result.ok) return result.request;
  switch (result.reason) {
    case 'not_found':
      throw notFound(id);
    case 'expired':
      throw new SentinelError(
        'approval_expired',
        `Approval request '${id}' expired at ${result.request?.expires_at}; it can no longer be decided and will never run.`,
      );
    case 'not_pending':
      throw new SentinelError(
        'conflict',
        `Approval request '${id}' is already ${result.request?.status}; only a pending request can be decided or withdrawn.`,
      );
    case 'not_approved':
      throw new SentinelError(
        'conflict',
        `Approval request '${id}' is ${result.request?.status}${result.request?.executions.length ? ' and its grant was used' : ''}; only an approved grant no call has used can be revoked.`,
      );
  }
}

/** What every operation of the service reads. */
interface Ctx {
  core: GateCore;
  options: ApprovalsOptions;
}

async function load(ctx: Ctx, id: string): Promise<ApprovalRequest> {
  await expire(ctx);
  const request = await ctx.core.options.store.get(id);
  if (!request) throw notFound(id);
  return request;
}

async function expire(ctx: Ctx): Promise<void> {
  const { core } = ctx;
  for (const request of await core.options.store.expireDue(core.now()))
    core.emit({ type: 'approval_expired', request });
  await reconcileIdentities(ctx);
}

async function reconcileIdentities(ctx: Ctx): Promise<ApprovalRequest[]> {
  const find = ctx.options.findIdentity;
  if (!find || ctx.options.identitiesReadable?.() === false) return [];
  const cancelled: ApprovalRequest[] = [];
  for (const live of await ctx.core.options.store.liveRequesters()) {
    const identity = find(live.requester);
    const current = identity?.credential ?? '';
    if (identity && current === live.credential) continue;
    cancelled.push(...(await cancelForRequester(ctx, live.requester, identity ? current : undefined)));
  }
  cancelled.push(...(await cancelVoidGrants(ctx)));
  return cancelled;
}

/** Cancels what a revoked (`current` undefined) or re-keyed identity requested or was granted. */
async function cancelForRequester(
  ctx: Ctx,
  requester: string,
  current: string | undefined,
): Promise<ApprovalRequest[]> {
  const { core } = ctx;
  const reason =
    current !== undefined
      ? `identity '${requester}' now authenticates with a different token (removed and re-added, or rotated); what its old token requested or was granted is void`
      : `identity '${requester}' was revoked`;
  const changed = await core.options.store.cancelForRequester(requester, current, reason);
  for (const request of changed) core.emit({ type: 'approval_cancelled', request });
  if (changed.length > 0) {
    core.options.logger?.warn(
      { requester, cancelled: changed.map((request) => request.id) },
      'approval requests and grants of a revoked or re-keyed identity cancelled',
    );
  }
  return changed;
}

/** Cancels the approved grants whose approver was revoked or lost the right to approve them. */
async function cancelVoidGrants(ctx: Ctx): Promise<ApprovalRequest[]> {
  const { core } = ctx;
  const { store } = core.options;
  const cancelled: ApprovalRequest[] = [];
  for (const request of await store.list({ status: 'approved', limit: 10_000 })) {
    const standing = approverStanding(request, ctx.options);
    if (standing.ok !== false) continue;
    const changed = await store.cancelGrant(request.id, standing.reason);
    if (!changed) continue;
    core.emit({ type: 'approval_cancelled', request: changed });
    core.options.logger?.warn(
      { approvalRequestId: changed.id, approver: request.decision?.by },
      'grant of a revoked approver cancelled',
    );
    cancelled.push(changed);
  }
  return cancelled;
}

/** `what` names the request in messages, e.g. "approval request 'apr_…'". */
function authorizeDecider(
  request: Pick<ApprovalRequest, 'requester' | 'policy'>,
  who: Identity,
  what: string,
) {
  if (request.requester === who.name) {
    throw new SentinelError(
      'forbidden',
      `Identity '${who.name}' made ${what} and cannot decide it; another approver must.`,
    );
  }
  const right = deciderRight(who, request.policy);
  if (!right) {
    throw new SentinelError(
      'forbidden',
      `Identity '${who.name}' may not decide this request; the policy names ${request.policy.approvers.join(', ')} (or an admin).`,
    );
  }
  return right;
}

/** For the self-approval refusal of `POST /approvals`: the pending request of that call, if any. */
async function ownCallName(ctx: Ctx, requester: string, tool: string, args: Record<string, unknown>) {
  const key = callKey(tool, args);
  const pending = (await ctx.core.options.store.list({ requester, tool, status: 'pending' })).find(
    (request) => callKey(tool, request.requested_arguments) === key,
  );
  return pending
    ? `approval request '${pending.id}' for this call`
    : `this ${tool} call (POST /approvals names it as the requester; no request was created)`;
}

/** Approves (with `validity`) or denies a pending request. */
async function decideRequest(
  ctx: Ctx,
  id: string,
  who: Identity,
  verdict: { allow: boolean; reason: string | null; validity: GrantValidity },
): Promise<ApprovalRequest> {
  const { core } = ctx;
  const { store, policy } = core.options;
  const { allow, reason, validity } = verdict;
  const request = await load(ctx, id);
  const right = authorizeDecider(request, who, `approval request '${id}'`);
  if (allow) checkValidity(validity, request.policy.validity, policy.settings);
  const now = core.now();
  const decision = {
    decision: allow ? ('allow' as const) : ('deny' as const),
    by: who.name,
    at: now.toISOString(),
    reason,
    admin_fallback: right === 'fallback',
  };
  const grant = allow ? grantFor(request, validity, now, policy.settings.requestTtlMs) : null;
  const decided = transitionOrThrow(await store.decide(id, decision, grant, now), id);
  core.emit({ type: 'approval_decided', request: decided });
  core.options.logger?.info(
    {
      approvalRequestId: id,
      approver: who.name,
      decision: decision.decision,
      adminFallback: decision.admin_fallback,
    },
    'approval request decided',
  );
  return decided;
}

/** The call a `POST /approvals` body names: its registered tool, requester and parsed arguments. */
function parseCreate(ctx: Ctx, body: CreateApprovalBody) {
  const tool = ctx.core.options.registry.get(body.tool);
  if (!tool) {
    throw new SentinelError('not_found', `Tool '${body.tool}' is not registered on this server.`, {
      field: 'tool',
    });
  }
  const find = ctx.options.findIdentity;
  const requester = find ? find(body.requester) : undefined;
  if (find && !requester) {
    throw new SentinelError('invalid_input', `Requester '${body.requester}' is not a known identity.`, {
      field: 'requester',
    });
  }
  const parsed = tool.input.safeParse(body.arguments);
  if (!parsed.success) throw fromZod(parsed.error, ['arguments'], { message: (lines) => lines });
  return { tool, requester, args: parsed.data as Record<string, unknown> };
}

type Judged = Extract<ResolvedCall, { resolution: unknown }>;

/**
 * Judges the call like the MCP gate does (`screen` → `resolveJudged` → `decide`): as sent and as
 * resolved, the stricter verdict wins. Throws `forbidden` for a call the policy denies and
 * `invalid_input` for one whose dry run fails; its verdict says whether the policy allows it outright.
 */
async function judgeCreate(ctx: Ctx, query: PolicyQuery & { tool: Tool }): Promise<Judged> {
  const { policy } = ctx.core.options;
  const { tool } = query;
  const asSent = policy.evaluate(query);
  const early = screen({ registered: true, verdict: asSent, changes: true });
  if (early) throw policyForbids(early.verdict);
  const preview = ctx.options.preview;
  const resolved = await resolveJudged(
    policy,
    query,
    asSent,
    preview && ((dryArgs) => preview(tool, dryArgs)),
  );
  const decision = decideCall(resolved, { upstream: false }, { supportsDryRun: tool.supportsDryRun });
  if (decision.kind === 'unresolvable') {
    const failed = decision.failed;
    const message = failed instanceof Error ? failed.message : resultText(failed);
    throw new SentinelError('invalid_input', `The dry run of this call fails: ${message}`, {
      field: 'arguments',
    });
  }
  if (decision.kind === 'deny') throw policyForbids(decision.verdict);
  if ('failed' in resolved) throw new Error('judgeCreate: an unresolved call was not refused');
  return resolved;
}

/** Refuses an approval whose `effect` (what the human was shown) is no longer what the call does. */
function checkShownEffect(body: CreateApprovalBody, resolved: Judged): void {
  if (body.effect === undefined || body.decision === 'deny') return;
  const difference = effectDifference(body.effect, resolved.resolution.preview?.effect ?? null);
  if (difference === undefined) return;
  throw new SentinelError(
    'conflict',
    `The call no longer does what was shown (${difference}); nothing was approved. Show the human the current preview and ask again.`,
    { field: 'effect' },
  );
}

interface CreateInput {
  who: Identity;
  body: CreateApprovalBody;
  tool: Tool;
  requester: Identity | undefined;
  args: Record<string, unknown>;
  query: PolicyQuery & { tool: Tool };
  cluster: ClusterIdentity | undefined;
}

/** The record of a request decided as `POST /approvals` creates it. */
async function createdRecord(ctx: Ctx, input: CreateInput, resolved: Judged) {
  const { policy } = ctx.core.options;
  const { who, body, tool, args, cluster } = input;
  const { verdict } = resolved;
  const deny = body.decision === 'deny';
  if (body.decision === 'ask') return askedRecord(ctx, input, resolved);
  const right = authorizeDecider(
    { requester: body.requester, policy: verdict },
    who,
    await ownCallName(ctx, body.requester, tool.name, args),
  );
  const validity = body.validity ?? 'once';
  if (!deny) checkValidity(validity, verdict.validity, policy.settings);
  checkShownEffect(body, resolved);
  const now = ctx.core.now();
  const window = windowCoverage(policy, input.query, verdict, resolved.resolution.arguments);
  const decision = {
    decision: deny ? ('deny' as const) : ('allow' as const),
    by: who.name,
    at: now.toISOString(),
    reason: body.reason ?? null,
    admin_fallback: right === 'fallback',
  };
  const grantOf = {
    requester: body.requester,
    tool: tool.name,
    cluster: cluster ?? null,
    policy: { ...verdict, ...(window && { window }) },
  };
  return requestRecord({
    requester: body.requester,
    createdBy: who.name,
    cluster,
    tool,
    args,
    resolution: resolved.resolution,
    verdict,
    ...(window && { window }),
    now,
    requestTtlMs: policy.settings.requestTtlMs,
    requesterCredential: input.requester?.credential ?? '',
    clientRef: body.client_ref,
    approval: {
      decision,
      grant: deny ? null : grantFor(grantOf, validity, now, policy.settings.requestTtlMs),
    },
  });
}

/**
 * The record of a call put up for a decision (`decision: 'ask'`): pending, like a held call. Only
 * the requester itself or an identity that could decide it may put a call up for another requester
 * (a grant it leads to lets that requester's call run).
 */
function askedRecord(ctx: Ctx, input: CreateInput, resolved: Judged) {
  const { policy } = ctx.core.options;
  const { who, body, tool, args, cluster } = input;
  if (who.name !== body.requester && !deciderRight(who, resolved.verdict)) {
    throw new SentinelError(
      'forbidden',
      `Identity '${who.name}' may not put up a call of '${body.requester}' for approval; only '${body.requester}' or an approver of this call (the policy names ${resolved.verdict.approvers.join(', ')}, or an admin) may.`,
    );
  }
  const window = windowCoverage(policy, input.query, resolved.verdict, resolved.resolution.arguments);
  return requestRecord({
    requester: body.requester,
    createdBy: who.name,
    cluster,
    tool,
    args,
    resolution: resolved.resolution,
    verdict: resolved.verdict,
    ...(window && { window }),
    now: ctx.core.now(),
    requestTtlMs: policy.settings.requestTtlMs,
    requesterCredential: input.requester?.credential ?? '',
    clientRef: body.client_ref,
  });
}

/**
 * The terminal's answer (`allow`/`deny` POST) for a harness tool call whose request is still pending
 * (put up with `ask`): decides that request, as `approve`/`deny` would. When someone decided it
 * first (page, `approvals approve`), that decision stands and is returned (`created: false`).
 */
async function decideAsked(
  ctx: Ctx,
  who: Identity,
  body: CreateApprovalBody,
  pending: ApprovalRequest,
): Promise<CreateAnswer> {
  const allow = body.decision !== 'deny';
  try {
    const decided = await decideRequest(ctx, pending.id, who, {
      allow,
      reason: allow ? null : (body.reason ?? null),
      validity: body.validity ?? 'once',
    });
    return { answer: decided, created: true };
  } catch (error) {
    if (error instanceof SentinelError && ['conflict', 'approval_expired'].includes(error.code)) {
      const now = await load(ctx, pending.id);
      if (now.status !== 'pending') return { answer: now, created: false };
    }
    throw error;
  }
}

type CreateAnswer = { answer: ApprovalRequest | ApprovalNotRequired; created: boolean };

async function createOnce(ctx: Ctx, who: Identity, body: CreateApprovalBody): Promise<CreateAnswer> {
  const { core } = ctx;
  const { store } = core.options;
  const { tool, requester, args } = parseCreate(ctx, body);
  const refKey = body.client_ref && clientRefKey(body.client_ref);
  if (refKey) {
    const first = await store.findByClientRef(refKey);
    if (first) {
      const same = sameCallOrConflict(first, tool.name, args);
      if (same.status === 'pending' && body.decision !== 'ask') return decideAsked(ctx, who, body, same);
      return { answer: same, created: false };
    }
  }
  const cluster = await ctx.options.cluster?.();
  const identity = requester ?? { name: body.requester, roles: [] };
  const query = { toolName: tool.name, tool, args, cluster: cluster?.context, identity };
  const resolved = await judgeCreate(ctx, query);
  if (resolved.verdict.decision === 'allow') {
    const answer = { approval_required: false, decision: 'allow', rule: resolved.verdict.rule } as const;
    return { answer, created: true };
  }
  const record = await createdRecord(ctx, { who, body, tool, requester, args, query, cluster }, resolved);
  let request: ApprovalRequest;
  if (refKey) {
    const stored = await store.insertForClientRef({ ...record, clientRefKey: refKey });
    // Another process answered the same harness tool call first: its answer stands.
    if (!stored.created) {
      const same = sameCallOrConflict(stored.request, tool.name, args);
      if (same.status === 'pending' && body.decision !== 'ask') return decideAsked(ctx, who, body, same);
      return { answer: same, created: false };
    }
    request = stored.request;
  } else {
    request = await store.insert(record);
  }
  core.emit({ type: 'approval_created', request });
  if (body.decision !== 'ask') core.emit({ type: 'approval_decided', request });
  core.options.logger?.info(
    {
      approvalRequestId: request.id,
      [body.decision === 'ask' ? 'createdBy' : 'approver']: who.name,
      decision: body.decision ?? 'allow',
      ...(body.client_ref && { clientRef: body.client_ref }),
    },
    body.decision === 'ask' ? 'approval request created for a decision' : 'approval request created decided',
  );
  return { answer: request, created: true };
}

/**
 * The first request of a harness tool call, when `tool` and `args` are the call it answered;
 * otherwise a `conflict` naming it (a harness tool call id stands for one call).
 */
function sameCallOrConflict(
  first: ApprovalRequest,
  tool: string,
  args: Record<string, unknown>,
): ApprovalRequest {
  if (first.tool === tool && callKey(tool, first.requested_arguments) === callKey(tool, args)) return first;
  throw new SentinelError(
    'conflict',
    `client_ref already answers ${first.client_ref ? describeClientRef(first.client_ref) : 'a harness tool call'} with approval request '${first.id}' (${first.tool} ${JSON.stringify(first.requested_arguments)}, ${first.status}); one harness tool call gets one decision, and this is another call. Nothing was created.`,
    { field: 'client_ref' },
  );
}

async function withdraw(ctx: Ctx, id: string, who: Identity): Promise<ApprovalRequest> {
  const request = await load(ctx, id);
  if (request.requester !== who.name) {
    throw new SentinelError(
      'forbidden',
      `Only the requester '${request.requester}' can withdraw approval request '${id}'.`,
    );
  }
  const withdrawn = transitionOrThrow(await ctx.core.options.store.withdraw(id, ctx.core.now()), id);
  ctx.core.emit({ type: 'approval_withdrawn', request: withdrawn });
  return withdrawn;
}

async function revokeGrant(ctx: Ctx, id: string, who: Identity, reason: string): Promise<ApprovalRequest> {
  const { core } = ctx;
  const request = await load(ctx, id);
  authorizeDecider(request, who, `approval request '${id}'`);
  const revoked = transitionOrThrow(
    await core.options.store.revokeGrant(id, `grant revoked by ${who.name}: ${reason}`, core.now()),
    id,
  );
  core.emit({ type: 'approval_cancelled', request: revoked });
  core.options.logger?.info({ approvalRequestId: id, approver: who.name }, 'unused grant revoked');
  return revoked;
}

async function setFreeze(
  ctx: Ctx,
  who: Identity,
  frozen: boolean,
  reason: string | null,
): Promise<FreezeState> {
  if (!who.roles.includes('admin')) {
    throw new SentinelError(
      'forbidden',
      `Identity '${who.name}' is not an admin; only admins can freeze or unfreeze changes.`,
    );
  }
  const { core } = ctx;
  const current = await core.options.store.getFreeze();
  // Already frozen: one freeze goes on, so it keeps who froze it and since when; only the reason
  // changes, and the answer says what it was (`previous`) rather than replacing it silently.
  const previous =
    frozen && current.frozen ? { reason: current.reason, by: current.by, since: current.since } : undefined;
  const state = previous
    ? await core.options.store.setFreeze(
        true,
        reason,
        previous.by ?? who.name,
        previous.since === null ? core.now() : new Date(previous.since),
      )
    : await core.options.store.setFreeze(frozen, reason, who.name, core.now());
  core.options.logger?.warn(
    { frozen, reason, by: who.name, ...(previous && { previous }) },
    previous ? 'change freeze reason changed' : frozen ? 'changes frozen' : 'changes unfrozen',
  );
  return { ...withStore(ctx, state), ...(previous && { previous }) };
}

/** `state` with where the store keeps it (`ApprovalsOptions.storeLocation`), when known. */
function withStore(ctx: Ctx, state: FreezeState): FreezeState {
  const location = ctx.options.storeLocation;
  return location === undefined ? state : { ...state, store: location };
}

/** The approvals service over the gate's store, policy and registry (see `ApprovalsService`). */
export function createApprovalsService(core: GateCore, options: ApprovalsOptions = {}): ApprovalsService {
  const ctx: Ctx = { core, options };
  return {
    async list({ client_ref: clientRef, ...query }) {
      await expire(ctx);
      return core.options.store.list({ ...query, ...(clientRef !== undefined && { clientRef }) });
    },
    get: (id) => load(ctx, id),
    check: async (id) => {
      const request = await load(ctx, id);
      return checkCurrentState({
        request,
        tool: core.options.registry.get(request.tool),
        preview: options.preview,
        freeze: await core.options.store.getFreeze(),
        now: core.now(),
      });
    },
    approve: (id, who, body) =>
      decideRequest(ctx, id, who, { allow: true, reason: null, validity: body.validity ?? 'once' }),
    deny: (id, who, reason) => decideRequest(ctx, id, who, { allow: false, reason, validity: 'once' }),
    withdraw: (id, who) => withdraw(ctx, id, who),
    revokeGrant: (id, who, reason) => revokeGrant(ctx, id, who, reason),
    reconcileIdentities: () => reconcileIdentities(ctx),
    create: async (who, body) => (await createOnce(ctx, who, body)).answer,
    createOnce: (who, body) => createOnce(ctx, who, body),
    sweep: () => expire(ctx),
    getFreeze: async () => withStore(ctx, await core.options.store.getFreeze()),
    setFreeze: (who, frozen, reason) => setFreeze(ctx, who, frozen, reason),
  };
}
