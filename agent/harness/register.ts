/**
 * `sentinel harness register`: makes a TrueForge harness ready to run Sentinel, idempotently.
 *
 * 1. The MCP connector named `sentinel`: the Sentinel server's MCP URL, a description, and header
 *    auth with the bearer token of the Sentinel identity `trueforge` (a caller, never an approver).
 *    Created when absent (POST), replaced when present (PUT).
 * 2. The agent named `sentinel` from the agent spec (model optionally overridden): agents are listed;
 *    the existing one is updated by id (PUT), else one is created (POST).
 * Running it twice leaves one connector and one agent, updated.
 */
import { SentinelError } from '../../tools/errors.ts';
import type { TrueForgeClient } from './client.ts';
import { SENTINEL_AGENT_NAME } from './names.ts';
import type { Agent, AgentSpec, McpServerManifest } from './schemas.ts';

export const CONNECTOR_DESCRIPTION =
  'Sentinel: Kubernetes incident response. Read-only investigation tools; remediation (rollback, restart, scale, pause, resume) runs only after a human approves the exact call on the Sentinel server.';

export interface RegistrationOptions {
  /** The Sentinel server's MCP URL as the harness reaches it, e.g. `http://127.0.0.1:7070/mcp`. */
  serverUrl: string;
  /** Bearer token of the Sentinel identity `trueforge` (role `caller`). */
  trueforgeToken: string;
  /** The agent spec to register. */
  spec: AgentSpec;
  /** Model to run the agent on (`provider/model` as the harness names it); default: the spec's. */
  model?: string | undefined;
  /** Agent and connector name. Default `sentinel`. */
  name?: string;
}

export interface RegistrationResult {
  connector: { name: string; action: 'created' | 'updated'; authStatus: string };
  agent: { id: string; name: string; model: string; action: 'created' | 'updated' };
}

/**
 * Creates or updates the connector, then the agent. Throws `SentinelError('invalid_input')` when
 * the spec does not use the connector, and the harness's errors otherwise.
 */
export async function registerWithHarness(
  client: TrueForgeClient,
  options: RegistrationOptions,
): Promise<RegistrationResult> {
  const name = options.name ?? SENTINEL_AGENT_NAME;
  if (!options.spec.mcp_servers?.some((server) => server.name === name)) {
    throw new SentinelError(
      'invalid_input',
      `The agent spec has no mcp_servers entry named '${name}', so the agent would not reach Sentinel's tools.`,
      { field: 'mcp_servers' },
    );
  }
  const manifest: McpServerManifest = {
    type: 'remote',
    name,
    url: options.serverUrl,
    description: CONNECTOR_DESCRIPTION,
    auth: { type: 'header', headers: { Authorization: `Bearer ${options.trueforgeToken}` } },
  };
  const existingConnector = await client.getMcpServer(name);
  const connector = existingConnector
    ? await client.replaceMcpServer(manifest)
    : await client.createMcpServer(manifest).catch(async (error: unknown) => {
        // Created concurrently since the lookup: replace it instead.
        if (error instanceof SentinelError && error.code === 'conflict')
          return client.replaceMcpServer(manifest);
        throw error;
      });

  const spec: AgentSpec = options.model
    ? { ...options.spec, model: { ...options.spec.model, name: options.model } }
    : options.spec;
  const { agent, action } = await upsertAgent(client, name, spec);
  return {
    connector: {
      name,
      action: existingConnector ? 'updated' : 'created',
      authStatus: connector.auth_status.status,
    },
    agent: { id: agent.id, name: agent.name, model: agent.manifest.model.name, action },
  };
}

async function upsertAgent(
  client: TrueForgeClient,
  name: string,
  spec: AgentSpec,
): Promise<{ agent: Agent; action: 'created' | 'updated' }> {
  const existing = (await client.listAgents()).find((agent) => agent.name === name);
  if (existing) return { agent: await client.updateAgent(existing.id, spec), action: 'updated' };
  try {
    return { agent: await client.createAgent(name, spec), action: 'created' };
  } catch (error) {
    if (!(error instanceof SentinelError && error.code === 'conflict')) throw error;
    const raced = (await client.listAgents()).find((agent) => agent.name === name);
    if (!raced) throw error;
    return { agent: await client.updateAgent(raced.id, spec), action: 'updated' };
  }
}
