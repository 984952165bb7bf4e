/**
 * `ServerGrantClient` over the Sentinel server's HTTP surface, with the human's approver token:
 * previews through MCP (`tools/call` with `dry_run: true`, which the gate allows for tools that
 * support dry runs) and grants through the approvals API (`POST /approvals`).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import {
  createApprovalsClient,
  isConnectionFailure,
  serverUnreachable,
  serverBaseUrl,
  type ApprovalsClient,
  clientRefKey,
  type ApprovalNotRequired,
  type ApprovalRequest,
  confirmationFor,
  matchedArguments,
} from '../../server/index.ts';
import type { Risk } from '../../tools/index.ts';
import { canonicalJson, SentinelError } from '../../core/index.ts';
import { HARNESS_IDENTITY } from './names.ts';
import type {
  ClientRef,
  HeldCall,
  PreviewLike,
  SentinelToolCall,
  ServerAnswer,
  ServerGrant,
  ServerGrantClient,
} from './server-grants.ts';

export interface SentinelServerOptions {
  /** The server's MCP URL (`http://127.0.0.1:7070/mcp`) or its base URL. */
  url: string;
  /** The human's bearer token: an identity with the approver role. */
  token: string;
  /** Requester the grant is made for. Default `trueforge`. */
  requester?: string;
  /** Deadline per request, in milliseconds. Default 30 000. */
  timeoutMs?: number;
}

/**
 * The server's MCP endpoint and approvals API from its MCP URL (`http://127.0.0.1:7070/mcp`) or its
 * base URL. Throws `SentinelError('invalid_input')` naming `--server` for anything but http(s).
 */
export function sentinelEndpoints(url: string): { mcp: URL; approvals: URL } {
  const base = serverBaseUrl(url);
  return { mcp: new URL(`${base}/mcp`), approvals: new URL(`${base}/approvals`) };
}

export class SentinelServerClient implements ServerGrantClient {
  private readonly approvals: ApprovalsClient;
  private readonly mcpUrl: URL;
  private readonly token: string;
  private readonly requester: string;
  private readonly timeoutMs: number;
  private mcp: Promise<McpConnection> | undefined;

  /** Throws `SentinelError('invalid_input')` naming `--server` for a URL that is not http(s). */
  constructor(options: SentinelServerOptions) {
    this.timeoutMs = options.timeoutMs ?? 30_000;
    this.approvals = createApprovalsClient({
      server: options.url,
      token: options.token,
      timeoutMs: this.timeoutMs,
    });
    this.mcpUrl = sentinelEndpoints(options.url).mcp;
    this.token = options.token;
    this.requester = options.requester ?? HARNESS_IDENTITY;
  }

  /**
   * With `ref` (harness mode): `POST /approvals {requester, tool, arguments, client_ref}` — the server
   * makes at most one request per harness tool call, so a second answer for the same call (another
   * process, another machine, a lost ledger) returns the first decision (`existing`) and grants
   * nothing. Without `ref`: reuses an approved, still unused grant of the requester for the same
   * resolved call, else creates one. Returns the request id, or no id when the policy allows the call
   * without approval. Throws the server's `SentinelError` (e.g. `forbidden` when the token is not an
   * approver for this call).
   */
  async preapprove(call: SentinelToolCall, preview?: PreviewLike, ref?: ClientRef): Promise<ServerGrant> {
    if (!ref) {
      const reusable = await this.unusedGrantFor(call, preview);
      if (reusable) return { id: reusable.id, reused: true };
    }
    const { answer, created } = await this.approvals.createOnce({
      requester: this.requester,
      tool: call.tool,
      arguments: call.arguments,
      ...(ref && { client_ref: ref }),
    });
    if ('approval_required' in answer) return { id: undefined, allowedByRule: answer.rule };
    if (!created) {
      if (!answer.decision) {
        throw new SentinelError(
          'approval_expired',
          `Approval request ${answer.id} for this tool call ended ${answer.status} without a decision; nothing was granted.`,
        );
      }
      return { id: answer.id, existing: serverAnswer(answer) };
    }
    if (answer.status !== 'approved') {
      throw new SentinelError(
        'refused',
        `Sentinel server created approval request ${answer.id} for ${call.tool} but it is ${answer.status}, not approved.`,
      );
    }
    return { id: answer.id };
  }

  async recordDenial(call: SentinelToolCall, reason: string, ref: ClientRef) {
    const { answer, created } = await this.approvals.createOnce({
      requester: this.requester,
      tool: call.tool,
      arguments: call.arguments,
      client_ref: ref,
      decision: 'deny',
      reason,
    });
    return denialOf(answer, created);
  }

  async hold(call: SentinelToolCall, ref: ClientRef): Promise<HeldCall | undefined> {
    const { answer } = await this.approvals.createOnce({
      requester: this.requester,
      tool: call.tool,
      arguments: call.arguments,
      client_ref: ref,
      decision: 'ask',
    });
    return 'approval_required' in answer ? undefined : this.heldOf(answer);
  }

  async held(id: string): Promise<HeldCall> {
    return this.heldOf(await this.approvals.get(id));
  }

  private heldOf(request: ApprovalRequest): HeldCall {
    return {
      id: request.id,
      status: request.status,
      answer: request.decision ? serverAnswer(request) : undefined,
      pageUrl: `${serverBaseUrl(this.mcpUrl.href)}/ui/approvals`,
      confirmation: confirmationFor(request),
    };
  }

