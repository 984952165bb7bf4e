/**
 * The approval store: approval requests, grants, executions and the freeze switch. Every method is
 * one atomic state change (one transaction) or one read, so the gate never holds a lock across an
 * `await` and a second server replica (PostgreSQL) could implement the same interface. Methods are
 * async for that reason even where the SQLite implementation is synchronous underneath.
 *
 * Timestamps are `Date`s in the interface and ISO 8601 UTC strings in records.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type {
  ApprovalDecision,
  ApprovalGrant,
  ApprovalRequest,
  ApprovalStatus,
  ExecutionStatus,
  FreezeState,
} from '../approval-request.ts';

/** A request to insert, with the keys the gate matches retries by. */
export interface NewApprovalRequest {
  /** Without `executions` (a new request has none). */
  request: Omit<ApprovalRequest, 'executions'>;
  /** `callKey` of the call as the requester made it. */
  requestedKey: string;
  /** `callKey` of the resolved call (what executes). */
  resolvedKey: string;
  /** Policy scope (fingerprint of the matched rules) a window grant covers. */
  scope: string;
  /** Fingerprint of the requester's token (`Identity.credential`; `''` when unknown). */
  requesterCredential: string;
  /** `clientRefKey` of `request.client_ref`: at most one request per key (unique in the store). */
  clientRefKey?: string;
}

/**
 * Who called and where: the binding of every grant and execution. A grant made for one token of an
 * identity does not carry over to a new token of the same name, and a grant for one cluster does not
 * carry over to another cluster reached through the same context name.
 */
export interface CallBinding {
  requester: string;
  /** Fingerprint of the requester's token (`Identity.credential`); `''` when unknown. */
  credential: string;
  /** Kubeconfig context name; `''` when no cluster is configured. */
  cluster: string;
  /** API server URL of that context; `''` when no cluster is configured. */
  clusterServer: string;
}

/** A requester's token, as bound to its live requests. */
export interface RequesterCredential {
  requester: string;
  credential: string;
}

export type TransitionFailure = 'not_found' | 'not_pending' | 'expired' | 'not_approved';
export type TransitionResult =
  | { ok: true; request: ApprovalRequest }
  | { ok: false; reason: TransitionFailure; request?: ApprovalRequest };

/** How an execution was authorised. */
export type ExecutionAuthorization = 'policy' | 'once' | 'window' | 'upstream';

export interface BeginExecution extends CallBinding {
  /** `exe_` id chosen by the caller. */
  id: string;
  tool: string;
  /** `callKey` of the executed arguments. */
  callKey: string;
  arguments: Record<string, unknown>;
  authorization: ExecutionAuthorization;
  /**
   * The request whose grant lets the call through. For `once` the request moves atomically from
   * `approved` to `executing` (consumed); for `window` the grant must still be active.
   */
  requestId?: string;
  /** Gate-owned idempotency key; a second execution with the same requester, tool and key is refused. */
  idempotencyKey?: string;
  /**
   * For `upstream`: refuse when a call with the same `callKey` or the same `replayKey` ran (or runs)
   * for this requester and cluster since this time — keyed on the identity, not its token, so a
   * rotated token (`sentinel harness register --rotate-token`) does not reopen the window. With
   * `requestId`, an upstream execution also consumes that request's once grant.
   */
  replaySince?: Date;
  /**
   * What makes two upstream-approved calls "the same" for the replay window: the resolved target and
   * effect (so another spelling of the same change is still a replay). Defaults to `callKey`.
   */
  replayKey?: string;
  /** The effect observed by the preview just before executing (reconciliation reads it back). */
  effect?: unknown;
  /**
   * For `window`: what was running when the call arrived (`executionMark`, taken before the call's
   * own dry run). An identical call under the same grant — same `callKey` or `replayKey` as this
   * one's `callKey`/`replayKey` — that executes now, executed at arrival, or started since, makes
   * this one a `duplicate`: concurrent identical calls coalesce into one execution. Without it only
   * an identical execution running now is a duplicate.
   */
  arrival?: ExecutionMark;
}

/**
 * A point in the executions' history, opaque to callers: the last execution started and those still
 * running at that moment. Ordered by the store (SQLite rowid), never by a clock, so it holds across
 * processes sharing the store and under a test clock that stands still.
 */
