/**
 * Layer 2 of the safety argument: every write/destructive tool Sentinel registers is gated by the
 * agent spec under the harness's own selector semantics — by tag, and by literal name alone — and
 * the annotations the harness decides from arrive intact over the wire.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { approvalCoverageProblems } from '../agent-spec/approval-coverage.ts';
import { loadAgentSpec, sentinelServerEntry } from '../agent-spec/load.ts';
import { literalToolNames, requiresApproval } from '../agent-spec/selectors.ts';
import { defineTool, toolInput, annotationsFor, createRegistry, allTools } from '../tools/index.ts';
import type { Risk, Tool, ToolRegistry } from '../tools/index.ts';
import { fixtureTools } from './helpers/fixture-tools.ts';
import { connectClient, startTestServer, type TestServer } from './helpers/server.ts';

/**
 * Remediation tools the spec lists before they are registered (issue 5 is building them). The
 * coverage check fails as soon as one of these is registered, so this list can only shrink; when it
 * is empty, the spec's literal names must equal the registry's write/destructive tools exactly.
 */
const NOT_YET_REGISTERED: readonly string[] = [
  'rollback_deployment',
  'restart_service',
  'scale_deployment',
  'pause_rollout',
  'resume_rollout',
  'delete_pod',
].filter((name) => !allTools.some((tool) => tool.name === name));

/** The remediation tools and the risk each must declare. */
const REMEDIATION_RISKS: Record<string, Risk> = {
  rollback_deployment: 'destructive',
  restart_service: 'destructive',
  scale_deployment: 'destructive',
  pause_rollout: 'write',
  resume_rollout: 'write',
  delete_pod: 'destructive',
};

const registry = createRegistry(allTools);
const entry = sentinelServerEntry(loadAgentSpec());
const selectors = entry.require_approval_for_tools!;

describe('tool registry', () => {
  it('registers only tools whose annotations are exactly those derived from their risk', () => {
    for (const tool of registry.tools) {
      expect(tool.annotations, tool.name).toEqual(annotationsFor(tool.risk, tool.title, tool.idempotent));
      expect(tool.annotations.readOnlyHint, tool.name).toBe(tool.risk === 'read');
      expect(tool.annotations.destructiveHint, tool.name).toBe(tool.risk === 'destructive');
      expect(tool.annotations.openWorldHint, tool.name).toBe(true);
    }
  });

  it('gives each remediation tool its declared risk once registered', () => {
    for (const tool of registry.tools) {
      if (tool.name in REMEDIATION_RISKS) expect(tool.risk, tool.name).toBe(REMEDIATION_RISKS[tool.name]);
    }
  });
});

describe('agent spec gates every write/destructive tool', () => {
  it('has no coverage problems against the real registry', () => {
    expect(approvalCoverageProblems(registry.tools, entry, { notYetRegistered: NOT_YET_REGISTERED })).toEqual(
      [],
    );
  });

  it('requires approval for every write/destructive tool with annotations and with annotations absent', () => {
    for (const name of registry.namesWithRisk('write', 'destructive')) {
      const tool = registry.get(name)!;
      expect(requiresApproval(name, tool.annotations, selectors), `${name} with annotations`).toBe(true);
      expect(requiresApproval(name, undefined, selectors), `${name} without annotations`).toBe(true);
    }
  });

  it('lists exactly the write/destructive tools by literal name (registered or still being built)', () => {
    const expected = [...registry.namesWithRisk('write', 'destructive'), ...NOT_YET_REGISTERED].sort();
    expect([...literalToolNames(selectors)].sort()).toEqual(expected);
    expect([...literalToolNames(selectors)].sort()).toEqual(Object.keys(REMEDIATION_RISKS).sort());
  });

  it('lists only names that are registered tools (pending ones excepted)', () => {
    const registered = new Set(registry.tools.map((tool) => tool.name));
    for (const name of literalToolNames(selectors)) {
      expect(registered.has(name) || NOT_YET_REGISTERED.includes(name), name).toBe(true);
    }
  });

  it('does not gate read tools', () => {
    for (const name of registry.namesWithRisk('read')) {
      expect(requiresApproval(name, registry.get(name)!.annotations, selectors), name).toBe(false);
    }
  });
});

