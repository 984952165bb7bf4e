/**
 * The `tools/call` pipeline contract between the MCP server and the middlewares that wrap tool
 * execution (the approval gate, audit). The server parses the arguments with the tool's strict
 * schema first, then runs the middlewares in order; the last `next` runs the tool handler.
 */
import type { CallToolResult } from '@modelcontextprotocol/sdk/types.js';
import type { ClusterIdentity, Tool } from '../tools/define-tool.ts';
import type { Role } from './identity.ts';

/** Who is calling: resolved from the request's bearer token. */
export interface Identity {
  name: string;
  roles: Role[];
  trustUpstreamApproval: boolean;
}

/** One `tools/call`, after its arguments were parsed (defaults applied). */
export interface ToolCall {
  requestId: string;
  identity: Identity;
  tool: Tool;
  args: Record<string, unknown> /* parsed, defaults applied */;
  cluster: ClusterIdentity | undefined;
}

/** What a middleware may change when it runs the handler. */
export interface ExecuteOverrides {
  args?: Record<string, unknown>;
  approvalRequestId?: string;
  dryRun?: boolean;
}

/** Runs the tool handler (or the next middleware). `dryRun: true` runs it with a read-only client. */
export type ExecuteFn = (overrides?: ExecuteOverrides) => Promise<CallToolResult>;

export type ToolCallMiddleware = (call: ToolCall, next: ExecuteFn) => Promise<CallToolResult>;
