import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { TrueForgeClient } from '../../../trueforge/client.ts';
import { CONNECTOR_DESCRIPTION, registerWithHarness } from '../../../agent/harness/register.ts';
import { defineTool, toolInput } from '../../../tools/define-tool.ts';
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

/** A destructive tool the spec must gate by tag and by literal name. */
const rollback = defineTool({
  name: 'rollback_deployment',
  title: 'Roll back a Deployment',
  description: 'Fixture.',
  risk: 'destructive',
  input: toolInput({ namespace: z.string() }),
  handler: async () => ({ text: '' }),
});
const TOOLS = [rollback];

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
      tools: TOOLS,
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
      tools: TOOLS,
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

  it('refuses, before calling the harness, a spec without the sentinel entry or one that leaves a destructive tool ungated', async () => {
    const client = new TrueForgeClient({ url: harness.url });
    const register = (spec: typeof SPEC) =>
      registerWithHarness(client, {
        serverUrl: 'http://127.0.0.1:7070/mcp',
        trueforgeToken: 't',
        spec,
        tools: TOOLS,
      }).then(
        () => undefined,
        (e: unknown) => e as SentinelError,
      );

    const noEntry = await register({ ...SPEC, mcp_servers: [{ ...SPEC.mcp_servers[0]!, name: 'ops' }] });
    expect(noEntry).toBeInstanceOf(SentinelError);
    expect(noEntry!.message).toBe("The agent spec has no mcp_servers entry named 'sentinel'.");

    const byTagOnly = await register({
      ...SPEC,
      mcp_servers: [{ ...SPEC.mcp_servers[0]!, require_approval_for_tools: ['@write', '@destructive'] }],
    });
    expect(byTagOnly!.message).toBe(
      'The agent spec would let the harness run a change without asking: rollback_deployment (destructive) is not listed by literal name, so it would run unapproved if its annotations were lost.',
    );
    expect(harness.requests).toEqual([]);
  });

  it('issues the connector token only once the harness has answered', async () => {
    await harness.close();
    let issued = 0;
    const error = await registerWithHarness(new TrueForgeClient({ url: harness.url }), {
      serverUrl: 'http://127.0.0.1:7070/mcp',
      trueforgeToken: () => `tok-${++issued}`,
      spec: SPEC,
      tools: TOOLS,
    }).catch((e: unknown) => e as SentinelError);
    expect((error as SentinelError).code).toBe('unavailable');
    expect(issued).toBe(0);
    harness = await new FakeTrueForge().start(); // for afterEach
  });
});
