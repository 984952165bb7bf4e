/**
 * The investigator's MCP connection: an ordinary MCP client over Streamable HTTP with the
 * investigator's own bearer token, so its calls take the same path, and meet the same gate, as any
 * other caller's. Each answer is classified by the gate's `_meta.approval_status`: a held call is a
 * successful result that says `pending`, never a blocking call.
 */
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { CallToolResultSchema, type CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import { SentinelError } from '../../core/index.ts';
import { isConnectionFailure, PendingResultMetaSchema, serverUnreachable } from '../../server/index.ts';

/** What the investigator needs to know about a published tool. */
export interface ToolInfo {
  name: string;
  /** `annotations.readOnlyHint`: read calls never wait for approval. */
  readOnly: boolean;
  /** Whether the input schema declares `dry_run` (a preview the gate allows). */
  supportsDryRun: boolean;
  /** The arguments its input schema declares (absent: not known). */
  arguments?: readonly string[];
}

/**
 * One answer, by what the gate made of the call:
 * - `result`: the tool ran (`isError` false);
 * - `error`: the tool ran and failed, or the arguments were rejected;
 * - `held`: the gate holds the call as approval request `requestId` (nothing ran);
 * - `declined`: the policy or a human denied this exact call (nothing ran);
 * - `stale` / `frozen` / `in_progress` / `replayed`: the gate did not run it for that reason.
 */
export type ClassifiedResult =
  | {
      kind: 'result' | 'error';
      text: string;
      structured: Record<string, unknown> | null;
      requestId: string | null;
      /** `error`: the SentinelError code the server put under `_meta.error.code`, if any. */
      errorCode: string | null;
    }
  | { kind: 'held'; text: string; requestId: string; expiresAt: string }
  | {
      kind: 'declined' | 'stale' | 'frozen' | 'in_progress' | 'replayed';
      text: string;
      requestId: string | null;
    };

/** Calls tools on the Sentinel server. */
/** How one call is made. */
export interface CallOptions {
  /** Share the call's Kubernetes reads with the other calls naming this snapshot id. */
  readSnapshot?: string | undefined;
}

export interface ToolCaller {
  tools(): Promise<Map<string, ToolInfo>>;
  /**
   * Calls `tool`. `options.readSnapshot` names the server's read snapshot the call's Kubernetes
   * reads share with other calls naming it (`_meta.read_snapshot`, server/snapshot-reads.ts).
   */
  call(tool: string, args: Record<string, unknown>, options?: CallOptions): Promise<ClassifiedResult>;
  close(): Promise<void>;
}

/** The joined text items of a result. */
export function resultText(result: Pick<CallToolResult, 'content'>): string {
  return (Array.isArray(result.content) ? result.content : [])
    .filter((part): part is { type: 'text'; text: string } => part?.type === 'text')
    .map((part) => part.text)
    .join('\n');
}

/** Classifies a `tools/call` result by the gate's `_meta.approval_status`. */
export function classifyResult(result: CallToolResult): ClassifiedResult {
  const text = resultText(result);
  const meta = (result._meta ?? {}) as Record<string, unknown>;
  const requestId = typeof meta.approval_request_id === 'string' ? meta.approval_request_id : null;
  const pending = PendingResultMetaSchema.safeParse(meta);
  if (pending.success) {
    return {
      kind: 'held',
      text,
      requestId: pending.data.approval_request_id,
      expiresAt: pending.data.expires_at,
    };
  }
  switch (meta.approval_status) {
    case 'denied':
    case 'stale':
    case 'frozen':
    case 'in_progress':
    case 'replayed':
      return {
        kind: meta.approval_status === 'denied' ? 'declined' : meta.approval_status,
        text,
        requestId,
      };
  }
  const structured =
    result.structuredContent && typeof result.structuredContent === 'object'
      ? (result.structuredContent as Record<string, unknown>)
      : null;
  const error = meta.error as { code?: unknown } | undefined;
  const errorCode = result.isError && typeof error?.code === 'string' ? error.code : null;
  return { kind: result.isError ? 'error' : 'result', text, structured, requestId, errorCode };
}

export interface McpToolCallerOptions {
  /** The server's MCP endpoint, e.g. `http://127.0.0.1:7070/mcp`. */
  url: URL;
  /** The investigator identity's bearer token. */
  token: string;
  /** Deadline of each request, in milliseconds (default 60 000). */
  timeoutMs?: number;
}

/**
 * Connects lazily on the first use. Throws `SentinelError('unavailable')` naming the URL when the
 * server cannot be reached or refuses the token.
 */
export function mcpToolCaller(options: McpToolCallerOptions): ToolCaller {
  const timeout = options.timeoutMs ?? 60_000;
  let connected: Promise<{ client: Client; tools: Map<string, ToolInfo> }> | undefined;
  const connect = () => {
    connected ??= (async () => {
      const client = new Client({ name: 'sentinel-investigator', version: '1' });
      const transport = new StreamableHTTPClientTransport(options.url, {
        requestInit: { headers: { authorization: `Bearer ${options.token}` } },
      });
      try {
        await client.connect(transport, { timeout });
        const listed = await client.listTools(undefined, { timeout });
        const tools = new Map(
          listed.tools.map((tool) => [
            tool.name,
            {
              name: tool.name,
              readOnly: tool.annotations?.readOnlyHint === true,
              supportsDryRun: Object.hasOwn(tool.inputSchema.properties ?? {}, 'dry_run'),
              arguments: Object.keys(tool.inputSchema.properties ?? {}),
            },
          ]),
        );
        return { client, tools };
      } catch (error) {
        await client.close().catch(() => undefined);
        throw unreachable(options.url, error);
      }
    })();
    connected.catch(() => (connected = undefined));
    return connected;
  };
  return {
    tools: async () => (await connect()).tools,
    async call(tool, args, callOptions) {
      const { client } = await connect();
      let result: CallToolResult;
      const snapshot = callOptions?.readSnapshot;
      try {
        const params = {
          name: tool,
          arguments: args,
          ...(snapshot !== undefined && { _meta: { read_snapshot: snapshot } }),
        };
        result = (await client.callTool(params, CallToolResultSchema, {
          timeout,
        })) as CallToolResult;
      } catch (error) {
        throw unreachable(options.url, error);
      }
      return classifyResult(result);
    },
    async close() {
      const current = connected;
      connected = undefined;
      if (current) await (await current.catch(() => undefined))?.client.close();
    },
  };
}

function unreachable(url: URL, error: unknown): SentinelError {
  if (isConnectionFailure(error)) return serverUnreachable(url.href, error);
  const reason = error instanceof Error ? error.message : String(error);
  return new SentinelError(
    'unavailable',
    `Cannot use the Sentinel MCP server at ${url.href} (${reason}); check --server and that the investigator's token is valid.`,
    { cause: error },
  );
}
