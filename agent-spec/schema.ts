/**
 * zod schemas of the TrueForge agent spec (`AgentSpec` in ../shared/harness/openapi.json), for the
 * parts Sentinel writes. Objects are strict on purpose: a misspelled key such as
 * `require_approval_for_tool` would otherwise be ignored by the harness, which would then apply its
 * default selectors — and those do not gate unannotated tools.
 */
import { z } from 'zod';

/** `MCPServerToolSelector`: `@all`, `@read-only`, or a literal tool name. */
export const ToolSelectorSchema = z.string().min(1, 'must not be empty');

/** `MCPServerApprovalToolSelector`: `@all`, `@write`, `@destructive`, or a literal tool name. */
export const ApprovalToolSelectorSchema = z.string().min(1, 'must not be empty');

/** `MCPServer`: an MCP server attached to the agent by its configured name. */
export const McpServerEntrySchema = z.strictObject({
  name: z.string().min(1, 'must not be empty'),
  /** Harness default `["@all"]`. */
  enable_tools: z.array(ToolSelectorSchema).optional(),
  /** Harness default `[]`. */
  disable_tools: z.array(ToolSelectorSchema).optional(),
  /** Load every tool schema up front. Harness default false. */
  preload: z.boolean().optional(),
  preload_tools: z.array(ToolSelectorSchema).optional(),
  /** Harness default `["@write", "@destructive"]`. */
  require_approval_for_tools: z.array(ApprovalToolSelectorSchema).optional(),
});
export type McpServerEntry = z.infer<typeof McpServerEntrySchema>;

/** `Model`: `provider/model`, e.g. `openai/gpt-5.2`, with optional parameters. */
export const ModelSchema = z.strictObject({
  name: z.string().min(1, 'must not be empty'),
  params: z.record(z.string(), z.unknown()).optional(),
});

/** `AgentSpec`, as sent to the harness (instructions inline). */
export const AgentSpecSchema = z.strictObject({
  model: ModelSchema,
  instructions: z.string().min(1, 'must not be empty').optional(),
  mcp_servers: z.array(McpServerEntrySchema).optional(),
  config: z.record(z.string(), z.unknown()).optional(),
  messages: z
    .array(z.strictObject({ type: z.literal('user.message'), content: z.string().min(1) }))
    .optional(),
  response_format: z.record(z.string(), z.unknown()).optional(),
  skills: z.array(z.strictObject({ name: z.string().min(1).max(64) })).optional(),
});
export type AgentSpec = z.infer<typeof AgentSpecSchema>;

/**
 * The spec file on disk: an `AgentSpec` whose `instructions` may instead name a Markdown file
 * (`{"$file": "instructions.md"}`, relative to the spec), which the loader inlines.
 */
export const AgentSpecFileSchema = AgentSpecSchema.extend({
  instructions: z.union([
    z.string().min(1, 'must not be empty'),
    z.strictObject({ $file: z.string().min(1, 'must name a file') }),
  ]),
});
export type AgentSpecFile = z.infer<typeof AgentSpecFileSchema>;
