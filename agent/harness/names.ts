/**
 * Names shared by registration and investigations: what `sentinel harness register` creates in the
 * harness is what `sentinel investigate --harness` uses.
 */

/** Name of the agent in the harness (its MCP connector is agent-spec's `SENTINEL_MCP_SERVER_NAME`). */
export const SENTINEL_AGENT_NAME = 'sentinel';

/** The Sentinel identity whose token the connector carries: the requester of every harness call. */
export const HARNESS_IDENTITY = 'trueforge';

/** Where `sentinel serve` listens by default. */
export const DEFAULT_SENTINEL_MCP_URL = 'http://127.0.0.1:7070/mcp';