describe('the coverage check can fail', () => {
  const unlisted = (risk: Risk): Tool =>
    defineTool({
      name: 'delete_namespace',
      title: 'Delete a namespace',
      description: 'Fixture: a risky tool the spec does not list.',
      risk,
      input: toolInput({}),
      handler: async () => ({ text: 'deleted' }),
    });

  it('flags an unlisted destructive tool: gated by tag, but not by literal name', () => {
    const problems = approvalCoverageProblems([...registry.tools, unlisted('destructive')], entry, {
      notYetRegistered: NOT_YET_REGISTERED,
    });
    expect(problems).toEqual([
      'delete_namespace (destructive) is not listed by literal name, so it would run unapproved if its annotations were lost.',
    ]);
  });

  it('flags a spec without the tags, a literal name that is not a tool, and a stale pending entry', () => {
    const tool = unlisted('write');
    expect(
      approvalCoverageProblems(
        [tool],
        { name: 'sentinel', require_approval_for_tools: ['rollbak_deployment'] },
        {
          notYetRegistered: ['delete_namespace'],
        },
      ),
    ).toEqual([
      "require_approval_for_tools must include '@write'.",
      "require_approval_for_tools must include '@destructive'.",
      'delete_namespace (write) is not gated by its annotations.',
      'delete_namespace (write) is not listed by literal name, so it would run unapproved if its annotations were lost.',
      "'rollbak_deployment' is listed but is not a registered tool.",
    ]);
    expect(
      approvalCoverageProblems(
        [tool],
        { name: 'sentinel', require_approval_for_tools: ['@all', 'delete_namespace'] },
        {
          notYetRegistered: ['delete_namespace'],
        },
      ),
    ).toContain("'delete_namespace' is registered now; remove it from the not-yet-registered list.");
  });

  it('flags a spec that leaves require_approval_for_tools to the harness default', () => {
    expect(approvalCoverageProblems(registry.tools, { name: 'sentinel' })).toEqual([
      "mcp_servers 'sentinel' has no require_approval_for_tools; the harness default does not gate unannotated tools.",
    ]);
  });
});

/** Lists the tools of `registry` through a running server and a real SDK client. */
async function listOverTheWire(tools: ToolRegistry) {
  let server: TestServer | undefined;
  let client: Awaited<ReturnType<typeof connectClient>> | undefined;
  return {
    start: async () => {
      server = await startTestServer({ registry: tools });
      client = await connectClient(server.url, server.token);
    },
    list: async () => (await client!.listTools()).tools,
    stop: async () => {
      await client?.close();
      await server?.close();
    },
  };
}

describe.each([
  ['the real registry', registry],
  ['a fixture registry with write and destructive tools', fixtureTools().registry],
])('over the wire: %s', (_label, tools) => {
  let wire: Awaited<ReturnType<typeof listOverTheWire>>;
  beforeAll(async () => {
    wire = await listOverTheWire(tools);
    await wire.start();
  });
  afterAll(() => wire.stop());

  it('delivers every tool with its annotations intact and strict input schemas', async () => {
    const listed = await wire.list();
    expect(listed.map((tool) => tool.name)).toEqual(tools.tools.map((tool) => tool.name));
    for (const tool of listed) {
      const registered = tools.get(tool.name)!;
      expect(tool.annotations, tool.name).toEqual(registered.annotations);
      expect(tool.title, tool.name).toBe(registered.title);
      expect(tool.inputSchema.additionalProperties, tool.name).toBe(false);
    }
  });

  it('keeps the gating decision the same on the annotations the harness receives', async () => {
    for (const tool of await wire.list()) {
      const risky = tools.get(tool.name)!.risk !== 'read';
      expect(requiresApproval(tool.name, tool.annotations, ['@write', '@destructive']), tool.name).toBe(
        risky,
      );
    }
  });
});