export interface ExecutionMark {
  sequence: number;
  executing: string[];
}

/** One execution of a write/destructive call, as stored. */
export interface StoredExecution extends CallBinding {
  id: string;
  requestId: string | null;
  tool: string;
  callKey: string;
  arguments: Record<string, unknown>;
  authorization: ExecutionAuthorization;
  status: ExecutionStatus;
  idempotencyKey: string | null;
  /** Whether this execution consumed a once grant (its request's status follows its outcome). */
  consumedGrant: boolean;
  effect: unknown;
  startedAt: string;
  finishedAt: string | null;
  outcome: string | null;
  /** The tool result returned to the caller (replayed for an idempotent repeat). */
  result: CallToolResult | null;
}

export type BeginFailure =
  /** A once grant that is no longer `approved` (consumed, expired, withdrawn). */
  | { reason: 'not_approved'; request: ApprovalRequest | undefined }
  /** The idempotency key was used before. */
  | { reason: 'idempotency_key_used'; existing: StoredExecution }
  /** An identical call is executing now (window) or ran inside the replay window (upstream). */
  | { reason: 'duplicate'; existing: StoredExecution };

export type BeginResult = { ok: true; execution: StoredExecution } | ({ ok: false } & BeginFailure);

export interface FinishExecution {
  status: Exclude<ExecutionStatus, 'executing'>;
  /** One line describing what happened. */
  outcome: string;
  result?: CallToolResult;
}

