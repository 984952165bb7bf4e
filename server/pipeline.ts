/**
 * The `tools/call` pipeline and the middleware contract the approval gate (server/gate/) plugs into.
 *
 * Order, for every call whatever the transport: unknown tool → `isError` result; arguments parsed by
 * the tool's strict schema (unknown argument or bad value → `isError` result naming the field and
 * the rule, before anything else runs); then the middlewares, outermost first; then the handler.
 * Calls refused before the middlewares are reported to `onRejected` (the audit log records them).
 * A handler's `SentinelError` becomes `isError: true` with its message; any other error becomes
 * `internal` (logged with its stack, never shown).
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { Logger } from 'pino';
import type { ClusterIdentity, Tool, KubeConnection, ToolRegistry } from '../tools/index.ts';
import { didYouMean, SentinelError, toSentinelError } from '../core/index.ts';
import { parseToolArguments } from './arguments.ts';
import type { CallOutcome } from './call-outcome.ts';
import type { ApprovalRequest } from './gate/approval-request.ts';
import type { GateDecision } from './gate/decision.ts';
import type { StoredExecution } from './gate/store/types.ts';
import type { Identity } from './identity.ts';
import type { ClusterAccess } from './kube.ts';
import { createCallReads, forgettingWriter, runTool, type CallReads } from './run-tool.ts';
import { createSnapshotReads, READ_SNAPSHOT_ID, type SnapshotReads } from './snapshot-reads.ts';

export type { Identity, Role } from './identity.ts';

/**
 * What the approval gate decided about a call. The gate writes it to `call.notes.gate`; the audit
 * log and metrics, which wrap the gate, read it (a held or denied result alone does not say which
 * rule matched, and an allowed call's result says nothing about the policy).
 */
export interface GateNote {
  /** The matched policy rule (`default:<risk>` when no rule matched). */
  rule: string;
  /** `upstream`: an `ask` that ran on a verified harness approval (`trust_upstream_approval`). */
  decision: 'allow' | 'ask' | 'deny' | 'upstream';
  /** The approval request that held the call, or whose grant let it through. */
  approvalRequestId?: string;
  /**
   * That request as the gate saw it (for its rule, approver and decision time): the audit log reads
   * it here and never asks the gate.
   */
  request?: ApprovalRequest;
}

/** Facts middlewares leave for each other about one call (one object for the whole chain). */
export interface ToolCallNotes {
  gate?: GateNote;
  /** The approval gate's decision (server/gate/decision.ts), as a typed value. */
  decision?: GateDecision;
  /** What became of the call, as the gate rendered it (server/gate/outcome.ts). */
  outcome?: CallOutcome;
  /**
   * The execution this call started (server/gate/execute.ts), with its status once finished: what
   * ran — the resolved call, with the reason it carried — which the audit log records.
   */
  execution?: StoredExecution;
}

/** One `tools/call` as the middlewares see it. */
export interface ToolCall {
  /** Per HTTP request (or stdio message) id; also in every log line of the request. */
  requestId: string;
  identity: Identity;
  /** From the registry. */
  tool: Tool;
  /** Parsed by the tool's strict schema, defaults applied. */
  args: Record<string, unknown>;
  /** Undefined when no cluster is configured. */
  cluster: ClusterIdentity | undefined;
  /** Shared by every middleware of this call: `next({ args })` keeps the same object. */
  notes: ToolCallNotes;
}

export interface ExecuteOverrides {
  args?: Record<string, unknown>;
  approvalRequestId?: string;
  dryRun?: boolean;
  /** A preview that only re-checks an approved call (`ToolContext.recheck`). */
  recheck?: boolean;
}

/** Runs the handler; `overrides.args` replaces the call's args (re-validated by the tool schema). */
export type ExecuteFn = (overrides?: ExecuteOverrides) => Promise<CallToolResult>;

export type ToolCallMiddleware = (call: ToolCall, next: ExecuteFn) => Promise<CallToolResult>;

/** Identity recorded for a call whose bearer token was missing, unknown or revoked. */
export const UNAUTHENTICATED = '(unauthenticated)';

/** Tool recorded for a call refused before its body was read (HTTP 401). */
export const UNREAD_TOOL = '(unread)';

/**
 * A `tools/call` refused before the middlewares ran — so before the approval gate and the audit
 * middleware saw it: an unknown tool, invalid arguments, or a caller that did not authenticate.
 * Carries no argument values (they were never validated; the error names the fields).
 */
export interface RejectedCall {
  /** When the call arrived. */
  at: Date;
  requestId: string;
  /** The caller's identity name, or `UNAUTHENTICATED`. */
  identity: string;
  /** `params.name` as sent, or `UNREAD_TOOL`. */
  tool: string;
  reason: 'unknown_tool' | 'invalid_arguments' | 'unauthenticated';
  /** What the caller was told. */
  error: SentinelError;
  /** For an HTTP request refused for its token: its remote address and route (`POST /mcp`). */
  source?: string;
  route?: string;
}

