/**
 * `ServerGrantClient` over the Sentinel server's HTTP surface, with the human's approver token:
 * previews through MCP (`tools/call` with `dry_run: true`, which the gate allows for tools that
 * support dry runs) and grants through the approvals API (`POST /approvals`).
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { ApprovalNotRequiredSchema, ApprovalRequestSchema } from '../../server/gate/approval-request.ts';
import { SentinelError } from '../../tools/errors.ts';
import { codeForStatus, errorBodyMessage, parseJsonOrUndefined } from './errors.ts';
import { DEFAULT_SENTINEL_MCP_URL, HARNESS_IDENTITY } from './names.ts';
import type { PreviewLike, SentinelToolCall, ServerGrant, ServerGrantClient } from './server-grants.ts';

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

/** The server's MCP endpoint and approvals API, from either its MCP URL or its base URL. */
export function sentinelEndpoints(url: string): { mcp: URL; approvals: URL } {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new SentinelError(
      'invalid_input',
      `--server '${url}' is not a URL; expected e.g. ${DEFAULT_SENTINEL_MCP_URL}.`,
      {
        field: 'server',
      },
    );
  }
  const base = new URL(parsed.href);
  base.search = '';
  base.hash = '';
  base.pathname = `${base.pathname.replace(/\/+$/, '').replace(/\/mcp$/, '')}/`;
  return { mcp: new URL('mcp', base), approvals: new URL('approvals', base) };
}

export class SentinelServerClient implements ServerGrantClient {
  private readonly endpoints: { mcp: URL; approvals: URL };
  private readonly token: string;
  private readonly requester: string;
  private readonly timeoutMs: number;
  private mcp: Promise<{ client: Client; dryRunTools: Set<string> }> | undefined;

  constructor(options: SentinelServerOptions) {
    this.endpoints = sentinelEndpoints(options.url);
    this.token = options.token;
    this.requester = options.requester ?? HARNESS_IDENTITY;
    this.timeoutMs = options.timeoutMs ?? 30_000;
  }

  /** `POST /approvals {requester, tool, arguments}` with the approver token; returns the request id. */
  async preapprove(call: SentinelToolCall): Promise<ServerGrant> {
    const url = this.endpoints.approvals;
    let response: Response;
    let text: string;
    try {
      response = await fetch(url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${this.token}` },
        body: JSON.stringify({ requester: this.requester, tool: call.tool, arguments: call.arguments }),
        signal: AbortSignal.timeout(this.timeoutMs),
      });
      text = await response.text();
    } catch (error) {
      throw unreachable(url, error);
    }
    if (!response.ok) {
      throw new SentinelError(
        codeForStatus(response.status),
        `Sentinel server refused to approve ${call.tool} (${response.status}): ${errorBodyMessage(text)}`,
        { details: { status: response.status } },
      );
    }
    const body = parseJsonOrUndefined(text);
    // 200: the policy lets this call run without approval; 201: the approved request.
    const notRequired = ApprovalNotRequiredSchema.safeParse(body);
    if (response.status === 200 && notRequired.success)
      return { id: undefined, allowedByRule: notRequired.data.rule };
    const request = ApprovalRequestSchema.safeParse(body);
    if (!request.success) {
      throw new SentinelError(
        'unavailable',
        `Sentinel server answered POST ${url.pathname} with something that is not an approval request; is --server a Sentinel server of this version?`,
        { cause: request.error },
      );
    }
    if (request.data.status !== 'approved') {
      throw new SentinelError(
        'refused',
        `Sentinel server created approval request ${request.data.id} for ${call.tool} but it is ${request.data.status}, not approved.`,
      );
    }
    return { id: request.data.id };
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
      throw unreachable(this.endpoints.mcp, error);
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

  async close(): Promise<void> {
    const mcp = this.mcp;
    this.mcp = undefined;
    if (mcp) await (await mcp.catch(() => undefined))?.client.close();
  }

  private connect(): Promise<{ client: Client; dryRunTools: Set<string> }> {
    this.mcp ??= (async () => {
      const client = new Client({ name: 'sentinel-cli', version: '1' });
      const transport = new StreamableHTTPClientTransport(this.endpoints.mcp, {
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
        return { client, dryRunTools };
      } catch (error) {
        await client.close().catch(() => undefined);
        throw unreachable(this.endpoints.mcp, error);
      }
    })();
    this.mcp.catch(() => (this.mcp = undefined));
    return this.mcp;
  }
}

function unreachable(url: URL, error: unknown): SentinelError {
  const reason = error instanceof Error ? error.message : String(error);
  return new SentinelError(
    'unavailable',
    `Cannot use the Sentinel server at ${url.origin}${url.pathname} (${reason}); check --server and SENTINEL_TOKEN.`,
    { cause: error },
  );
}
