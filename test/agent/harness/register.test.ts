import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { TrueForgeClient } from '../../../agent/harness/client.ts';
import { CONNECTOR_DESCRIPTION, registerWithHarness } from '../../../agent/harness/register.ts';
import { SentinelError } from '../../../tools/errors.ts';
import { FakeTrueForge } from '../../helpers/fake-trueforge.ts';

const SPEC = {
  model: { name: 'openai/gpt-main' },
  instructions: 'Investigate read-only first.',
  mcp_servers: [
    {
      name: 'sentinel',
      enable_tools: ['@all'],
      preload: true,
      require_approval_for_tools: ['@write', '@destructive', 'rollback_deployment'],
    },
  ],
};

describe('sentinel harness register', () => {
  let harness: FakeTrueForge;
  beforeEach(async () => {
    harness = await new FakeTrueForge().start();
  });
  afterEach(() => harness.close());

  it('creates the connector and the agent, and a second run updates both instead of duplicating', async () => {
    const client = new TrueForgeClient({ url: harness.url });
    const first = await registerWithHarness(client, {
      serverUrl: 'http://127.0.0.1:7070/mcp',
      trueforgeToken: 'tok-1',
      spec: SPEC,
    });
    expect(first).toEqual({
      connector: { name: 'sentinel', action: 'created', authStatus: 'authenticated' },
      agent: { id: 'agent-1', name: 'sentinel', model: 'openai/gpt-main', action: 'created' },
    });
    expect(harness.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /api/v1/settings/mcp-servers/sentinel',
      'POST /api/v1/settings/mcp-servers',
      'GET /api/v1/agents',
      'POST /api/v1/agents',
    ]);
    expect(harness.requests[1]!.body).toEqual({
      manifest: {
        type: 'remote',
        name: 'sentinel',
        url: 'http://127.0.0.1:7070/mcp',
        description: CONNECTOR_DESCRIPTION,
        auth: { type: 'header', headers: { Authorization: 'Bearer tok-1' } },
      },
    });
    expect(harness.requests[3]!.body).toEqual({ name: 'sentinel', manifest: SPEC });

    harness.requests.length = 0;
    const second = await registerWithHarness(client, {
      serverUrl: 'http://10.0.0.5:7070/mcp',
      trueforgeToken: 'tok-2',
      spec: SPEC,
      model: 'anthropic/claude-x',
    });
    expect(second.connector.action).toBe('updated');
    expect(second.agent).toEqual({
      id: 'agent-1',
      name: 'sentinel',
      model: 'anthropic/claude-x',
      action: 'updated',
    });
    expect(harness.requests.map((r) => `${r.method} ${r.path}`)).toEqual([
      'GET /api/v1/settings/mcp-servers/sentinel',
      'PUT /api/v1/settings/mcp-servers',
      'GET /api/v1/agents',
      'PUT /api/v1/agents/agent-1',
    ]);
    expect(harness.requests[3]!.body).toEqual({
      manifest: { ...SPEC, model: { name: 'anthropic/claude-x' } },
    });
    expect(harness.agents.size).toBe(1);
    expect(harness.mcpServers.size).toBe(1);
    expect(harness.mcpServers.get('sentinel')).toMatchObject({
      url: 'http://10.0.0.5:7070/mcp',
      auth: { headers: { Authorization: 'Bearer tok-2' } },
    });
  });

  it('refuses a spec whose MCP servers do not include the sentinel connector, before calling the harness', async () => {
    const error = (await registerWithHarness(new TrueForgeClient({ url: harness.url }), {
      serverUrl: 'http://127.0.0.1:7070/mcp',
      trueforgeToken: 't',
      spec: { ...SPEC, mcp_servers: [{ name: 'ops' }] },
    }).catch((e: unknown) => e)) as SentinelError;
    expect(error).toBeInstanceOf(SentinelError);
    expect(error.field).toBe('mcp_servers');
    expect(harness.requests).toEqual([]);
  });
});