  async answerFor(ref: ClientRef): Promise<ServerAnswer | undefined> {
    const [first] = await this.approvals.list({ client_ref: clientRefKey(ref) });
    return first && first.decision ? serverAnswer(first) : undefined;
  }

  /**
   * The requester's `approved` request for this exact call, compared as the gate does: the dry run's
   * `resolved_arguments` against the request's resolved `arguments`, or (without a dry run) the call
   * without `reason`/`idempotency_key` against the request's `requested_arguments`.
   */
  private async unusedGrantFor(call: SentinelToolCall, preview: PreviewLike | undefined) {
    const approved = await this.approvals.list({
      status: 'approved',
      requester: this.requester,
      tool: call.tool,
    });
    const resolved = preview?.structured?.resolved_arguments;
    const key = canonicalJson(matchedArguments(isRecord(resolved) ? resolved : call.arguments));
    return approved.find(
      (request) =>
        canonicalJson(
          matchedArguments(isRecord(resolved) ? request.arguments : request.requested_arguments),
        ) === key,
    );
  }

  /** `tools/call` with `dry_run: true`, only for a tool whose input schema declares `dry_run`. */
  async preview(call: SentinelToolCall): Promise<PreviewLike | undefined> {
    const { client, dryRunTools } = await this.connect();
    // A tool without dry_run would treat the call as real (the gate would hold it as a new request).
    if (!dryRunTools.has(call.tool)) return undefined;
    let result: Awaited<ReturnType<Client['callTool']>>;
    try {
      result = await client.callTool(
        { name: call.tool, arguments: { ...call.arguments, dry_run: true } },
        undefined,
        {
          timeout: this.timeoutMs,
        },
      );
    } catch (error) {
      throw unreachable(this.mcpUrl, error);
    }
    const content = Array.isArray(result.content) ? result.content : [];
    const text = content
      .filter((part): part is { type: 'text'; text: string } => part?.type === 'text')
      .map((part) => part.text)
      .join('\n');
    if (result.isError) {
      throw new SentinelError('refused', `The dry run of ${call.tool} failed: ${text || 'no details'}`);
    }
    const structured = result.structuredContent as Record<string, unknown> | undefined;
    return { text, structured };
  }

  async risk(tool: string): Promise<Risk | undefined> {
    return (await this.connect()).risks.get(tool);
  }

  async close(): Promise<void> {
    const mcp = this.mcp;
    this.mcp = undefined;
    if (mcp) await (await mcp.catch(() => undefined))?.client.close();
  }

  private connect(): Promise<McpConnection> {
    this.mcp ??= (async () => {
      const client = new Client({ name: 'sentinel-cli', version: '1' });
      const transport = new StreamableHTTPClientTransport(this.mcpUrl, {
        requestInit: { headers: { authorization: `Bearer ${this.token}` } },
      });
      try {
        await client.connect(transport, { timeout: this.timeoutMs });
        const { tools } = await client.listTools(undefined, { timeout: this.timeoutMs });
        const dryRunTools = new Set(
          tools
            .filter((tool) => Object.hasOwn(tool.inputSchema.properties ?? {}, 'dry_run'))
            .map((tool) => tool.name),
        );
        const risks = new Map(
          tools.flatMap((tool) => {
            const risk = riskOf(tool.annotations);
            return risk ? [[tool.name, risk] as const] : [];
          }),
        );
        return { client, dryRunTools, risks };
      } catch (error) {
        await client.close().catch(() => undefined);
        throw unreachable(this.mcpUrl, error);
      }
    })();
    this.mcp.catch(() => (this.mcp = undefined));
    return this.mcp;
  }
}

/** The MCP session, with what tools/list said: the tools that take `dry_run`, and each tool's risk. */
interface McpConnection {
  client: Client;
  dryRunTools: Set<string>;
  risks: Map<string, Risk>;
}

/**
 * A tool's risk from its annotations, the inverse of `annotationsFor` (tools/define-tool.ts); only
 * the booleans count, as the harness's selectors read them. Undefined without those hints.
 */
function riskOf(
  annotations: { readOnlyHint?: unknown; destructiveHint?: unknown } | undefined,
): Risk | undefined {
  if (annotations?.destructiveHint === true) return 'destructive';
  if (annotations?.readOnlyHint === true) return 'read';
  if (annotations?.readOnlyHint === false) return 'write';
  return undefined;
}

function unreachable(url: URL, error: unknown): SentinelError {
  if (isConnectionFailure(error)) return serverUnreachable(`${url.origin}${url.pathname}`, error);
  const reason = error instanceof Error ? error.message : String(error);
  return new SentinelError(
    'unavailable',
    `Cannot use the Sentinel server at ${url.origin}${url.pathname} (${reason}); check --server and SENTINEL_TOKEN.`,
    { cause: error },
  );
}

/** The decision a request records, for the CLI. */
function serverAnswer(request: ApprovalRequest): ServerAnswer {
  return {
    id: request.id,
    decision: request.decision?.decision ?? 'allow',
    by: request.decision?.by ?? request.created_by,
    at: request.decision?.at ?? request.created_at,
    status: request.status,
    reason: request.decision?.reason ?? null,
  };
}

function denialOf(
  answer: ApprovalRequest | ApprovalNotRequired,
  created: boolean,
): (ServerAnswer & { existing: boolean }) | undefined {
  if ('approval_required' in answer) return undefined;
  return { ...serverAnswer(answer), existing: !created };
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
