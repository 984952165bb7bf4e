/**
 * Names shared by registration and investigations: what `sentinel harness register` creates in the
 * harness is what `sentinel investigate --harness` uses.
 */
import { DEFAULT_SERVER_URL } from '../../server/light.ts';

/** Name of the agent in the harness (its MCP connector is agent-spec's `SENTINEL_MCP_SERVER_NAME`). */
export const SENTINEL_AGENT_NAME = 'sentinel';

/** The Sentinel identity whose token the connector carries: the requester of every harness call. */
export const HARNESS_IDENTITY = 'trueforge';

/** The MCP endpoint of `sentinel serve` on its default address. */
export const DEFAULT_SENTINEL_MCP_URL = `${DEFAULT_SERVER_URL}/mcp`;