export interface ApprovalStore {
  /**
   * Inserts a pending request, or — when a pending, unexpired request exists for the same requester
   * (and credential), cluster (context and server) and requested or resolved key (the same call with
   * its defaults applied: `planPending`) — returns that one (`reused: true`). A pending request for the same requester name, context and key but
   * another credential or cluster server is cancelled first (it belongs to a revoked token or to
   * another cluster). When `supersede` returns a reason for the pending one, it becomes `superseded`
   * (linked to the new request, returned as `superseded`) and the new request is inserted; otherwise
   * the reused request's preview is refreshed to `input`'s.
   */
  createOrReusePending(
    input: NewApprovalRequest,
    now: Date,
    supersede?: (existing: ApprovalRequest) => string | undefined,
  ): Promise<{
    request: ApprovalRequest;
    reused: boolean;
    superseded?: ApprovalRequest;
    /** Further pending requests of the same call (matched by either key) superseded with it. */
    alsoSuperseded?: ApprovalRequest[];
    /** The pending request of another credential or cluster server that was cancelled first. */
    cancelled?: ApprovalRequest;
  }>;
  /** Inserts a request in the state given (an approver's `POST /approvals`: already approved). */
  insert(input: NewApprovalRequest): Promise<ApprovalRequest>;
  /**
   * Inserts `input` unless a request with the same `clientRefKey` exists — checked and inserted in
   * one write transaction, so two processes answering the same harness tool call make one request.
   * Returns the request stored for that key and whether it is the one just inserted.
   */
  insertForClientRef(
    input: NewApprovalRequest & { clientRefKey: string },
  ): Promise<{ request: ApprovalRequest; created: boolean }>;
  /** The request stored for this `clientRefKey`, if any. */
  findByClientRef(key: string): Promise<ApprovalRequest | undefined>;
  get(id: string): Promise<ApprovalRequest | undefined>;
  /** Newest first, at most `limit` (default 200). */
  list(filter?: {
    status?: ApprovalStatus;
    tool?: string;
    requester?: string;
    /** `clientRefKey` of the harness tool call answered. */
    clientRef?: string;
    limit?: number;
  }): Promise<ApprovalRequest[]>;
  /** `pending` → `approved` (with `grant`) or `denied`. Fails unless pending and unexpired at `now`. */
  decide(
    id: string,
    decision: ApprovalDecision,
    grant: ApprovalGrant | null,
    now: Date,
  ): Promise<TransitionResult>;
  /** `pending` → `withdrawn`. */
  withdraw(id: string, now: Date): Promise<TransitionResult>;
  /**
   * `approved` and not yet used (no execution) → `cancelled` with `reason`: an approver takes back a
   * grant before the retry consumed it. Fails with `not_approved` otherwise.
   */
  revokeGrant(id: string, reason: string, now: Date): Promise<TransitionResult>;
  /**
   * Cancels every live request of `requester` — pending, or approved with its grant not yet used up
   * (a once grant not consumed; a window grant still open) — whose credential is not `keep`
   * (all of them when `keep` is undefined), recording `reason`. Returns the requests that changed.
   */
  cancelForRequester(requester: string, keep: string | undefined, reason: string): Promise<ApprovalRequest[]>;
  /**
   * `approved` → `cancelled` with `reason`, whether or not a call used the grant (a once grant being
   * consumed is `executing`, not `approved`, and is left alone; so is a window's running execution).
   * Returns the changed request, or undefined when it was not `approved`.
   */
  cancelGrant(id: string, reason: string): Promise<ApprovalRequest | undefined>;
  /** Distinct requester/credential pairs of the live (pending or approved) requests. */
  liveRequesters(): Promise<RequesterCredential[]>;
  /**
   * Expires what is due at `now`: pending requests past `expires_at`, and approved requests whose
   * grant ended before their call ran. Returns the requests that changed — including those another
   * method expired on its way (every transaction expires what is due first) since the last call, so
   * each expiry is reported once.
   */
  expireDue(now: Date): Promise<ApprovalRequest[]>;
  /**
   * The first identical call after a denial: returns the denied request for this binding and key
   * (requested or resolved) whose original expiry is after `now` and whose denial was not yet
   * delivered, and marks it delivered. Later identical calls get undefined.
   */
  claimDenial(binding: CallBinding, key: string, now: Date): Promise<ApprovalRequest | undefined>;
  /**
   * The newest request for this binding and key (requested or resolved) that is `approved` with an
   * unexpired grant, or `executing` — what a retry of an approved call is matched against.
   */
  findApprovedCall(binding: CallBinding, key: string, now: Date): Promise<ApprovalRequest | undefined>;
  /** An approved window grant for this binding, tool and scope that is still active at `now`. */
  findWindowGrant(
    binding: CallBinding,
    tool: string,
    scope: string,
    now: Date,
  ): Promise<ApprovalRequest | undefined>;
  /**
   * The executions' history now (see `ExecutionMark`). Implementations do the read when called (not
   * at the first `await`), so a mark taken on a call's arrival is taken then.
   */
  executionMark(): Promise<ExecutionMark>;
  /** Starts an execution atomically (see `BeginExecution`); the row is `executing`. */
  beginExecution(input: BeginExecution, now: Date): Promise<BeginResult>;
  /** Records how an execution ended; a consumed once grant's request moves to executed/failed/stale. */
  finishExecution(id: string, finish: FinishExecution, now: Date): Promise<void>;
  getExecution(id: string): Promise<StoredExecution | undefined>;
  /** The execution that used this idempotency key for this requester and tool, if any. */
  findExecutionByIdempotencyKey(
    requester: string,
    tool: string,
    key: string,
  ): Promise<StoredExecution | undefined>;
  /** Executions still `executing` (after a crash: what reconciliation looks at). */
  listExecuting(): Promise<StoredExecution[]>;
  /**
   * A store shared by several processes (PostgreSQL replicas) knows which executions no live process
   * runs any more: those, claimed for the caller to settle. Reconciliation uses it instead of
   * `listExecuting` when present, so it never settles another live replica's running call.
   */
  listOrphaned?(): Promise<StoredExecution[]>;
  getFreeze(): Promise<FreezeState>;
  /** Turns the freeze on (`reason` and `by` given) or off (`frozen: false`). */
  setFreeze(frozen: boolean, reason: string | null, by: string | null, now: Date): Promise<FreezeState>;
  close(): Promise<void>;
}

/** The execution half of a store: what `executionMethods` of each engine provides. */
export type ExecutionMethods = Pick<
  ApprovalStore,
  | 'executionMark'
  | 'beginExecution'
  | 'finishExecution'
  | 'getExecution'
  | 'findExecutionByIdempotencyKey'
  | 'listExecuting'
  | 'listOrphaned'
>;

/** The approval-request half of a store: everything but executions, the freeze and `close`. */
export type RequestMethods = Omit<
  ApprovalStore,
  keyof ExecutionMethods | 'getFreeze' | 'setFreeze' | 'close'
>;
