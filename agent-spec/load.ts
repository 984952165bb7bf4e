/**
 * Loads `agent-spec/sentinel.agent.json`, validates it, and inlines its instructions from
 * `instructions.md`, giving the `AgentSpec` that is sent to the TrueForge harness.
 */
import { readFileSync } from 'node:fs';
import { dirname, resolve } from 'node:path';
import type { z } from 'zod';
import { fromZod, SentinelError } from '../core/index.ts';
import { DEFAULT_AGENT_SPEC_PATH } from './default-path.ts';
import { AgentSpecFileSchema, AgentSpecSchema, type AgentSpec, type McpServerEntry } from './schema.ts';

export { DEFAULT_AGENT_SPEC_PATH };

/** Name of the Sentinel MCP server in the spec's `mcp_servers` (and in the harness's settings). */
export const SENTINEL_MCP_SERVER_NAME = 'sentinel';

function invalid(path: string, error: z.ZodError): SentinelError {
  return fromZod(error, [], { unknownKeys: 'keys', message: (lines) => `Agent spec ${path}: ${lines}.` });
}

function readText(path: string, what: string): string {
  try {
    return readFileSync(path, 'utf8');
  } catch (error) {
    const reason =
      (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'file not found' : (error as Error).message;
    throw new SentinelError('invalid_input', `Cannot read the ${what} ${path}: ${reason}.`, {
      field: what === 'agent spec' ? 'spec' : 'instructions',
      cause: error,
    });
  }
}

/**
 * Reads and validates the spec file, inlines `instructions: {"$file": ...}` (relative to the spec),
 * and validates the result as an `AgentSpec`. Throws `SentinelError('invalid_input')` naming the file
 * and the field (unknown keys included) when either check fails or a file cannot be read.
 */
export function loadAgentSpec(path: string = DEFAULT_AGENT_SPEC_PATH): AgentSpec {
  let json: unknown;
  try {
    json = JSON.parse(readText(path, 'agent spec'));
  } catch (error) {
    if (error instanceof SentinelError) throw error;
    throw new SentinelError(
      'invalid_input',
      `Agent spec ${path} is not valid JSON: ${(error as Error).message}.`,
      {
        cause: error,
      },
    );
  }
  const file = AgentSpecFileSchema.safeParse(json);
  if (!file.success) throw invalid(path, file.error);
  const { instructions } = file.data;
  const inline =
    typeof instructions === 'string'
      ? instructions
      : readText(resolve(dirname(path), instructions.$file), 'agent instructions');
  const spec = AgentSpecSchema.safeParse({ ...file.data, instructions: inline });
  if (!spec.success) throw invalid(path, spec.error);
  return spec.data;
}

/** The spec's entry for the Sentinel MCP server; throws `invalid_input` when there is none. */
export function sentinelServerEntry(spec: AgentSpec): McpServerEntry {
  const entry = spec.mcp_servers?.find((server) => server.name === SENTINEL_MCP_SERVER_NAME);
  if (!entry) {
    throw new SentinelError(
      'invalid_input',
      `The agent spec has no mcp_servers entry named '${SENTINEL_MCP_SERVER_NAME}'.`,
      { field: 'mcp_servers' },
    );
  }
  return entry;
}