/** Told about every rejected call (e.g. to audit it); must not throw. */
export type RejectedCallListener = (rejection: RejectedCall) => void;

/** What the pipeline needs; shared by every request. */
export interface ToolCallPipelineOptions {
  registry: ToolRegistry;
  /** The cluster connection, awaited on every call (it is made on the first) so a reconnect is picked up. */
  kube: ClusterAccess;
  /** Outermost first. */
  middlewares: readonly ToolCallMiddleware[];
  logger: Logger;
  /** Told about calls refused before the middlewares (unknown tool, invalid arguments). */
  onRejected?: RejectedCallListener;
  /** Read snapshots shared by calls naming one (`_meta.read_snapshot`); default: one store per pipeline. */
  snapshots?: SnapshotReads;
}

/** One incoming `tools/call`. */
export interface ToolCallRequest {
  requestId: string;
  identity: Identity;
  /** `params.name` as sent. */
  name: string;
  /** `params.arguments` as sent (undefined when absent). */
  arguments: Record<string, unknown> | undefined;
  /** Aborted when the MCP request is cancelled or the connection closes. */
  signal: AbortSignal;
  /**
   * `params._meta.read_snapshot` as sent: the read snapshot this call's reads share with other
   * calls naming it (server/snapshot-reads.ts); used by read tools and dry runs only.
   */
  readSnapshot?: unknown;
}

/** Runs one `tools/call` through the pipeline; never throws (every failure is an `isError` result). */
export type ToolCallPipeline = (request: ToolCallRequest) => Promise<CallToolResult>;

/** An `isError` tool result carrying the error's message (never a stack) and its code under `_meta`. */
export function errorResult(error: SentinelError): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: error.message }],
    _meta: { error: error.toJSON() },
  };
}

/** Facts about a call worth a log field: the Kubernetes object it names, if any. */
function subjectOf(args: Record<string, unknown>): Record<string, unknown> {
  const subject: Record<string, unknown> = {};
  if (typeof args.namespace === 'string') subject.namespace = args.namespace;
  if (typeof args.name === 'string') subject.name = args.name;
  return subject;
}

/**
 * Builds the pipeline. The handler runs with a `ToolContext` whose `kube` is the cluster's
 * `KubeReader`; `writer` is set only for write/destructive tools and never when the call is a dry
 * run (`dry_run: true` in the arguments, or `overrides.dryRun`).
 *
 * Overrides accumulate down the chain: when a middleware calls `next({ args })`, the inner
 * middlewares see the re-validated args and the handler runs with them.
 */
export function createToolCallPipeline(options: ToolCallPipelineOptions): ToolCallPipeline {
  const { registry, kube, middlewares, logger, onRejected } = options;
  const snapshots = options.snapshots ?? createSnapshotReads();

  return async (request) => {
    const at = new Date();
    const started = performance.now();
    // Fields on the lines themselves rather than child loggers: a child per call costs more than
    // the two or three lines a call writes.
    const who = { requestId: request.requestId, identity: request.identity.name };
    const reject = (reason: RejectedCall['reason'], error: SentinelError): CallToolResult => {
      logger.warn({ ...who, tool: request.name, outcome: error.code, reason }, 'tool call rejected');
      const rejection = {
        at,
        requestId: request.requestId,
        identity: request.identity.name,
        tool: request.name,
      };
      notifyRejected(onRejected, { ...rejection, reason, error }, logger);
      return errorResult(error);
    };
    const tool = registry.get(request.name);
    if (!tool) {
      return reject(
        'unknown_tool',
        new SentinelError(
          'not_found',
          `Unknown tool '${request.name}'; tools/list shows the tools this server provides.${didYouMean(
            request.name,
            registry.tools.map((known) => known.name),
          )}`,
          { field: 'name' },
        ),
      );
    }
    let args: Record<string, unknown>;
    try {
      args = parseToolArguments(tool, request.arguments ?? {});
    } catch (error) {
      return reject('invalid_arguments', toSentinelError(error));
    }
    const snapshot = request.readSnapshot;
    if (snapshot !== undefined && (typeof snapshot !== 'string' || !READ_SNAPSHOT_ID.test(snapshot))) {
      return reject(
        'invalid_arguments',
        new SentinelError(
          'invalid_input',
          '_meta.read_snapshot must be 1-128 letters, digits, dots, colons, underscores or hyphens (an opaque id, e.g. the investigation id).',
          { field: '_meta.read_snapshot' },
        ),
      );
    }
    // Only a read tool or a dry run the caller asked for reads from a snapshot: never the gate's
    // resolution of a change, its re-check or an execution (they need what the cluster says now).
    const shared =
      snapshot !== undefined && (tool.risk === 'read' || args.dry_run === true)
        ? { id: snapshot, snapshots }
        : { snapshots };
    const fields = { ...who, tool: tool.name, risk: tool.risk, ...subjectOf(args) };
    // A change's execution builds on the reads its preview made in this call (server/run-tool.ts).
    const reads = createCallReads();
    const fail = (error: unknown): CallToolResult => {
      const sentinelError = toSentinelError(error);
      if (sentinelError.code === 'internal') {
        logger.error({ ...fields, err: error }, 'tool call failed unexpectedly');
      }
      return errorResult(sentinelError);
    };

    const dispatch = async (
      index: number,
      call: ToolCall,
      overrides: ExecuteOverrides,
    ): Promise<CallToolResult> => {
      const middleware = middlewares[index];
      if (!middleware) return runHandler(call, overrides, await kube(), request.signal, reads, shared);
      const next: ExecuteFn = async (more = {}) => {
        try {
          const nextCall = more.args ? { ...call, args: parseToolArguments(tool, more.args) } : call;
          return await dispatch(index + 1, nextCall, { ...overrides, ...more });
        } catch (error) {
          return fail(error);
        }
      };
      return middleware(call, next);
    };

    let result: CallToolResult;
    try {
      const connection = await kube();
      const call: ToolCall = {
        requestId: request.requestId,
        identity: request.identity,
        tool,
        args,
        cluster: connection.configured ? connection.cluster : undefined,
        notes: {},
      };
      // A read's start says nothing its finish line does not: info for changes, debug for reads.
      if (tool.risk === 'read') logger.debug(fields, 'tool call');
      else logger.info(fields, 'tool call');
      result = await dispatch(0, call, {});
    } catch (error) {
      result = fail(error);
    }
    const error = result._meta?.error as { code?: string } | undefined;
    logger.info(
      {
        ...fields,
        outcome: result.isError ? (error?.code ?? 'error') : 'ok',
        durationMs: Math.round(performance.now() - started),
      },
      'tool call finished',
    );
    return result;
  };
}

