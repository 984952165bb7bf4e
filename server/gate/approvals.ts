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
import type { Tool } from '../../tools/index.ts';
import { SentinelError, fromZod } from '../../core/index.ts';
import type { Identity } from '../pipeline.ts';
import {
  durationMs,
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
import { callKey, matchedArguments } from './canonical.ts';
import type { GateCore } from './core.ts';
import { requestRecord, resolveCall } from './new-request.ts';
import { evaluateResolved, type Verdict } from './policy/evaluate.ts';
import { effectDifference, resultText } from './preview.ts';
import type { TransitionResult } from './store/types.ts';
import { approverStanding, deciderRight } from './approver-standing.ts';
import { describeWindowGrant } from '../render/window.ts';
import { windowCoverage } from './window-coverage.ts';

/** Runs a tool's dry run outside an MCP call (read-only client), for `POST /approvals`. */
export type PreviewFn = (tool: Tool, args: Record<string, unknown>) => Promise<CallToolResult>;

export interface ApprovalsService {
  list(query: ApprovalListQuery): Promise<ApprovalRequest[]>;
  get(id: string): Promise<ApprovalRequest>;
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
  /** The cluster this server talks to (recorded on created requests). */
  cluster?: () => { context: string; server: string } | undefined;
}

export { deciderRight };

/** Checks that `requested` is within `allowed` (once ⊂ any window; shorter window ⊂ longer). */
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

export function createApprovalsService(core: GateCore, options: ApprovalsOptions = {}): ApprovalsService {
  const { store, policy, registry } = core.options;

  async function load(id: string): Promise<ApprovalRequest> {
    await expire();
    const request = await store.get(id);
    if (!request) throw notFound(id);
    return request;
  }

  async function expire(): Promise<void> {
    for (const request of await store.expireDue(core.now())) core.emit({ type: 'approval_expired', request });
    await reconcileIdentities();
  }

  async function reconcileIdentities(): Promise<ApprovalRequest[]> {
    const find = options.findIdentity;
    if (!find || options.identitiesReadable?.() === false) return [];
    const cancelled: ApprovalRequest[] = [];
    for (const live of await store.liveRequesters()) {
      const identity = find(live.requester);
      const current = identity?.credential ?? '';
      if (identity && current === live.credential) continue;
      const reason = identity
        ? `identity '${live.requester}' now authenticates with a different token (removed and re-added, or rotated); what its old token requested or was granted is void`
        : `identity '${live.requester}' was revoked`;
      const changed = await store.cancelForRequester(live.requester, identity ? current : undefined, reason);
      for (const request of changed) core.emit({ type: 'approval_cancelled', request });
      if (changed.length > 0) {
        core.options.logger?.warn(
          { requester: live.requester, cancelled: changed.map((request) => request.id) },
          'approval requests and grants of a revoked or re-keyed identity cancelled',
        );
      }
      cancelled.push(...changed);
    }
    cancelled.push(...(await cancelVoidGrants()));
    return cancelled;
  }

  /** Cancels the approved grants whose approver was revoked or lost the right to approve them. */
  async function cancelVoidGrants(): Promise<ApprovalRequest[]> {
    const cancelled: ApprovalRequest[] = [];
    for (const request of await store.list({ status: 'approved', limit: 10_000 })) {
      const standing = approverStanding(request, options);
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
  async function ownCallName(requester: string, tool: string, args: Record<string, unknown>) {
    const key = callKey(tool, args);
    const pending = (await store.list({ requester, tool, status: 'pending' })).find(
      (request) => callKey(tool, request.requested_arguments) === key,
    );
    return pending
      ? `approval request '${pending.id}' for this call`
      : `this ${tool} call (POST /approvals names it as the requester; no request was created)`;
  }

  async function decide(
    id: string,
    who: Identity,
    allow: boolean,
    reason: string | null,
    validity: GrantValidity,
  ) {
    const request = await load(id);
    const right = authorizeDecider(request, who, `approval request '${id}'`);
    if (allow) checkValidity(validity, request.policy.validity, policy.settings);
    const now = core.now();
    const decided = transitionOrThrow(
      await store.decide(
        id,
        {
          decision: allow ? 'allow' : 'deny',
          by: who.name,
          at: now.toISOString(),
          reason,
          admin_fallback: right === 'fallback',
        },
        allow ? grantFor(request, validity, now, policy.settings.requestTtlMs) : null,
        now,
      ),
      id,
    );
    core.emit({ type: 'approval_decided', request: decided });
    core.options.logger?.info(
      {
        approvalRequestId: id,
        approver: who.name,
        decision: allow ? 'allow' : 'deny',
        adminFallback: right === 'fallback',
      },
      'approval request decided',
    );
    return decided;
  }

  async function createOnce(
    who: Identity,
    body: CreateApprovalBody,
  ): Promise<{ answer: ApprovalRequest | ApprovalNotRequired; created: boolean }> {
    const tool = registry.get(body.tool);
    if (!tool) {
      throw new SentinelError('not_found', `Tool '${body.tool}' is not registered on this server.`, {
        field: 'tool',
      });
    }
    const requester = options.findIdentity ? options.findIdentity(body.requester) : undefined;
    if (options.findIdentity && !requester) {
      throw new SentinelError('invalid_input', `Requester '${body.requester}' is not a known identity.`, {
        field: 'requester',
      });
    }
    const parsed = tool.input.safeParse(body.arguments);
    if (!parsed.success) throw fromZod(parsed.error, ['arguments'], { message: (lines) => lines });
    const args = parsed.data as Record<string, unknown>;
    const refKey = body.client_ref && clientRefKey(body.client_ref);
    if (refKey) {
      const first = await store.findByClientRef(refKey);
      if (first) return { answer: sameCallOrConflict(first, tool.name, args), created: false };
    }
    const cluster = options.cluster?.();
    const query = {
      toolName: tool.name,
      tool,
      args,
      cluster: cluster?.context,
      identity: requester ?? { name: body.requester, roles: [] },
    };
    const asSent = policy.evaluate(query);
    if (asSent.decision === 'deny') throw policyForbids(asSent);
    const preview = options.preview;
    const resolved = preview
      ? await resolveCall(tool, args, asSent, (dryArgs) => preview(tool, dryArgs))
      : { resolution: { arguments: matchedArguments(args), preview: null } };
    if ('failed' in resolved) {
      const message =
        resolved.failed instanceof Error ? resolved.failed.message : resultText(resolved.failed);
      throw new SentinelError('invalid_input', `The dry run of this call fails: ${message}`, {
        field: 'arguments',
      });
    }
    // Judged like the gate judges the call: as sent and as resolved, the stricter verdict wins.
    const verdict = evaluateResolved(policy, query, asSent, resolved.resolution.arguments);
    if (verdict.decision === 'deny') throw policyForbids(verdict);
    if (verdict.decision === 'allow')
      return { answer: { approval_required: false, decision: 'allow', rule: verdict.rule }, created: true };
    const deny = body.decision === 'deny';
    const right = authorizeDecider(
      { requester: body.requester, policy: verdict },
      who,
      await ownCallName(body.requester, tool.name, args),
    );
    const validity = body.validity ?? 'once';
    if (!deny) checkValidity(validity, verdict.validity, policy.settings);
    if (body.effect !== undefined && !deny) {
      const difference = effectDifference(body.effect, resolved.resolution.preview?.effect ?? null);
      if (difference !== undefined) {
        throw new SentinelError(
          'conflict',
          `The call no longer does what was shown (${difference}); nothing was approved. Show the human the current preview and ask again.`,
          { field: 'effect' },
        );
      }
    }
    const now = core.now();
    const window = windowCoverage(policy, query, verdict, resolved.resolution.arguments);
    const record = requestRecord({
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
      requesterCredential: requester?.credential ?? '',
      clientRef: body.client_ref,
      approval: {
        decision: {
          decision: deny ? 'deny' : 'allow',
          by: who.name,
          at: now.toISOString(),
          reason: body.reason ?? null,
          admin_fallback: right === 'fallback',
        },
        grant: deny
          ? null
          : grantFor(
              {
                requester: body.requester,
                tool: tool.name,
                cluster: cluster ?? null,
                policy: { ...verdict, ...(window && { window }) },
              },
              validity,
              now,
              policy.settings.requestTtlMs,
            ),
      },
    });
    let request: ApprovalRequest;
    if (refKey) {
      const stored = await store.insertForClientRef({ ...record, clientRefKey: refKey });
      // Another process answered the same harness tool call first: its answer stands.
      if (!stored.created)
        return { answer: sameCallOrConflict(stored.request, tool.name, args), created: false };
      request = stored.request;
    } else {
      request = await store.insert(record);
    }
    core.emit({ type: 'approval_created', request });
    core.emit({ type: 'approval_decided', request });
    core.options.logger?.info(
      {
        approvalRequestId: request.id,
        approver: who.name,
        decision: deny ? 'deny' : 'allow',
        ...(body.client_ref && { clientRef: body.client_ref }),
      },
      'approval request created decided',
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

  return {
    async list({ client_ref: clientRef, ...query }) {
      await expire();
      return store.list({ ...query, ...(clientRef !== undefined && { clientRef }) });
    },
    get: load,
    approve: (id, who, body) => decide(id, who, true, null, body.validity ?? 'once'),
    deny: (id, who, reason) => decide(id, who, false, reason, 'once'),

    async withdraw(id, who) {
      const request = await load(id);
      if (request.requester !== who.name) {
        throw new SentinelError(
          'forbidden',
          `Only the requester '${request.requester}' can withdraw approval request '${id}'.`,
        );
      }
      const withdrawn = transitionOrThrow(await store.withdraw(id, core.now()), id);
      core.emit({ type: 'approval_withdrawn', request: withdrawn });
      return withdrawn;
    },

    async revokeGrant(id, who, reason) {
      const request = await load(id);
      authorizeDecider(request, who, `approval request '${id}'`);
      const revoked = transitionOrThrow(
        await store.revokeGrant(id, `grant revoked by ${who.name}: ${reason}`, core.now()),
        id,
      );
      core.emit({ type: 'approval_cancelled', request: revoked });
      core.options.logger?.info({ approvalRequestId: id, approver: who.name }, 'unused grant revoked');
      return revoked;
    },

    reconcileIdentities,

    async create(who, body) {
      return (await createOnce(who, body)).answer;
    },

    createOnce,

    sweep: expire,
    getFreeze: () => store.getFreeze(),
    async setFreeze(who, frozen, reason) {
      if (!who.roles.includes('admin')) {
        throw new SentinelError(
          'forbidden',
          `Identity '${who.name}' is not an admin; only admins can freeze or unfreeze changes.`,
        );
      }
      const state = await store.setFreeze(frozen, reason, who.name, core.now());
      core.options.logger?.warn(
        { frozen, reason, by: who.name },
        frozen ? 'changes frozen' : 'changes unfrozen',
      );
      return state;
    },
  };
}
