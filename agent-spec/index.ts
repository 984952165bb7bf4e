/**
 * Public entry of the agent-spec module: the TrueForge agent spec (schema and loader), the harness's
 * tool selector semantics, and the approval coverage check.
 */
export {
  AgentSpecSchema,
  AgentSpecFileSchema,
  McpServerEntrySchema,
  ModelSchema,
  type AgentSpec,
  type AgentSpecFile,
  type McpServerEntry,
} from './schema.ts';
export {
  DEFAULT_AGENT_SPEC_PATH,
  loadAgentSpec,
  SENTINEL_MCP_SERVER_NAME,
  sentinelServerEntry,
} from './load.ts';
export {
  DEFAULT_DISABLE_TOOLS,
  DEFAULT_ENABLE_TOOLS,
  DEFAULT_REQUIRE_APPROVAL_FOR_TOOLS,
  isToolAllowed,
  literalToolNames,
  matchesAnySelector,
  requiresApproval,
  SELECTOR_TAGS,
  type WireAnnotations,
} from './selectors.ts';
export { approvalCoverageProblems, type CoverageOptions } from './approval-coverage.ts';