/** Calls the rejection listener; a listener that throws is logged, never fails the call. */
export function notifyRejected(
  listener: RejectedCallListener | undefined,
  rejection: RejectedCall,
  log?: Logger,
): void {
  try {
    listener?.(rejection);
  } catch (error) {
    log?.error({ err: error, tool: rejection.tool }, 'rejected call not recorded');
  }
}

/**
 * The store key of a snapshot id: the id is the client's, so it is kept apart per identity and per
 * cluster — another identity naming the same id, or the same id after the server changes cluster,
 * reads the cluster, never someone else's snapshot.
 */
function snapshotKey(call: ToolCall, cluster: { context: string; server: string }, id: string): string {
  return JSON.stringify([call.identity.name, cluster.server, cluster.context, id]);
}

/**
 * Runs the tool's handler for `call` (args already parsed). Throws `SentinelError('unavailable')`
 * when no cluster is configured and `invalid_input` when a dry run is asked of a tool without one.
 */
async function runHandler(
  call: ToolCall,
  overrides: ExecuteOverrides,
  connection: KubeConnection,
  signal: AbortSignal,
  reads: CallReads,
  shared: { id?: string; snapshots: SnapshotReads },
): Promise<CallToolResult> {
  const { tool } = call;
  let args = call.args;
  const dryRun = overrides.dryRun === true || args.dry_run === true;
  if (dryRun && !tool.supportsDryRun) {
    throw new SentinelError(
      'invalid_input',
      `Tool '${tool.name}' has no dry-run mode, so it cannot be previewed.`,
      { field: 'dry_run' },
    );
  }
  if (dryRun) args = { ...args, dry_run: true };
  if (!connection.configured) {
    throw new SentinelError('unavailable', connection.reason);
  }
  const executes = tool.risk !== 'read' && !dryRun;
  // Only read tools outside a snapshot may answer from the read cache (--read-cache watch):
  // previews, the gate's re-reads, executions and snapshots (which previews share) read the API server.
  const live =
    shared.id !== undefined && !executes && overrides.recheck !== true
      ? shared.snapshots.reader(snapshotKey(call, connection.cluster, shared.id), connection.reader)
      : (tool.risk === 'read' && connection.cachedReader) || connection.reader;
  const reader = dryRun ? reads.recording(live) : executes ? reads.replaying(live) : live;
  return runTool(
    tool,
    args,
    {
      kube: reader,
      cluster: connection.cluster,
      signal,
      dryRun,
      ...(overrides.approvalRequestId !== undefined && { approvalRequestId: overrides.approvalRequestId }),
      ...(dryRun && overrides.recheck === true && { recheck: true }),
    },
    // A write drops every read snapshot too: nothing read before it is served after it.
    { writer: executes ? forgettingWriter(connection.writer, reads, shared.snapshots) : undefined },
  );
}
