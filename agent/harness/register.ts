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
import {
  approvalCoverageProblems,
  literalToolNames,
  SENTINEL_MCP_SERVER_NAME,
  sentinelServerEntry,
  type AgentSpec,
} from '../../agent-spec/index.ts';
import type { Tool } from '../../tools/index.ts';
import { SentinelError } from '../../core/index.ts';
import { SENTINEL_AGENT_NAME } from './names.ts';
import type { Agent, McpServerManifest, TrueForgeClient } from '../../trueforge/index.ts';

/**
 * True in both modes: by default the Sentinel server needs its own approval (an approver on its page,
 * or `sentinel investigate --harness` answering yes); with `trust_upstream_approval` an allow in the
 * harness counts once the server has verified it against the harness.
 */
export const CONNECTOR_DESCRIPTION =
  "Sentinel: Kubernetes incident response. Read-only investigation tools; remediation (rollback, restart, scale, pause, resume) runs only once a human approved that exact call: on the Sentinel server, or — where the operator trusts this harness's approvals — in the harness, verified by the Sentinel server against the harness's record. A call held for approval is not an error: tell the user the request id and where to approve it.";

export interface RegistrationOptions {
  /** The Sentinel server's MCP URL as the harness reaches it, e.g. `http://127.0.0.1:7070/mcp`. */
  serverUrl: string;
  /**
   * Bearer token of the Sentinel identity `trueforge` (role `caller`), or a function issuing one;
   * it is called only once the harness has answered, so a harness that is down rotates nothing.
   */
  trueforgeToken: string | (() => string);
  /** The agent spec to register (agent-spec/'s `loadAgentSpec`). */
  spec: AgentSpec;
  /** Sentinel's tools, whose write/destructive members the spec must gate. */
  tools: readonly Tool[];
  /** Model to run the agent on (`provider/model` as the harness names it); default: the spec's. */
  model?: string | undefined;
}

export interface RegistrationResult {
  connector: { name: string; action: 'created' | 'updated'; authStatus: string };
  agent: { id: string; name: string; model: string; action: 'created' | 'updated' };
}

/**
 * Creates or updates the connector, then the agent. Throws `SentinelError('invalid_input')`, before
 * calling the harness, when the spec has no `sentinel` MCP server entry or would let a
 * write/destructive tool run without the harness asking; the harness's errors otherwise.
 */
export async function registerWithHarness(
  client: TrueForgeClient,
  options: RegistrationOptions,
): Promise<RegistrationResult> {
  checkGating(options.spec, options.tools);
  const name = SENTINEL_MCP_SERVER_NAME;
  const existingConnector = await client.getMcpServer(name);
  const token =
    typeof options.trueforgeToken === 'function' ? options.trueforgeToken() : options.trueforgeToken;
  const manifest: McpServerManifest = {
    type: 'remote',
    name,
    url: options.serverUrl,
    description: CONNECTOR_DESCRIPTION,
    auth: { type: 'header', headers: { Authorization: `Bearer ${token}` } },
  };
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
  const { agent, action } = await upsertAgent(client, SENTINEL_AGENT_NAME, spec);
  return {
    connector: {
      name,
      action: existingConnector ? 'updated' : 'created',
      authStatus: connector.auth_status.status,
    },
    agent: { id: agent.id, name: agent.name, model: agent.manifest.model.name, action },
  };
}

/**
 * The harness gate must hold every write/destructive tool, by annotation and by literal name. Names
 * of tools not registered yet are tolerated (they are gated once they exist).
 */
function checkGating(spec: AgentSpec, tools: readonly Tool[]): void {
  const entry = sentinelServerEntry(spec);
  const registered = new Set(tools.map((tool) => tool.name));
  const notYetRegistered = literalToolNames(entry.require_approval_for_tools).filter(
    (n) => !registered.has(n),
  );
  const problems = approvalCoverageProblems(tools, entry, { notYetRegistered });
  if (problems.length > 0) {
    throw new SentinelError(
      'invalid_input',
      `The agent spec would let the harness run a change without asking: ${problems.join(' ')}`,
      { field: 'mcp_servers' },
    );
  }
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
