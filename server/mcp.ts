/**
 * The MCP protocol surface: a low-level SDK `Server` with Sentinel's own `tools/list` and
 * `tools/call` handlers, so the server — not the SDK — validates arguments and the approval gate sits
 * in front of every handler.
 */
import { Server } from '@modelcontextprotocol/sdk/server/index.js';
import { Protocol } from '@modelcontextprotocol/sdk/shared/protocol.js';
import { randomUUID } from 'node:crypto';
import type { Logger } from 'pino';
import {
  CallToolRequestSchema,
  ListToolsRequestSchema,
  type Tool as McpTool,
} from '@modelcontextprotocol/sdk/types.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import type { jsonSchemaValidator } from '@modelcontextprotocol/sdk/validation';
import { z } from 'zod';
import type { Tool, ToolRegistry } from '../tools/index.ts';
import { toSentinelError } from '../core/index.ts';
import type { Identity } from './identity.ts';
import { publishedInput } from './tool-input.ts';
import {
  errorResult,
  notifyRejected,
  UNAUTHENTICATED,
  type RejectedCall,
  type RejectedCallListener,
  type ToolCallPipeline,
} from './pipeline.ts';

/**
 * How a tool is published in `tools/list`: name, title, description, the JSON Schema of its input
 * (`publishedInput`, as accepted: defaults make fields optional; `additionalProperties: false`; plus
 * the gate-owned `idempotency_key` on write/destructive tools), its output schema for read tools,
 * and the annotations exactly as `defineTool` derived them.
 *
 * Write/destructive tools publish no `outputSchema`: the gate may answer them with a successful
 * held result (`_meta.approval_status: "pending"`) that has no `structuredContent`, and MCP clients
 * (the SDK's `Client.callTool` among them) reject a successful result without structured content
 * from a tool that declares an output schema — a pause would surface as a protocol error. Their
 * `structuredContent` is still checked against the schema by the server when they execute.
 */
export function describeTool(tool: Tool): McpTool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: z.toJSONSchema(publishedInput(tool), { io: 'input' }) as McpTool['inputSchema'],
    ...(tool.output &&
      tool.risk === 'read' && {
        outputSchema: z.toJSONSchema(tool.output, { io: 'output' }) as NonNullable<McpTool['outputSchema']>,
      }),
    annotations: { ...tool.annotations },
  };
}

const published = new WeakMap<ToolRegistry, McpTool[]>();

/**
 * The `tools/list` result for a registry, computed once. Throws if a tool's schema cannot be
 * expressed as JSON Schema — call it at start-up so that surfaces before any client connects.
 */
export function listTools(registry: ToolRegistry): McpTool[] {
  let tools = published.get(registry);
  if (!tools) {
    tools = registry.tools.map(describeTool);
    published.set(registry, tools);
  }
  return tools;
}

/** Who is calling and under which request id; resolved for each `tools/call`. */
export interface CallerContext {
  identity: Identity;
  requestId: string;
}

export interface McpServerOptions {
  registry: ToolRegistry;
  pipeline: ToolCallPipeline;
  /** Resolves the caller of one `tools/call`; may throw `SentinelError` (e.g. identity revoked). */
  caller: () => CallerContext;
  /** Server version reported in `initialize`. */
  version: string;
  /** Told about calls refused because `caller` threw (e.g. a revoked stdio identity). */
  onRejected?: RejectedCallListener;
  /** Logs a listener failure. */
  logger?: Logger;
}

/**
 * One JSON Schema validator for every per-request `Server`: the SDK builds a new Ajv instance (its
 * meta-schemas and formats compiled) in each `Server` constructor otherwise — the most expensive
 * part of a stateless request's set-up — and uses it only for elicitation, which Sentinel never
 * sends. Ajv itself is created on first use; compiled validators are cached by the instance.
 */
let ajv: AjvJsonSchemaValidator | undefined;
const sharedValidator: jsonSchemaValidator = {
  getValidator: (schema) => (ajv ??= new AjvJsonSchemaValidator()).getValidator(schema),
};

/**
 * `Server.setRequestHandler` wraps a `tools/call` handler to parse the request with
 * `CallToolRequestSchema` again (the `Protocol` already did, before the handler runs) and to parse
 * the result with `CallToolResultSchema`, answering zod's copy of it (~2 % of a read's CPU, issue
 * 17). The `Protocol`'s own registration parses the request once and answers the pipeline's result
 * as it is; every result the pipeline returns is a typed `CallToolResult` (runTool, errorResult),
 * and MCP clients check results themselves.
 */
const setProtocolRequestHandler = Protocol.prototype.setRequestHandler;

/**
 * A low-level MCP `Server` serving the registry through the pipeline. Connect it to one transport.
 * One per request (the SDK's stateless model keeps requests isolated); what does not depend on the
 * request — the `tools/list` result, input schemas, the JSON Schema validator — is built once.
 */
export function createMcpServer(options: McpServerOptions): Server {
  const { registry, pipeline, caller, version } = options;
  const tools = listTools(registry);
  const server = new Server(
    { name: 'sentinel', title: 'Sentinel Kubernetes operations', version },
    { capabilities: { tools: { listChanged: false } }, jsonSchemaValidator: sharedValidator },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools }));
  setProtocolRequestHandler.call(server, CallToolRequestSchema, async (request, extra) => {
    let context: CallerContext;
    try {
      context = caller();
    } catch (thrown) {
      const error = toSentinelError(thrown);
      const named = error.details?.identity;
      const rejection: RejectedCall = {
        at: new Date(),
        requestId: randomUUID(),
        identity: typeof named === 'string' ? named : UNAUTHENTICATED,
        tool: request.params.name,
        reason: 'unauthenticated',
        error,
      };
      notifyRejected(options.onRejected, rejection, options.logger);
      return errorResult(error);
    }
    return pipeline({
      ...context,
      name: request.params.name,
      arguments: request.params.arguments,
      signal: extra.signal,
      ...(request.params._meta?.read_snapshot !== undefined && {
        readSnapshot: request.params._meta.read_snapshot,
      }),
    });
  });
  return server;
}
